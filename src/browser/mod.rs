//! Headless Chromium over CDP (chromiumoxide): launching and always reaping the process, and
//! one isolated browser context per run ([`Tab`]), with the plan lock enforced inside it.

mod facts;
mod tab;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, EnableParams as FetchEnable, EventRequestPaused, FailRequestParams,
    RequestPattern, RequestStage,
};
use chromiumoxide::cdp::browser_protocol::network::{ErrorReason, ResourceType};
use chromiumoxide::cdp::browser_protocol::target::{
    CloseTargetParams, CreateBrowserContextParams, CreateTargetParams, GetTargetInfoParams,
    TargetId,
};
use chromiumoxide::handler::HandlerConfig;
use futures::StreamExt;
use std::io::BufRead;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use facts::{Candidate, Clicked, Extracted, Located, Navigated, PageError, Target};
pub use tab::Tab;

use crate::lock::{Lock, Refusal};
use tab::Refusals;

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

/// Quiet, container-friendly flags (no sandbox: tests and CI run as root).
/// `--block-new-web-contents` is not among them: headless Chromium (`--headless=new`, 156)
/// ignores it and popups load. The browser-wide popup guard ([`popup_guard`]) governs them.
const CHROMIUM_FLAGS: [&str; 22] = [
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
    "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication",
    "--disable-popup-blocking",
    "--no-first-run",
    "--no-default-browser-check",
    "--password-store=basic",
    "--use-mock-keychain",
    "--mute-audio",
    "--hide-scrollbars",
    "--window-size=1280,900",
    "--remote-debugging-port=0",
    "--remote-debugging-address=127.0.0.1",
];

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
    browser: Arc<chromiumoxide::Browser>,
    handler: JoinHandle<()>,
    /// The tabs' browser contexts, for the popup guard.
    guarded: Guarded,
    popup_guard: JoinHandle<()>,
    /// Flips to `Some(reason)` when the CDP connection ends.
    gone: watch::Receiver<Option<String>>,
    process: Option<Process>,
    stderr: Arc<Mutex<Vec<String>>>,
    profile: Option<tempfile::TempDir>,
    /// A fresh context + page made ahead for the next run, when [`Chromium::keep_warm`] is on.
    spare: Mutex<Option<JoinHandle<Result<FreshPage, BrowserError>>>>,
    warm: AtomicBool,
}

/// A new browser context with one blank page in it.
type FreshPage = (chromiumoxide::Page, BrowserContextId);

/// Creates a browser context and a blank page in it (renderer start-up included: ~150 ms).
async fn fresh_page(browser: &chromiumoxide::Browser) -> Result<FreshPage, BrowserError> {
    let context =
        timed(browser.create_browser_context(CreateBrowserContextParams::default())).await?;
    let params = CreateTargetParams::builder()
        .url("about:blank")
        .browser_context_id(context.clone())
        .build()
        .map_err(BrowserError::Cdp)?;
    let page = timed(browser.new_page(params)).await?;
    Ok((page, context))
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
        // No preloading: a speculation-rules prefetch is a document request made outside the
        // page, which neither the tab's nor the browser's interception is shown.
        let prefs = profile.path().join("Default");
        let written = std::fs::create_dir_all(&prefs).and_then(|()| {
            std::fs::write(
                prefs.join("Preferences"),
                r#"{"net":{"network_prediction_options":2}}"#,
            )
        });
        if let Err(e) = written {
            return Err(launch_err(
                format!("cannot write the profile's preferences: {e}"),
                String::new(),
            ));
        }
        let mut cmd = std::process::Command::new(&path);
        if !opts.headful {
            cmd.arg("--headless=new");
        }
        cmd.args(CHROMIUM_FLAGS)
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (process, devtools) = Process::spawn(cmd, stderr.clone())
            .map_err(|e| launch_err(e.to_string(), String::new()))?;
        let output = || stderr.lock().map(|l| l.join("\n")).unwrap_or_default();
        let ws = match tokio::time::timeout(LAUNCH_TIMEOUT, devtools).await {
            Ok(Ok(ws)) => ws,
            Ok(Err(_)) => {
                let status = process
                    .wait(Duration::from_secs(2))
                    .await
                    .unwrap_or_default();
                return Err(launch_err(
                    format!("it exited ({status}) before accepting connections"),
                    output(),
                ));
            }
            Err(_) => {
                process.kill();
                return Err(launch_err(
                    format!(
                        "it printed no DevTools address within {} s",
                        LAUNCH_TIMEOUT.as_secs()
                    ),
                    output(),
                ));
            }
        };
        let mut chromium = Self::attach(&ws).await.inspect_err(|_| process.kill())?;
        chromium.process = Some(process);
        chromium.stderr = stderr;
        chromium.profile = Some(profile);
        Ok(chromium)
    }

    async fn connect(url: &str) -> Result<Chromium, BrowserError> {
        Self::attach(url).await
    }

    async fn attach(ws: &str) -> Result<Chromium, BrowserError> {
        let config = HandlerConfig {
            // Certificate errors are errors: plans log into real sites.
            ignore_https_errors: false,
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
        let browser = Arc::new(browser);
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
        let guarded = Guarded::default();
        let popup_guard = match start_popup_guard(&browser, &guarded).await {
            Ok(task) => task,
            Err(e) => {
                handler.abort();
                return Err(BrowserError::Connect {
                    url: ws.to_string(),
                    message: format!("cannot guard popups: {e}"),
                });
            }
        };
        Ok(Chromium {
            browser,
            handler,
            guarded,
            popup_guard,
            gone,
            process: None,
            stderr: Arc::new(Mutex::new(Vec::new())),
            profile: None,
            spare: Mutex::new(None),
            warm: AtomicBool::new(false),
        })
    }

    /// Keeps one fresh context + page ready for the next run, so a run does not wait for
    /// context and renderer start-up. For services and multi-plan runs; each run still gets a
    /// context nobody used before.
    pub fn keep_warm(&self, on: bool) {
        self.warm.store(on, Ordering::Relaxed);
        if on {
            self.prepare_spare();
        }
    }

    fn prepare_spare(&self) {
        let Ok(mut spare) = self.spare.lock() else {
            return;
        };
        if spare.is_none() {
            let browser = self.browser.clone();
            *spare = Some(tokio::spawn(async move { fresh_page(&browser).await }));
        }
    }

    /// A new page in a new, isolated browser context, guarded by `lock`.
    pub async fn new_tab(&self, lock: Lock) -> Result<Tab, BrowserError> {
        self.check_alive()?;
        let spare = self.spare.lock().ok().and_then(|mut s| s.take());
        let ready = match spare {
            Some(handle) => handle.await.ok().and_then(Result::ok),
            None => None,
        };
        let (page, context) = match ready {
            Some(fresh) => fresh,
            None => fresh_page(&self.browser).await?,
        };
        if self.warm.load(Ordering::Relaxed) {
            self.prepare_spare();
        }
        let tab = Tab::new(page, context.clone(), lock, self.gone.clone()).await?;
        // Registered before the tab is handed out: its first navigation is judged by its lock.
        let (lock, refusals, calls) = tab.guard_handles();
        if let Ok(mut g) = self.guarded.lock() {
            g.insert(
                context,
                GuardedTab {
                    main_frame: tab.main_frame(),
                    lock,
                    refusals,
                    calls,
                },
            );
        }
        Ok(tab)
    }

    /// Disposes of a tab's browser context (cookies, storage, pages).
    pub async fn close_tab(&self, tab: Tab) {
        let context = tab.context_id();
        if let Ok(mut g) = self.guarded.lock() {
            g.remove(&context);
        }
        tab.close();
        // Disposing of the context closes its pages too: one command instead of two.
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

    /// The temporary profile directory of a launched browser (removed when this value drops).
    pub fn profile_dir(&self) -> Option<&Path> {
        self.profile.as_ref().map(tempfile::TempDir::path)
    }

    /// The operating-system process id, when this value launched the browser.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(|p| p.pid)
    }

    /// Closes the browser and reaps its process; the profile directory is removed.
    /// A remote browser (`--browser-ws`) is left running: only our contexts were closed.
    pub async fn close(mut self) {
        self.popup_guard.abort();
        let spare = self.spare.get_mut().ok().and_then(Option::take);
        if let Some(handle) = spare {
            handle.abort();
            // A remote browser outlives us: do not leave the spare context in it.
            if let Ok(Ok((_, context))) = handle.await {
                let _ = timed(self.browser.dispose_browser_context(context)).await;
            }
        }
        let Some(process) = self.process.take() else {
            self.handler.abort();
            return;
        };
        // The guard's tasks hold the browser too; once they are gone it is ours alone.
        let _ = (&mut self.popup_guard).await;
        let close = async {
            match Arc::get_mut(&mut self.browser) {
                Some(browser) => browser.close().await.map(|_| ()),
                None => self
                    .browser
                    .execute(chromiumoxide::cdp::browser_protocol::browser::CloseParams::default())
                    .await
                    .map(|_| ()),
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(3), close).await;
        if process.wait(Duration::from_secs(5)).await.is_none() {
            process.kill();
            let _ = process.wait(Duration::from_secs(5)).await;
        }
        self.handler.abort();
        // `profile` is removed when dropped, after the process that used it is gone.
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        // Every path ends here (errors, panics, cancellation): never leave a browser behind.
        if let Some(process) = self.process.as_ref() {
            process.kill();
        }
        self.popup_guard.abort();
        if let Some(spare) = self.spare.get_mut().ok().and_then(Option::take) {
            spare.abort();
        }
        self.handler.abort();
    }
}

/// One tab, as the popup guard sees it.
struct GuardedTab {
    /// The tab's own main frame.
    main_frame: String,
    lock: Arc<Lock>,
    refusals: Weak<Refusals>,
    /// The tab's CDP command count (its navigations' interception is counted there).
    calls: Arc<AtomicU64>,
}

/// The browser contexts of open tabs (one tab per context).
type Guarded = Arc<Mutex<HashMap<BrowserContextId, GuardedTab>>>;

/// Starts the browser-wide guard of navigations: every document request of every page is
/// paused here (popups included: they are new targets a page-level interception never sees,
/// and headless Chromium ignores `--block-new-web-contents`). A tab's own main-frame request
/// and the top-level document of any other page in its context (a popup) are judged by the
/// tab's lock: a refusal fails the request before it is sent and is recorded in the tab
/// (failing its step); a refused popup is closed. Subframes and pages that are not ours
/// continue unchanged.
async fn start_popup_guard(
    browser: &Arc<chromiumoxide::Browser>,
    guarded: &Guarded,
) -> Result<JoinHandle<()>, BrowserError> {
    // Subscribe before enabling interception, so no paused request is missed.
    let mut paused = timed(browser.event_listener::<EventRequestPaused>()).await?;
    let task = {
        let browser = browser.clone();
        let guarded = guarded.clone();
        tokio::spawn(async move {
            let mut decisions = tokio::task::JoinSet::new();
            while let Some(ev) = paused.next().await {
                // One at a time would stall every page behind one slow answer.
                decisions.spawn(popup_decision(browser.clone(), guarded.clone(), ev));
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
async fn popup_decision(
    browser: Arc<chromiumoxide::Browser>,
    guarded: Guarded,
    ev: Arc<EventRequestPaused>,
) {
    let frame = ev.frame_id.inner().clone();
    let id = ev.request_id.clone();
    let own_tab = guarded.lock().ok().and_then(|g| {
        g.values()
            .find(|t| t.main_frame == frame)
            .map(|t| (t.lock.clone(), t.refusals.clone(), t.calls.clone()))
    });
    // (refusal, the tab to record it in, whether to close the requesting page)
    let verdict = if let Some((lock, refusals, calls)) = own_tab {
        calls.fetch_add(1, Ordering::Relaxed);
        judge(&lock, &ev.request.url)
            .await
            .err()
            .map(|r| (r, Some(refusals), false))
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
                    guarded
                        .lock()
                        .ok()?
                        .get(ctx)
                        .map(|t| (t.lock.clone(), t.refusals.clone()))
                });
                match tab {
                    Some((lock, refusals)) if info.r#type == "page" => {
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
                Refusal {
                    url: ev.request.url.clone(),
                    reason: format!(
                        "[plan] {} was not loaded: the browser could not say which page asked for it ({e}).",
                        ev.request.url
                    ),
                },
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
        tracing::debug!("popup guard: {e}");
    }
}

/// One top-level destination against a lock (resolved addresses too, in server mode).
async fn judge(lock: &Lock, url: &str) -> Result<(), Refusal> {
    match url::Url::parse(url) {
        Ok(u) => lock.check_navigation(&u).await,
        Err(_) => Err(Refusal {
            url: url.to_string(),
            reason: format!("[plan] `{url}` is not a URL."),
        }),
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

/// The Chromium process. It is spawned by a dedicated thread that then waits for it, so the
/// thread lives exactly as long as the browser: Linux's parent-death signal (which follows the
/// spawning *thread*) then kills Chromium if planlock dies, even by SIGKILL.
struct Process {
    pid: u32,
    exited: watch::Receiver<Option<String>>,
}

impl Process {
    /// Spawns `cmd`; the future resolves to the DevTools WebSocket URL Chromium prints.
    fn spawn(
        mut cmd: std::process::Command,
        stderr_lines: Arc<Mutex<Vec<String>>>,
    ) -> std::io::Result<(Process, tokio::sync::oneshot::Receiver<String>)> {
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::process::CommandExt;
            // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
            unsafe {
                cmd.pre_exec(|| {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                    Ok(())
                });
            }
        }
        let (spawned_tx, spawned_rx) = std::sync::mpsc::channel();
        let (exited_tx, exited) = watch::channel(None);
        std::thread::Builder::new()
            .name("planlock-chromium".into())
            .spawn(move || match cmd.spawn() {
                Ok(mut child) => {
                    let stderr = child.stderr.take();
                    let _ = spawned_tx.send(Ok((child.id(), stderr)));
                    let status = match child.wait() {
                        Ok(s) => s.to_string(),
                        Err(e) => e.to_string(),
                    };
                    let _ = exited_tx.send(Some(status));
                }
                Err(e) => {
                    let _ = spawned_tx.send(Err(e));
                }
            })?;
        let (pid, stderr) = spawned_rx
            .recv()
            .map_err(|_| std::io::Error::other("the launcher thread died"))??;
        let (ws_tx, ws_rx) = tokio::sync::oneshot::channel();
        if let Some(stderr) = stderr {
            // Drain stderr for the browser's life (a full pipe would block it); keep the tail.
            std::thread::spawn(move || {
                let mut ws_tx = Some(ws_tx);
                for line in std::io::BufReader::new(stderr)
                    .lines()
                    .map_while(Result::ok)
                {
                    if let Some(ws) = line.strip_prefix("DevTools listening on ")
                        && let Some(tx) = ws_tx.take()
                    {
                        let _ = tx.send(ws.trim().to_string());
                        continue;
                    }
                    push_line(&stderr_lines, line);
                }
            });
        }
        Ok((Process { pid, exited }, ws_rx))
    }

    /// Kills the process unless it already exited (so a reused pid is never hit).
    fn kill(&self) {
        if self.exited.borrow().is_none() {
            // SAFETY: plain syscall on a pid this process spawned and has not yet reaped.
            unsafe {
                libc::kill(self.pid as libc::pid_t, libc::SIGKILL);
            }
        }
    }

    /// Waits up to `limit` for the process to exit; its exit status, or `None`.
    async fn wait(&self, limit: Duration) -> Option<String> {
        let mut exited = self.exited.clone();
        let exited = tokio::time::timeout(limit, exited.wait_for(Option::is_some))
            .await
            .ok()?
            .ok()?;
        exited.clone()
    }
}
