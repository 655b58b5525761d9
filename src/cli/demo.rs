//! `planlock demo`: the built-in shop and embedded inbox on loopback, both bundled plans.

use std::net::SocketAddr;
use std::sync::Arc;

use planlock::browser::{Chromium, LaunchOptions};
use planlock::demo::{DEMO_MAIL_DOMAIN, DemoSite, SmtpMailer, run_demo};
use planlock::exit;
use planlock::inbox::Inbox;
use planlock::inbox::smtp::SmtpInbox;

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
    super::exit_code(&results)
}
