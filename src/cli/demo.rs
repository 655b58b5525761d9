//! `planlock demo`: the built-in shop and embedded inbox on loopback, both bundled plans.

use std::net::SocketAddr;
use std::sync::Arc;

use planlock::browser::{Chromium, LaunchOptions, Preference};
use planlock::demo::{
    DEMO_MAIL_DOMAIN, DemoSite, MAGIC_LINK_PLAN, SIGNUP_PLAN, SmtpMailer, run_demo,
};
use planlock::exit;
use planlock::inbox::Inbox;
use planlock::inbox::smtp::SmtpInbox;

use super::error::{self, CliError};

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
    /// Run no plan: keep the demo shop up as an app to test, and print the commands that
    /// replay the bundled plans against it with `planlock run`.
    #[arg(long)]
    pub serve: bool,
    /// With --serve: where the shop listens.
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "127.0.0.1:8025",
        requires = "serve"
    )]
    pub listen: SocketAddr,
    /// With --serve: the SMTP server the shop sends its mail to; `planlock run --inbox
    /// 'smtp://ADDR?domain=demo.planlock.test'` starts one there.
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "127.0.0.1:2525",
        requires = "serve"
    )]
    pub smtp: SocketAddr,
    /// With --serve: where to write the bundled plans for `planlock run`.
    #[arg(long = "plans-dir", value_name = "DIR", requires = "serve")]
    pub plans_dir: Option<std::path::PathBuf>,
}

/// `planlock demo --serve`: the shop alone, for replaying plans by hand or in CI. Its mail goes
/// to `--smtp`, where the `planlock run` that replays a plan listens with its embedded
/// inbox; the shop only connects when it sends, so the run may start after it.
async fn serve_shop(args: &DemoArgs) -> Result<u8, CliError> {
    let plans_dir = args
        .plans_dir
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("planlock-demo").join("plans"));
    let mut paths = Vec::new();
    for (name, text) in [("signup", SIGNUP_PLAN), ("magic-link", MAGIC_LINK_PLAN)] {
        let path = plans_dir.join(format!("{name}.json"));
        std::fs::create_dir_all(&plans_dir)
            .and_then(|()| std::fs::write(&path, text))
            .map_err(|e| {
                CliError::environment(format!(
                    "cannot write the demo plans into {}: {}",
                    plans_dir.display(),
                    super::io_sentence(&e)
                ))
            })?;
        paths.push(path);
    }
    let site = DemoSite::start_on(args.listen, Arc::new(SmtpMailer::new(args.smtp)))
        .await
        .map_err(|e| {
            CliError::environment(format!(
                "the demo shop cannot listen on {}: {}",
                args.listen,
                super::io_sentence(&e)
            ))
        })?;
    let base = site.url("");
    eprintln!(
        "demo shop on {base}/ · it sends its mail to {} (domain {DEMO_MAIL_DOMAIN}) · Ctrl-C stops it",
        args.smtp
    );
    let plans: Vec<String> = paths
        .iter()
        .map(|p| shell_word(&p.display().to_string()))
        .collect();
    // The commands go to stdout, so a script can take them; everything else to stderr.
    println!(
        "planlock run {} \\\n    --var base_url={base} --var 'password=correct horse battery staple' \\\n    \
         --inbox 'smtp://{}?domain={DEMO_MAIL_DOMAIN}' \\\n    --report report --junit report/junit.xml",
        plans.join(" "),
        args.smtp
    );
    let cancel = tokio_util::sync::CancellationToken::new();
    let _interrupt = super::Interrupt::listen(cancel.clone());
    cancel.cancelled().await;
    drop(site);
    Ok(exit::SUCCESS)
}

/// A path as one shell word.
fn shell_word(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:=@".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Runs `planlock demo`: everything on loopback, nothing to configure.
pub async fn demo_command(args: DemoArgs) -> Result<u8, CliError> {
    if args.serve {
        return serve_shop(&args).await;
    }
    let smtp = SmtpInbox::start(SocketAddr::from(([127, 0, 0, 1], 0)), DEMO_MAIL_DOMAIN)
        .await
        .map_err(|e| CliError::environment(e.to_string()))?;
    let site = DemoSite::start(Arc::new(SmtpMailer::new(smtp.local_addr())))
        .await
        .map_err(|e| {
            CliError::environment(format!(
                "cannot start the demo site: {}",
                super::io_sentence(&e)
            ))
        })?;
    eprintln!(
        "demo shop on {} · embedded SMTP inbox on {} (domain {DEMO_MAIL_DOMAIN})",
        site.url(""),
        smtp.local_addr()
    );
    let launch = LaunchOptions {
        executable: args.browser.clone(),
        connect_to: None,
        headful: args.headful,
        prefer: Preference::FullBrowser,
    };
    let browser = Chromium::start(&launch)
        .await
        .map_err(error::browser_error)?;
    let inbox: Arc<dyn Inbox> = smtp;
    let results = run_demo(&browser, &site, inbox, !args.json).await;
    browser.close().await;
    if args.json {
        let text = serde_json::to_string_pretty(&results).unwrap_or_default();
        println!("{text}");
    }
    Ok(super::exit_code(&results))
}
