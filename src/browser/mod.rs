//! Headless Chromium over CDP (chromiumoxide): launching and always reaping the process, and
//! one isolated browser context per run ([`Tab`]), with the plan lock enforced inside it.

mod tab;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::target::{
    CreateBrowserContextParams, CreateTargetParams,
};
use chromiumoxide::handler::HandlerConfig;
use futures::StreamExt;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use tab::{Clicked, Filled, Tab};

use crate::lock::Lock;

/// How long Chromium may take to print its DevTools address.
const LAUNCH_TIMEOUT: Duration = Duration::from_secs(20);
/// The longest any single CDP command may take before it counts as unanswered.
pub(crate) const CDP_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the browser could not be used.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    #[error(
        "no Chromium found: install it (Debian: `apt-get install chromium`), or pass \
         --browser PATH, or set $CHROME"
    )]
    NotFound,
    #[error("cannot start {path}: {message}{}", stderr_tail(.stderr))]
    Launch {
        path: String,
        message: String,
        stderr: String,
    },
    #[error("cannot connect to the browser at {url}: {message}")]
    Connect { url: String, message: String },
    #[error("the browser went away: {0}")]
    Gone(String),
    #[error("browser command failed: {0}")]
    Cdp(String),
}

fn stderr_tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        String::new()
    } else {
        let tail = &lines[lines.len().saturating_sub(8)..];
        format!("\nbrowser output:\n  {}", tail.join("\n  "))
    }
}

/// Where the browser comes from.
#[derive(Debug, Clone, Default)]
pub struct LaunchOptions {
    /// `--browser PATH`; else `$CHROME`, else the usual system paths.
    pub executable: Option<PathBuf>,
    /// `--browser-ws URL`: connect to a running browser (a remote pool) instead of launching.
    pub connect_to: Option<String>,
    /// `--headful`: show the window.
    pub headful: bool,
}

/// Finds a Chromium executable: the explicit path, `$CHROME`, then the usual places.
pub fn find_executable(explicit: Option<&Path>) -> Result<PathBuf, BrowserError> {
    if let Some(p) = explicit {
        return Ok(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os("CHROME").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    const CANDIDATES: [&str; 7] = [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
        "/usr/bin/google-chrome-stable",
        "/snap/bin/chromium",
        "/opt/google/chrome/chrome",
        "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    ];
    CANDIDATES
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .ok_or(BrowserError::NotFound)
}

/// A running browser: either a Chromium process this value owns (killed and reaped on every
/// path, its temporary profile removed), or a connection to a remote one.
pub struct Chromium {
    browser: chromiumoxide::Browser,
    handler: JoinHandle<()>,
    /// Flips to `Some(reason)` when the CDP connection ends.
    gone: watch::Receiver<Option<String>>,
    process: Option<Child>,
    stderr: Arc<Mutex<Vec<String>>>,
    profile: Option<tempfile::TempDir>,
}

impl Chromium {
    /// Launches a fresh headless Chromium, or connects to `connect_to`.
    pub async fn start(opts: &LaunchOptions) -> Result<Chromium, BrowserError> {
        match &opts.connect_to {
            Some(url) => Self::connect(url).await,
            None => Self::launch(opts).await,
        }
    }

    async fn launch(opts: &LaunchOptions) -> Result<Chromium, BrowserError> {
        let path = find_executable(opts.executable.as_deref())?;
        let launch_err = |message: String, stderr: String| BrowserError::Launch {
            path: path.display().to_string(),
            message,
            stderr,
        };
        let profile = tempfile::Builder::new()
            .prefix("planlock-chromium-")
            .tempdir()
            .map_err(|e| {
                launch_err(
                    format!("cannot create a profile directory: {e}"),
                    String::new(),
                )
            })?;
        let mut cmd = Command::new(&path);
        if !opts.headful {
            cmd.arg("--headless=new");
        }
        cmd.args([
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
            "--disable-extensions",
            "--disable-default-apps",
            "--disable-breakpad",
            "--disable-client-side-phishing-detection",
            "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,PasswordManagerOnboarding",
            "--disable-popup-blocking",
            "--block-new-web-contents",
            "--no-first-run",
            "--no-default-browser-check",
            "--password-store=basic",
            "--use-mock-keychain",
            "--mute-audio",
            "--hide-scrollbars",
            "--window-size=1280,900",
            "--remote-debugging-port=0",
            "--remote-debugging-address=127.0.0.1",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
        #[cfg(target_os = "linux")]
        // SAFETY: prctl is async-signal-safe; it only asks the kernel to SIGKILL Chromium when
        // this process dies, so not even a SIGKILL of planlock leaves an orphan browser.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| launch_err(e.to_string(), String::new()))?;
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut lines = BufReader::new(child.stderr.take().expect("stderr is piped")).lines();
        let ws = {
            let stderr = stderr.clone();
            let find = async {
                while let Ok(Some(line)) = lines.next_line().await {
                    if let Some(ws) = line.strip_prefix("DevTools listening on ") {
                        return Some(ws.trim().to_string());
                    }
                    push_line(&stderr, line);
                }
                None
            };
            tokio::time::timeout(LAUNCH_TIMEOUT, find).await
        };
        let output = || stderr.lock().map(|l| l.join("\n")).unwrap_or_default();
        let ws = match ws {
            Ok(Some(ws)) => ws,
            Ok(None) => {
                let status = child
                    .wait()
                    .await
                    .map(|s| s.to_string())
                    .unwrap_or_default();
                return Err(launch_err(
                    format!("it exited ({status}) before accepting connections"),
                    output(),
                ));
            }
            Err(_) => {
                let _ = child.kill().await;
                return Err(launch_err(
                    format!(
                        "it printed no DevTools address within {} s",
                        LAUNCH_TIMEOUT.as_secs()
                    ),
                    output(),
                ));
            }
        };
        // Keep draining stderr, or Chromium blocks once the pipe fills; keep the tail for errors.
        {
            let stderr = stderr.clone();
            tokio::spawn(async move {
                while let Ok(Some(line)) = lines.next_line().await {
                    push_line(&stderr, line);
                }
            });
        }
        let mut chromium = Self::attach(&ws).await.inspect_err(|_| {
            let _ = child.start_kill();
        })?;
        chromium.process = Some(child);
        chromium.stderr = stderr;
        chromium.profile = Some(profile);
        Ok(chromium)
    }

    async fn connect(url: &str) -> Result<Chromium, BrowserError> {
        Self::attach(url).await
    }

    async fn attach(ws: &str) -> Result<Chromium, BrowserError> {
        let config = HandlerConfig {
            viewport: None,
            request_timeout: CDP_TIMEOUT * 3,
            ..HandlerConfig::default()
        };
        let connect = chromiumoxide::Browser::connect_with_config(ws.to_string(), config);
        let (browser, mut handler) = tokio::time::timeout(LAUNCH_TIMEOUT, connect)
            .await
            .map_err(|_| BrowserError::Connect {
                url: ws.to_string(),
                message: "no answer".into(),
            })?
            .map_err(|e| BrowserError::Connect {
                url: ws.to_string(),
                message: e.to_string(),
            })?;
        let (gone_tx, gone) = watch::channel(None);
        // The handler drives the whole CDP connection: poll it for the browser's life.
        let handler = tokio::spawn(async move {
            let mut reason = "the connection closed".to_string();
            while let Some(event) = handler.next().await {
                if let Err(e) = event {
                    let text = e.to_string();
                    // Events newer than the crate knows are reported as errors; they are harmless.
                    if is_fatal_handler_error(&text) {
                        reason = text;
                        break;
                    }
                    tracing::debug!("cdp: {text}");
                }
            }
            let _ = gone_tx.send(Some(reason));
        });
        Ok(Chromium {
            browser,
            handler,
            gone,
            process: None,
            stderr: Arc::new(Mutex::new(Vec::new())),
            profile: None,
        })
    }

    /// A new page in a new, isolated browser context, guarded by `lock`.
    pub async fn new_tab(&self, lock: Lock) -> Result<Tab, BrowserError> {
        self.check_alive()?;
        let context = timed(
            self.browser
                .create_browser_context(CreateBrowserContextParams::default()),
        )
        .await?;
        let params = CreateTargetParams::builder()
            .url("about:blank")
            .browser_context_id(context.clone())
            .build()
            .map_err(BrowserError::Cdp)?;
        let page = timed(self.browser.new_page(params)).await?;
        Tab::new(page, context, lock, self.gone.clone()).await
    }

    /// Disposes of a tab's browser context (cookies, storage, pages).
    pub async fn close_tab(&self, tab: Tab) {
        let context = tab.context_id();
        tab.close().await;
        let _ = timed(self.browser.dispose_browser_context(context)).await;
    }

    /// `Err` with the reason once the browser is gone.
    pub fn check_alive(&self) -> Result<(), BrowserError> {
        match self.gone.borrow().clone() {
            Some(reason) => Err(BrowserError::Gone(self.explain_gone(&reason))),
            None => Ok(()),
        }
    }

    fn explain_gone(&self, reason: &str) -> String {
        let tail = self.stderr.lock().map(|l| l.join("\n")).unwrap_or_default();
        format!("{reason}{}", stderr_tail(&tail))
    }

    /// The operating-system process id, when this value launched the browser.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().and_then(Child::id)
    }

    /// Closes the browser and reaps its process; the profile directory is removed.
    pub async fn close(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(3), self.browser.close()).await;
        if let Some(mut child) = self.process.take() {
            match tokio::time::timeout(Duration::from_secs(5), child.wait()).await {
                Ok(_) => {}
                Err(_) => {
                    let _ = child.kill().await;
                }
            }
        }
        self.handler.abort();
        // `profile` is removed when dropped, after the process that used it is gone.
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        // Every path ends here (errors, panics, cancellation): never leave a browser behind.
        if let Some(child) = self.process.as_mut() {
            let _ = child.start_kill();
            let _ = child.try_wait();
        }
        self.handler.abort();
    }
}

fn push_line(buf: &Mutex<Vec<String>>, line: String) {
    if let Ok(mut lines) = buf.lock() {
        if lines.len() >= 200 {
            lines.remove(0);
        }
        lines.push(line);
    }
}

fn is_fatal_handler_error(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    t.contains("connection closed")
        || t.contains("connection reset")
        || t.contains("broken pipe")
        || t.contains("already closed")
        || t.contains("io error")
}

/// Runs a CDP future with the standard deadline; every CDP call goes through here.
pub(crate) async fn timed<T, E: std::fmt::Display>(
    fut: impl std::future::Future<Output = Result<T, E>>,
) -> Result<T, BrowserError> {
    match tokio::time::timeout(CDP_TIMEOUT, fut).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(BrowserError::Cdp(e.to_string())),
        Err(_) => Err(BrowserError::Cdp(format!(
            "no answer within {} s",
            CDP_TIMEOUT.as_secs()
        ))),
    }
}
