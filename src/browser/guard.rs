//! The browser-wide navigation guard: every document request of every page is paused here and
//! judged by the lock of the tab whose browser context it belongs to, popups included.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, EnableParams as FetchEnable, EventRequestPaused, FailRequestParams,
    RequestPattern, RequestStage,
};
use chromiumoxide::cdp::browser_protocol::network::{ErrorReason, ResourceType};
use chromiumoxide::cdp::browser_protocol::target::{
    CloseTargetParams, GetTargetInfoParams, TargetId,
};
use futures::StreamExt;
use tokio::task::JoinHandle;

use super::activity::Activity;
use super::egress::Egress;
use super::locate::Sealed;
use super::refusals::Refusals;
use super::tab::HopRules;
use super::{BrowserError, timed};
use crate::lock::{Lock, Refusal, Why};

/// One tab, as the guard sees it.
pub(super) struct GuardedTab {
    /// The tab's own main frame.
    pub main_frame: String,
    pub lock: Arc<Lock>,
    pub refusals: Weak<Refusals>,
    /// Values typed in the tab (secrets, codes) with the one form action each may go to.
    pub sealed: Arc<Mutex<Vec<Sealed>>>,
    /// A rule the tab's documents must pass too, while it is set (an emailed link's hops).
    pub hops: HopRules,
    /// The tab's CDP command count (its navigations' interception is counted there).
    pub calls: Arc<AtomicU64>,
    /// What the tab's page does; a page it opens is counted there.
    pub activity: Arc<Activity>,
    /// The context's egress (server mode), closed with it.
    #[expect(dead_code, reason = "held, not read: dropping it closes the egress")]
    pub egress: Option<Egress>,
}

/// The browser contexts of open tabs (one tab per context).
pub(super) type GuardedTabs = Arc<Mutex<HashMap<BrowserContextId, GuardedTab>>>;

/// Starts the guard: every document request of every page is paused here (popups included:
/// they are new targets a page-level interception never sees, and headless Chromium ignores
/// `--block-new-web-contents`). A tab's own main-frame request and the top-level document of
/// any other page in its context (a popup) are judged by the tab's lock: a refusal fails the
/// request before it is sent and is recorded in the tab (failing its step); a refused popup is
/// closed. Subframes and pages that are not ours continue unchanged.
pub(super) async fn start(
    browser: &Arc<chromiumoxide::Browser>,
    tabs: &GuardedTabs,
) -> Result<JoinHandle<()>, BrowserError> {
    // Subscribe before enabling interception, so no paused request is missed.
    let mut paused = timed(browser.event_listener::<EventRequestPaused>()).await?;
    let task = {
        let browser = browser.clone();
        let tabs = tabs.clone();
        tokio::spawn(async move {
            let mut decisions = tokio::task::JoinSet::new();
            while let Some(ev) = paused.next().await {
                // One at a time would stall every page behind one slow answer.
                decisions.spawn(decide(browser.clone(), tabs.clone(), ev));
                while decisions.try_join_next().is_some() {}
            }
        })
    };
    let pattern = RequestPattern {
        url_pattern: Some("*".into()),
        resource_type: Some(ResourceType::Document),
        request_stage: Some(RequestStage::Request),
    };
    let enabled = timed(browser.execute(FetchEnable {
        patterns: Some(vec![pattern]),
        handle_auth_requests: None,
    }))
    .await;
    if let Err(e) = enabled {
        task.abort();
        return Err(e);
    }
    Ok(task)
}

/// Continues or refuses one document request paused at the browser level.
async fn decide(
    browser: Arc<chromiumoxide::Browser>,
    tabs: GuardedTabs,
    ev: Arc<EventRequestPaused>,
) {
    let frame = ev.frame_id.inner().clone();
    let id = ev.request_id.clone();
    let own_tab = tabs.lock().ok().and_then(|g| {
        g.values().find(|t| t.main_frame == frame).map(|t| {
            (
                t.lock.clone(),
                t.refusals.clone(),
                t.sealed.clone(),
                t.hops.clone(),
                t.calls.clone(),
            )
        })
    });
    // (refusal, the tab to record it in, whether to close the requesting page)
    let verdict = if let Some((lock, refusals, sealed, hops, calls)) = own_tab {
        calls.fetch_add(1, Ordering::Relaxed);
        let judged = judge(&lock, &ev.request.url)
            .await
            .and_then(|()| keeps_sealed(&sealed, &ev.request))
            .and_then(|()| passes_hop_rule(&hops, &ev.request.url));
        judged.err().map(|r| (r, Some(refusals), false))
    } else {
        // A page's main frame has its target's id; a subframe's id is no target at all.
        match timed(browser.execute(GetTargetInfoParams {
            target_id: Some(TargetId::from(frame.clone())),
        }))
        .await
        {
            Ok(info) => {
                let info = &info.result.target_info;
                let tab = info.browser_context_id.as_ref().and_then(|ctx| {
                    tabs.lock()
                        .ok()?
                        .get(ctx)
                        .map(|t| (t.lock.clone(), t.refusals.clone(), t.activity.clone()))
                });
                match tab {
                    Some((lock, refusals, activity)) if info.r#type == "page" => {
                        // Another page of the tab's context: one its page opened.
                        activity.popup();
                        judge(&lock, &ev.request.url)
                            .await
                            .err()
                            .map(|r| (r, Some(refusals), true))
                    }
                    _ => None,
                }
            }
            Err(e) if e.to_string().contains("No target") => None,
            // Unknown: fail closed.
            Err(e) => Some((
                Refusal::new(
                    ev.request.url.as_str(),
                    Why::UnknownPage {
                        error: e.to_string(),
                    },
                ),
                None,
                false,
            )),
        }
    };
    let sent = match verdict {
        None => timed(browser.execute(ContinueRequestParams::new(id)))
            .await
            .map(|_| ()),
        Some((refusal, refusals, popup)) => {
            if let Some(tab) = refusals.and_then(|w| w.upgrade()) {
                tab.push(refusal);
            }
            let failed =
                timed(browser.execute(FailRequestParams::new(id, ErrorReason::BlockedByClient)))
                    .await
                    .map(|_| ());
            if popup {
                // Nothing is left for the popup to show; the run has one tab.
                let _ = timed(browser.execute(CloseTargetParams::new(TargetId::from(frame)))).await;
            }
            failed
        }
    };
    if let Err(e) = sent {
        tracing::debug!("navigation guard: {e}");
    }
}

/// A document request that carries a value the run typed (a secret, an emailed code) may only
/// be the submission of a form it was typed into: not a form others' content retargeted
/// (`formaction`, `form=`) elsewhere, not a link or a script with it in the URL.
fn keeps_sealed(
    sealed: &Mutex<Vec<Sealed>>,
    request: &chromiumoxide::cdp::browser_protocol::network::Request,
) -> Result<(), Refusal> {
    let Ok(sealed) = sealed.lock() else {
        return Ok(());
    };
    if sealed.is_empty() {
        return Ok(());
    }
    let Ok(url) = url::Url::parse(&request.url) else {
        return Ok(());
    };
    let body: String = request
        .post_data_entries
        .iter()
        .flatten()
        .filter_map(|e| e.bytes.as_ref())
        .filter_map(|b| {
            let b64: &str = b.as_ref();
            base64::Engine::decode(&base64::engine::general_purpose::STANDARD, b64).ok()
        })
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .collect();
    for s in sealed.iter() {
        if (s.found_in(url.as_str()) || s.found_in(&body)) && !s.allows(&url) {
            let forms = s
                .actions()
                .iter()
                .map(|a| a[..url::Position::AfterPath].to_string())
                .collect();
            return Err(Refusal::new(
                &url[..url::Position::AfterPath],
                Why::SecretLeaving { forms },
            ));
        }
    }
    Ok(())
}

/// A document request while an emailed link's navigation goes on: it may not land on a page
/// whose address says it undoes or destroys something, whichever hop brought it there.
fn passes_hop_rule(hops: &HopRules, url: &str) -> Result<(), Refusal> {
    let rule = hops.lock().ok().and_then(|h| h.clone());
    let (Some(rule), Ok(parsed)) = (rule, url::Url::parse(url)) else {
        return Ok(());
    };
    match rule(&parsed) {
        None => Ok(()),
        Some(said) => Err(Refusal::new(url, Why::UndoingHop { said })),
    }
}

/// One top-level destination against a lock (resolved addresses too, in server mode).
async fn judge(lock: &Lock, url: &str) -> Result<(), Refusal> {
    match url::Url::parse(url) {
        Ok(u) => lock.check_navigation(&u).await,
        Err(_) => Err(Refusal::new(url, Why::NotAUrl)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chromiumoxide::cdp::browser_protocol::network::Request;

    fn post(url: &str, body: &str) -> Request {
        use base64::Engine as _;
        serde_json::from_value(serde_json::json!({
            "url": url,
            "method": "POST",
            "headers": {},
            "initialPriority": "VeryHigh",
            "referrerPolicy": "strict-origin-when-cross-origin",
            "hasPostData": true,
            "postDataEntries": [
                {"bytes": base64::engine::general_purpose::STANDARD.encode(body)}
            ],
        }))
        .expect("a CDP request")
    }

    fn sealed(typed: &[(&str, &str)]) -> Mutex<Vec<Sealed>> {
        let mut all: Vec<Sealed> = Vec::new();
        for (value, action) in typed {
            match all.iter_mut().find(|s| s.holds(value)) {
                Some(s) => s.typed_into(Some(action)),
                None => all.push(Sealed::new(value, Some(action))),
            }
        }
        Mutex::new(all)
    }

    #[test]
    fn a_secret_typed_into_two_forms_leaves_through_either_and_nowhere_else() {
        let typed = sealed(&[
            ("hunter2-long", "http://shop.test/register"),
            ("hunter2-long", "http://shop.test/login?next=/"),
        ]);
        let body = "username=ada&password=hunter2-long";
        for to in ["http://shop.test/register", "http://shop.test/login"] {
            assert!(keeps_sealed(&typed, &post(to, body)).is_ok(), "{to}");
        }
        let refused = keeps_sealed(&typed, &post("http://shop.test/comments", body))
            .expect_err("another address");
        assert_eq!(
            refused.to_string(),
            "[plan] a request to http://shop.test/comments carries a value this run typed (a \
             secret or an emailed code), which may go only to the addresses of the forms it \
             was typed into, http://shop.test/register and http://shop.test/login. It was not \
             sent."
        );
        // A request without the value goes anywhere the lock allows.
        assert!(keeps_sealed(&typed, &post("http://shop.test/comments", "text=hi")).is_ok());
    }

    #[test]
    fn a_secret_typed_into_one_form_leaves_only_through_it() {
        let typed = sealed(&[("hunter2-long", "http://shop.test/register")]);
        let refused = keeps_sealed(
            &typed,
            &post("http://shop.test/login", "password=hunter2-long"),
        )
        .expect_err("a form it was not typed into");
        assert!(
            refused.to_string().contains(
                "only to the address of the form it was typed into, http://shop.test/register."
            ),
            "{refused}"
        );
    }
}
