//! `planlock demo`: a built-in shop (email-code signup, magic-link login) served on
//! 127.0.0.1, mailing through the embedded SMTP inbox, and bundled plans that use it.

mod site;

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

pub use site::{DemoSite, Mailer, SmtpMailer};

use crate::browser::Chromium;
use crate::inbox::Inbox;
use crate::plan::{self, Limits, Plan, Vars};
use crate::report::{EventLog, ProgressLog};
use crate::runner::{self, Listener, RunResult, RunSpec, event::Fanout};

/// The bundled plans, as shipped (also valid input for `planlock run --var base_url=...`).
pub const SIGNUP_PLAN: &str = include_str!("plans/signup.json");
pub const MAGIC_LINK_PLAN: &str = include_str!("plans/magic-link.json");

/// The mail domain of the demo's embedded inbox.
pub const DEMO_MAIL_DOMAIN: &str = "demo.planlock.test";

/// The bundled plans, parsed.
pub fn bundled_plans() -> Vec<(&'static str, Plan)> {
    let vars = Vars::from_pairs(["base_url=http://127.0.0.1", "password=x"]).expect("demo vars");
    [("signup", SIGNUP_PLAN), ("magic-link", MAGIC_LINK_PLAN)]
        .into_iter()
        .map(|(name, text)| {
            let plan = plan::parse_and_validate(text, &Limits::default(), &vars)
                .unwrap_or_else(|e| panic!("bundled demo plan {name} is invalid: {e}"));
            (name, plan)
        })
        .collect()
}

/// Runs both bundled plans against `site`; events go to stdout when `print_events`.
pub async fn run_demo(
    browser: &Chromium,
    site: &DemoSite,
    inbox: Arc<dyn Inbox>,
    print_events: bool,
) -> Vec<RunResult> {
    let mut results = Vec::new();
    for (name, plan) in bundled_plans() {
        let vars = Vars::from_pairs([
            format!("base_url={}", site.url("")),
            "password=correct horse battery staple".to_string(),
        ])
        .expect("demo vars");
        let run = RunSpec::new(plan)
            .named(format!("demo/{name}"))
            .vars(vars)
            .inbox(None, inbox.clone())
            .lock()
            .await
            .expect("the bundled plans lock to the demo site");
        let mut progress = ProgressLog::new(Some(name.to_string()));
        let mut log = EventLog::open("-").ok().filter(|_| print_events);
        let mut listeners: Vec<&mut dyn Listener> = vec![&mut progress];
        if let Some(l) = log.as_mut() {
            listeners.push(l);
        }
        let result = runner::run(
            browser,
            run,
            &mut Fanout(listeners),
            CancellationToken::new(),
        )
        .await;
        results.push(result);
    }
    results
}

#[cfg(test)]
mod tests {
    #[test]
    fn bundled_plans_are_valid() {
        assert_eq!(super::bundled_plans().len(), 2);
    }
}
