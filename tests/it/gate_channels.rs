//! The same forbidden request through every kind of target a page can make, on real Chromium:
//! the run's tab, a popup by script (with and without an opener), a `target=_blank` link and
//! form, a frame and a worker. For each rule (the lock, a typed secret, an emailed link's
//! undoing page) a generated case sends it through every channel at once, one run each; every
//! one is refused and counted, and the site's own log shows it never arrived.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use planlock::error::ErrorKind;
use planlock::inbox::smtp::SmtpInbox;
use planlock::plan::{self, Limits, Vars};
use planlock::runner::{self, RunResult, RunSpec, RunStatus, Secrets, Settings};
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, FileFailurePersistence};

use crate::util::recorded::Recorded;
use crate::util::{self};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Channel {
    Tab,
    PopupByScript,
    PopupWithoutOpener,
    BlankLink,
    BlankForm,
    Frame,
    Worker,
}

const CHANNELS: [Channel; 7] = [
    Channel::Tab,
    Channel::PopupByScript,
    Channel::PopupWithoutOpener,
    Channel::BlankLink,
    Channel::BlankForm,
    Channel::Frame,
    Channel::Worker,
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// A destination outside the lock (another site).
    Lock,
    /// The typed secret in a request of the site's own, outside any submission (the run then
    /// leaves the page, so that it does not end on a form it never sent).
    Secret,
    /// An undoing page of the site's own, from the page an emailed link opened.
    Hop,
}

#[derive(Debug, Clone, Copy)]
enum Encoding {
    Percent,
    Base64,
}

#[derive(Debug, Clone)]
struct Case {
    rule: Rule,
    secret: String,
    encoding: Encoding,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop_oneof![Just(Rule::Lock), Just(Rule::Secret), Just(Rule::Hop)],
        "[A-Za-z0-9]{10,18}",
        prop_oneof![Just(Encoding::Percent), Just(Encoding::Base64)],
    )
        .prop_map(|(rule, tail, encoding)| Case {
            rule,
            secret: format!("Gate-{tail}"),
            encoding,
        })
}

/// The worker every page may start: it requests whatever address it is sent.
const WORKER: &str = "onmessage = (e) => { fetch(e.data).catch(() => {}); };";

/// JavaScript that sends a request to the address `url` (a JS expression) through `channel`.
fn through(channel: Channel, url: &str) -> String {
    let abs = format!("new URL({url}, location.href).href");
    match channel {
        Channel::Tab => format!("location.href = {abs};"),
        Channel::PopupByScript => format!("window.open({abs});"),
        Channel::PopupWithoutOpener => format!("window.open({abs}, '_blank', 'noopener');"),
        Channel::BlankLink => format!(
            "const a = document.createElement('a'); a.href = {abs}; a.target = '_blank'; \
             a.textContent = 'more'; document.body.append(a); a.click();"
        ),
        Channel::BlankForm => format!(
            "const to = new URL({abs}); const f = document.createElement('form'); \
             f.method = 'get'; f.target = '_blank'; f.action = to.origin + to.pathname; \
             for (const [k, v] of to.searchParams) {{ const i = document.createElement('input'); \
             i.type = 'hidden'; i.name = k; i.value = v; f.append(i); }} \
             document.body.append(f); f.submit();"
        ),
        Channel::Frame => format!(
            "const i = document.createElement('iframe'); i.src = {abs}; document.body.append(i);"
        ),
        Channel::Worker => {
            format!("const w = new Worker('/worker.js'); w.postMessage({abs});")
        }
    }
}

/// Whether the rule's request through `channel` fails the run (a document the run's pages
/// load), or is only refused and counted (a frame of another site, a script's request).
fn fails_the_run(rule: Rule, channel: Channel) -> bool {
    match channel {
        Channel::Worker => false,
        Channel::Frame => rule != Rule::Lock,
        _ => true,
    }
}

/// What one channel's run did, and what the sites received.
struct Outcome {
    channel: Channel,
    result: RunResult,
    received: Vec<String>,
}

async fn one(
    case: &Case,
    channel: Channel,
    smtp: &Arc<SmtpInbox>,
    other: &Recorded,
) -> Result<Outcome, String> {
    let site = Recorded::start("127.0.0.1").await;
    site.page("/worker.js", WORKER);
    site.mail_through(smtp.local_addr());
    let encoded = match case.encoding {
        Encoding::Percent => "encodeURIComponent(pw.value)",
        Encoding::Base64 => "btoa(pw.value)",
    };
    // The forbidden request, what its log line holds, and the page that sends it.
    let (needle, page, steps) = match case.rule {
        Rule::Lock => {
            let away = other.url(&format!("/away/{channel:?}"));
            let send = through(channel, &format!("'{away}'"));
            (
                format!("/away/{channel:?}"),
                format!("<h1>Home</h1><script>{send}</script>"),
                r#"{"type":"navigate","url":"{SITE}/start"},
                {"type":"wait_seconds","seconds":1}"#,
            )
        }
        Rule::Secret => {
            let send = through(channel, &format!("'/ok?leak=' + {encoded}"));
            (
                "/ok?leak".to_string(),
                format!(
                    "<h1>Log in</h1><label for=\"pw\">Password</label> \
                     <input id=\"pw\" type=\"password\">\
                     <script>pw.addEventListener('change', () => {{ {send} }});</script>"
                ),
                r#"{"type":"navigate","url":"{SITE}/start"},
                {"type":"fill","describe":"the Password field","label":"Password","value":"{{secret.PW}}"},
                {"type":"wait_seconds","seconds":1},
                {"type":"navigate","url":"{SITE}/elsewhere"}"#,
            )
        }
        Rule::Hop => {
            let send = through(channel, "'/account/delete?confirm=1'");
            (
                "/account/delete".to_string(),
                format!("<h1>Email verified</h1><script>{send}</script>"),
                r#"{"type":"navigate","url":"{SITE}/signup?to={{inbox_address}}"},
                {"type":"wait_for_text","text":"Check your inbox"},
                {"type":"open_link_from_inbox","timeout_seconds":20},
                {"type":"wait_seconds","seconds":1}"#,
            )
        }
    };
    let path = match case.rule {
        Rule::Hop => "/confirm",
        _ => "/start",
    };
    site.page(
        path,
        format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"></head><body>{page}</body></html>"
        ),
    );
    let json =
        format!(r#"{{"reasoning":"","steps":[{steps},{{"type":"done","summary":"done"}}]}}"#)
            .replace("{SITE}", &site.url(""));
    let plan = plan::parse_and_validate(&json, &Limits::default(), &Vars::default())
        .map_err(|e| format!("the case's plan is invalid: {e}\n{json}"))?;
    let spec = RunSpec::new(plan)
        .run_id(runner::new_run_id())
        .secrets(
            Secrets::none().with_given(BTreeMap::from([("PW".to_string(), case.secret.clone())])),
        )
        .inbox(None, smtp.clone())
        .settings(Settings {
            step_timeout: Duration::from_secs(4),
            ..Settings::default()
        });
    let (result, _) = util::run_locked(spec).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let received = [site.hits_with(&needle), other.hits_with(&needle)]
        .concat()
        .into_iter()
        .chain(site.hits_with(&case.secret))
        .collect();
    Ok(Outcome {
        channel,
        result,
        received,
    })
}

fn check(case: &Case) -> Result<(), TestCaseError> {
    util::rt().block_on(async {
        let smtp = SmtpInbox::start(SocketAddr::from(([127, 0, 0, 1], 0)), "inbox.test")
            .await
            .map_err(|e| TestCaseError::fail(format!("the inbox: {e}")))?;
        let other = Recorded::start("127.0.0.2").await;
        // Sub-resources, a worker's requests among them, may go to any site: the lock judges
        // where the run's pages go, not what they load.
        let channels = CHANNELS
            .into_iter()
            .filter(|c| !(case.rule == Rule::Lock && *c == Channel::Worker));
        let runs = channels.map(|c| one(case, c, &smtp, &other));
        for outcome in futures::future::join_all(runs).await {
            let Outcome {
                channel,
                result,
                received,
            } = outcome.map_err(TestCaseError::fail)?;
            let dump = serde_json::to_string_pretty(&result).unwrap();
            prop_assert!(
                received.is_empty(),
                "{channel:?}: the forbidden request arrived: {received:?}\n{dump}"
            );
            prop_assert!(
                result.refused >= 1,
                "{channel:?}: nothing was counted as refused\n{dump}"
            );
            if fails_the_run(case.rule, channel) {
                prop_assert_eq!(result.status, RunStatus::Failed, "{:?}\n{}", channel, dump);
                let kind = result.error.as_ref().map(|e| e.kind);
                prop_assert_eq!(
                    kind,
                    Some(ErrorKind::LockRefused),
                    "{:?}\n{}",
                    channel,
                    dump
                );
            } else {
                prop_assert_eq!(
                    result.status,
                    RunStatus::Succeeded,
                    "{:?}\n{}",
                    channel,
                    dump
                );
            }
        }
        Ok(())
    })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(12),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_channel_of_every_target_is_judged_by_the_same_rules(c in case()) {
        if util::browser().is_none() {
            return Ok(());
        }
        check(&c)?;
    }
}
