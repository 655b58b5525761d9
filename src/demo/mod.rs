//! `planlock demo`: a built-in shop (email-code signup, magic-link login) served on
//! 127.0.0.1, mailing through the embedded SMTP inbox, and bundled plans that use it.

mod site;

use std::net::SocketAddr;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

pub use site::{DemoSite, Mailer, SmtpMailer};

use crate::browser::{Chromium, LaunchOptions};
use crate::exit;
use crate::inbox::Inbox;
use crate::inbox::smtp::SmtpInbox;
use crate::lock::Lock;
use crate::plan::{self, Limits, Plan, Vars};
use crate::report::{EventLog, Progress};
use crate::runner::{self, Listener, RunRequest, RunResult, Settings, event::Fanout};

/// The bundled plans, as shipped (also valid input for `planlock run --var base_url=...`).
pub const SIGNUP_PLAN: &str = include_str!("plans/signup.json");
pub const MAGIC_LINK_PLAN: &str = include_str!("plans/magic-link.json");

/// The mail domain of the demo's embedded inbox.
pub const DEMO_MAIL_DOMAIN: &str = "demo.planlock.test";

/// Options of `planlock demo`.
#[derive(Debug, Clone, clap::Args)]
pub struct DemoArgs {
    /// Chromium to launch (else $CHROME, else the usual system paths).
    #[arg(long, value_name = "PATH")]
    pub browser: Option<std::path::PathBuf>,
    /// Show the browser window.
    #[arg(long)]
    pub headful: bool,
    /// Print the results as JSON on stdout instead of the event log.
    #[arg(long)]
    pub json: bool,
}

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

/// Runs `planlock demo`: everything on loopback, nothing to configure.
pub async fn demo_command(args: DemoArgs) -> u8 {
    let smtp = match SmtpInbox::start(SocketAddr::from(([127, 0, 0, 1], 0)), DEMO_MAIL_DOMAIN).await
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("planlock: {e}");
            return exit::ENVIRONMENT;
        }
    };
    let site = match DemoSite::start(Arc::new(SmtpMailer::new(smtp.local_addr()))).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("planlock: cannot start the demo site: {e}");
            return exit::ENVIRONMENT;
        }
    };
    eprintln!(
        "demo shop on {} · embedded SMTP inbox on {} (domain {DEMO_MAIL_DOMAIN})",
        site.url(""),
        smtp.local_addr()
    );
    let launch = LaunchOptions {
        executable: args.browser.clone(),
        connect_to: None,
        headful: args.headful,
    };
    let browser = match Chromium::start(&launch).await {
        Ok(b) => b,
        Err(e) => {
            eprintln!("planlock: {e}");
            return exit::ENVIRONMENT;
        }
    };
    let inbox: Arc<dyn Inbox> = smtp;
    let results = run_demo(&browser, &site, inbox, !args.json).await;
    browser.close().await;
    if args.json {
        let text = serde_json::to_string_pretty(&results).unwrap_or_default();
        println!("{text}");
    }
    crate::cli::exit_code(&results)
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
        let req = RunRequest {
            plan: &plan,
            plan_name: Some(format!("demo/{name}")),
            run_id: runner::new_run_id(),
            lock: Lock::of_hosts(["127.0.0.1"]).expect("loopback is a host"),
            vars,
            inboxes: vec![(None, inbox.clone())],
            settings: Settings::default(),
        };
        let mut progress = Progress::new(Some(name.to_string()));
        let mut log = EventLog::open("-").ok().filter(|_| print_events);
        let mut listeners: Vec<&mut dyn Listener> = vec![&mut progress];
        if let Some(l) = log.as_mut() {
            listeners.push(l);
        }
        let result = runner::run(
            browser,
            req,
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
