//! Clickable means a person could click it, on real Chromium: over generated pages where an
//! overlay covers one of two controls that say the same (a patch over it, transparent or not;
//! a backdrop with the other control above it, marked as a dialog or not; a sticky bar; the
//! free one below the fold; a click-through layer over the free one), the uncovered control is
//! always chosen and the covered one is listed as covered. And on the fixture site: a
//! `<dialog>` opened with `showModal`, and an `inert` section.
//!
//! Failing cases found by proptest are saved in `proptest-regressions/` and replayed first.
//! `PROPTEST_CASES=200` looks longer.

use std::time::Duration;

use planlock::browser::{Blocker, PageError};
use planlock::error::ErrorKind;
use planlock::lock::Lock;
use planlock::runner::{RunSpec, RunStatus};
use proptest::prelude::*;

use crate::util::{self, need_browser};

/// What covers one of the two controls.
#[derive(Debug, Clone, Copy)]
enum Cover {
    /// A box laid over it (`opacity: 0` when `clear`: unseen, yet it takes the click).
    Patch { clear: bool },
    /// A backdrop over the whole page, the other control above it, inside an element marked
    /// as a modal dialog or not.
    Backdrop { marked: bool },
    /// A bar fixed at the top of the viewport, over the control under it.
    Bar,
    /// A box laid over it, the free control far below the fold (scrolled to when chosen).
    Fold,
}

fn cover() -> impl Strategy<Value = Cover> {
    prop_oneof![
        any::<bool>().prop_map(|clear| Cover::Patch { clear }),
        any::<bool>().prop_map(|marked| Cover::Backdrop { marked }),
        Just(Cover::Bar),
        Just(Cover::Fold),
    ]
}

#[derive(Debug, Clone)]
struct Case {
    text: &'static str,
    /// Both controls are links (to different places), else buttons.
    links: bool,
    /// The covered control comes first in the document.
    covered_first: bool,
    /// The covered control is in the left column.
    covered_left: bool,
    cover: Cover,
    /// A layer that lets clicks through (`pointer-events: none`) lies over the free control.
    see_through: bool,
    /// Where the two controls stand in their columns.
    rows: (u32, u32),
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop_oneof![
            Just("Continue"),
            Just("Email Me a Link"),
            Just("Sign Up"),
            Just("Verify")
        ],
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        cover(),
        any::<bool>(),
        (120..420u32, 120..420u32),
    )
        .prop_map(
            |(text, links, covered_first, covered_left, cover, see_through, rows)| Case {
                text,
                links,
                covered_first,
                covered_left,
                cover,
                see_through,
                rows,
            },
        )
}

/// The page of a case: `#covered` and `#free` say the same; only the free one can be clicked.
fn page(c: &Case) -> String {
    let (x_covered, x_free) = if c.covered_left { (40, 640) } else { (640, 40) };
    let y_covered = if matches!(c.cover, Cover::Bar) {
        10
    } else {
        c.rows.0
    };
    let y_free = if matches!(c.cover, Cover::Fold) {
        1600
    } else {
        c.rows.1
    };
    let control = |id: &str, x: u32, y: u32, z: u32| {
        let style = format!(
            "position:absolute;left:{x}px;top:{y}px;width:160px;height:40px;z-index:{z};display:block"
        );
        if c.links {
            format!(
                "<a id=\"{id}\" href=\"?to={id}\" style=\"{style}\">{}</a>",
                c.text
            )
        } else {
            format!(
                "<button id=\"{id}\" type=\"button\" onclick=\"document.title='{id}'\" style=\"{style}\">{}</button>",
                c.text
            )
        }
    };
    let on_top = matches!(c.cover, Cover::Backdrop { .. });
    let covered = control("covered", x_covered, y_covered, 1);
    let mut free = control("free", x_free, y_free, if on_top { 10 } else { 1 });
    if let Cover::Backdrop { marked: true } = c.cover {
        free =
            format!("<div role=\"dialog\" aria-modal=\"true\" aria-label=\"Dialog\">{free}</div>");
    }
    let layer = match c.cover {
        Cover::Patch { .. } | Cover::Fold => {
            let clear = matches!(c.cover, Cover::Patch { clear: true });
            format!(
                "<div style=\"position:absolute;left:{}px;top:{}px;width:200px;height:70px;z-index:5;background:#345;opacity:{}\"></div>",
                x_covered - 20,
                y_covered - 15,
                if clear { 0 } else { 1 }
            )
        }
        Cover::Backdrop { .. } => {
            "<div class=\"backdrop\" style=\"position:fixed;inset:0;z-index:5;background:rgba(0,0,0,.5)\"></div>".into()
        }
        Cover::Bar => "<div style=\"position:fixed;top:0;left:0;right:0;height:90px;z-index:5;background:#eee\"></div>".into(),
    };
    let through = if c.see_through {
        format!(
            "<div style=\"position:absolute;left:{}px;top:{}px;width:200px;height:70px;z-index:20;pointer-events:none;background:rgba(255,0,0,.2)\"></div>",
            x_free - 20,
            y_free - 15
        )
    } else {
        String::new()
    };
    let (first, second) = if c.covered_first {
        (covered, free)
    } else {
        (free, covered)
    };
    format!(
        "<!doctype html><html><head><meta charset=utf-8><title>case</title></head>\
         <body style=\"margin:0;height:2400px\"><main>{first}{second}{layer}{through}</main></body></html>"
    )
}

fn check(c: &Case) -> Result<(), TestCaseError> {
    let browser = util::browser().expect("a browser");
    let url = util::pages::pages().add(page(c));
    util::rt().block_on(async {
        let tab = browser
            .new_tab(Lock::of_hosts(["127.0.0.1"]).unwrap())
            .await
            .unwrap();
        let deadline = || tokio::time::Instant::now() + Duration::from_secs(5);
        let role = if c.links { "link" } else { "button" };
        let outcome = async {
            tab.navigate(&url, deadline())
                .await
                .map_err(|e| TestCaseError::fail(format!("navigate: {e:?}")))?;
            let describe = format!("the {} {role}", c.text);
            tab.click(&describe, Some(c.text), None, &[], deadline())
                .await
                .map_err(|e| TestCaseError::fail(format!("click: {e:?}")))
        }
        .await;
        browser.close_tab(tab).await;
        let clicked = outcome?;
        let element = clicked.located.element.clone().unwrap_or_default();
        prop_assert!(
            element.contains("#free>"),
            "clicked {element}: {:?}",
            clicked.located
        );
        let runner_up = clicked
            .located
            .runners_up
            .first()
            .cloned()
            .unwrap_or_default();
        prop_assert!(
            runner_up
                .element
                .as_deref()
                .is_some_and(|e| e.contains("#covered>"))
                && runner_up.covered == Some(true),
            "the covered one is listed as covered: {:?}",
            clicked.located
        );
        Ok(())
    })
}

proptest! {
    #![proptest_config(util::pages::config())]

    #[test]
    fn of_two_same_named_controls_the_uncovered_one_is_clicked(c in case()) {
        if util::browser().is_none() {
            return Ok(());
        }
        check(&c)?;
    }
}

/// A `<dialog>` opened with `showModal()` takes the page: its "Send invite" is pressed, not
/// the page's link of the same words, which waits out of reach while it is open.
#[test]
fn a_dialog_opened_with_show_modal_takes_the_page() {
    need_browser!();
    let plan = util::plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/dialog-modal.html"},
        {"type":"click","describe":"the Invite a teammate button","text":"Invite a teammate"},
        {"type":"fill","describe":"the Email field","label":"Email","value":"bob@x.test"},
        {"type":"click","describe":"the Send invite button","text":"Send invite"},
        {"type":"wait_for_text","text":"sent=dialog"},
        {"type":"done","summary":"invited"}]}"#,
    );
    let (result, _) = util::run_spec(RunSpec::new(plan).allow_host("127.0.0.1"));
    util::assert_succeeded(&result);
    let click = result.steps[3].detail.located.clone().unwrap();
    assert_eq!(click.behind_modal, Some(1), "{click:?}");
    assert_eq!(click.runners_up[0].covered, Some(true), "{click:?}");
    assert!(
        click.runners_up[0]
            .covered_by
            .as_deref()
            .is_some_and(|by| by.starts_with("<dialog#invite>")),
        "{click:?}"
    );
    // Closed (never opened), the page's own link is the one.
    let plan = util::plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/dialog-modal.html"},
        {"type":"click","describe":"the Send invite link","text":"Send invite"},
        {"type":"wait_for_text","text":"sent=page"},
        {"type":"done","summary":"invited"}]}"#,
    );
    let (result, _) = util::run_spec(RunSpec::new(plan).allow_host("127.0.0.1"));
    util::assert_succeeded(&result);
}

/// An `inert` control is no control a person can use: the step waits for it, then says why.
#[test]
fn an_inert_control_is_waited_for_and_named() {
    need_browser!();
    let plan = util::plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/dialog-modal.html"},
        {"type":"click","describe":"the Remove member button","text":"Remove member","timeout_seconds":1},
        {"type":"done","summary":"removed"}]}"#,
    );
    let (result, _) = util::run_spec(RunSpec::new(plan).allow_host("127.0.0.1"));
    assert_eq!(result.status, RunStatus::Failed);
    let error = result.error.unwrap();
    assert_eq!(error.kind, ErrorKind::NotActionable, "{}", error.message);
    assert!(
        error.message.contains("\"remove member\" is inert"),
        "{}",
        error.message
    );
    // The same, as the tab reports it.
    util::rt().block_on(async {
        let browser = util::browser().unwrap();
        let tab = browser
            .new_tab(Lock::of_hosts(["127.0.0.1"]).unwrap())
            .await
            .unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
        tab.navigate(&util::site().url("/dialog-modal.html"), deadline)
            .await
            .unwrap();
        let soon = tokio::time::Instant::now() + Duration::from_millis(500);
        let clicked = tab
            .click(
                "the Remove member button",
                Some("Remove member"),
                None,
                &[],
                soon,
            )
            .await;
        browser.close_tab(tab).await;
        assert!(
            matches!(
                clicked,
                Err(PageError::NotActionable {
                    blocker: Blocker::Inert,
                    ..
                })
            ),
            "{clicked:?}"
        );
    });
}
