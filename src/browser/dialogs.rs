//! The JavaScript dialogs a page opens (`alert`, `confirm`, `prompt`, `beforeunload`),
//! answered the moment they open, so that no step hangs on one: a dialog stops the page (and
//! the input event that opened it) until it is answered. How each is answered is a fact the
//! click that opened it records.

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::{
    DialogType, EventJavascriptDialogOpening, HandleJavaScriptDialogParams,
};
use futures::StreamExt;
use tokio::task::JoinHandle;

use super::{BrowserError, timed};

/// How planlock answers a dialog of `kind`. An `alert` only informs: OK, as a person presses
/// it. A `confirm` or `prompt` asks for consent or a value the plan never gave: Cancel, so
/// that nothing the plan did not foresee is agreed to (an "Are you sure?" before a deletion
/// says no). Leaving a page (`beforeunload`) is what the step that navigates asked for: leave.
pub(crate) fn accepts(kind: &DialogType) -> bool {
    match kind {
        DialogType::Alert | DialogType::Beforeunload => true,
        DialogType::Confirm | DialogType::Prompt => false,
    }
}

/// A dialog as a step's detail records it: `alert: Saved! (accepted)`.
pub(crate) fn said(ev: &EventJavascriptDialogOpening) -> String {
    let answer = if accepts(&ev.r#type) {
        "accepted"
    } else {
        "dismissed"
    };
    format!("{}: {} ({answer})", ev.r#type.as_ref(), ev.message)
}

/// Answers every dialog `page` opens, for as long as the task runs.
pub(super) async fn answer_dialogs(page: &Page) -> Result<JoinHandle<()>, BrowserError> {
    let mut opened = timed(page.event_listener::<EventJavascriptDialogOpening>()).await?;
    let page = page.clone();
    Ok(tokio::spawn(async move {
        while let Some(ev) = opened.next().await {
            let answer = HandleJavaScriptDialogParams::new(accepts(&ev.r#type));
            if let Err(e) = timed(page.execute(answer)).await {
                tracing::debug!("a {} dialog could not be answered: {e}", ev.r#type.as_ref());
            }
        }
    }))
}
