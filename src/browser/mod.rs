//! Headless Chromium over CDP (chromiumoxide): one browser ([`Chromium`]) and one isolated
//! browser context per run ([`Tab`]), with the plan lock enforced inside it.

mod activity;
mod dialogs;
mod egress;
mod explain;
mod facts;
mod gate;
mod locate;
pub mod outline;
mod process;
mod refusals;
mod shot;
mod tab;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::target::{
    CreateBrowserContextParams, CreateTargetParams,
};
use chromiumoxide::handler::HandlerConfig;
use futures::StreamExt;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use explain::{Considered, Explained, RuleKept};
pub(crate) use facts::texts;
pub use facts::{
    Answers, Blocker, Candidate, Change, Clicked, Cover, Destined, Difference, Effect, EffectKind,
    Extracted, Filled, FormError, InvalidField, Located, Navigated, PageError, Rejection,
    StateChange, Target, Texts,
};
pub use gate::HopRule;
pub use locate::Accessible;
pub use outline::{Look, LookError, Outline};
pub use process::{Preference, find_executable, is_headless_shell};
pub use shot::{MASK_COLOUR, NoPicture};
pub use tab::{ANSWER_BOUND, CLICK_WINDOW, QUIET, SUBMISSION_ANSWER_BOUND, SUBMISSION_WINDOW, Tab};

use crate::lock::{AddressPolicy, Lock};
use egress::Egress;
use gate::{Gate, GuardedTab};
use process::{LAUNCH_TIMEOUT, Process, stderr_tail};

/// The longest any single CDP command may take before it counts as unanswered.
pub(crate) const CDP_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the browser could not be used. The sentences name no flag: each front end says how
/// its browser is chosen (`--browser PATH` or `$CHROME`, the service's configuration).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BrowserError {
    /// No executable was named and none is installed where Chromium usually is.
    #[error("no Chromium found: install it (Debian: `apt-get install chromium`)")]
    NotFound,
    /// A window was asked for, and the executable is the headless shell.
    #[error("cannot start {path}: it is Chromium's headless shell, which cannot show a window")]
    HeadlessShellHasNoWindow { path: String },
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

/// Where the browser comes from.
#[derive(Debug, Clone, Default)]
pub struct LaunchOptions {
    /// The Chromium to launch; else `$CHROME`, else the usual system paths.
    pub executable: Option<PathBuf>,
    /// Connect to a running browser (a remote pool) at this CDP URL instead of launching.
    pub connect_to: Option<String>,
    /// Show the window.
    pub headful: bool,
    /// Which Chromium to look for when `executable` and `$CHROME` name none.
    pub prefer: Preference,
}

/// A running browser: either a Chromium process this value owns (killed and reaped on every
/// path, its temporary profile removed), or a connection to a remote one.
pub struct Chromium {
    browser: Arc<chromiumoxide::Browser>,
    handler: JoinHandle<()>,
    /// The runs' tabs, for the gate every request passes.
    gate: Gate,
    navigation_guard: JoinHandle<()>,
    /// Flips to `Some(reason)` when the CDP connection ends.
    gone: watch::Receiver<Option<String>>,
    process: Option<Process>,
    /// The binary `process` runs.
    executable: Option<PathBuf>,
    stderr: Arc<Mutex<Vec<String>>>,
    profile: Option<tempfile::TempDir>,
    /// A fresh context + page made ahead for the next run, when [`Chromium::keep_warm`] is on:
    /// with an egress when the last run refused private addresses (as the next one will, in
    /// a service).
    spare: Mutex<Option<JoinHandle<Result<FreshPage, BrowserError>>>>,
    warm: AtomicBool,
    /// Contexts being made at once. Making one is work for the browser process alone, so more
    /// at a time only makes each slower: 32 runs starting together left each of its commands
    /// unanswered past the CDP deadline. Queued here, a run waits without a deadline running.
    making: Arc<tokio::sync::Semaphore>,
    /// Contexts of released tabs still being disposed of ([`Chromium::release_tab`]).
    disposing: Mutex<Vec<JoinHandle<()>>>,
}

/// How many browser contexts are made at once.
const CONTEXTS_MADE_AT_ONCE: usize = 2;

/// A new browser context with one blank page in it, and the context's egress when its
/// connections are judged by planlock.
struct FreshPage {
    page: chromiumoxide::Page,
    context: BrowserContextId,
    egress: Option<Egress>,
}

/// Creates a browser context and a blank page in it (renderer start-up included: ~150 ms);
/// with `egress`, every connection of the context goes through one.
async fn fresh_page(
    browser: &chromiumoxide::Browser,
    egress: bool,
) -> Result<FreshPage, BrowserError> {
    let egress = match egress {
        true => Some(Egress::start().await.map_err(|e| {
            BrowserError::Cdp(format!("cannot open the context's egress on loopback: {e}"))
        })?),
        false => None,
    };
    let mut params = CreateBrowserContextParams::default();
    if let Some(egress) = &egress {
        params.proxy_server = Some(egress.proxy_server());
        params.proxy_bypass_list = Some(Egress::proxy_bypass_list().to_string());
    }
    let context = timed(browser.create_browser_context(params)).await?;
    let params = CreateTargetParams::builder()
        .url("about:blank")
        .browser_context_id(context.clone())
        .build()
        .map_err(BrowserError::Cdp)?;
    let page = timed(browser.new_page(params)).await?;
    Ok(FreshPage {
        page,
        context,
        egress,
    })
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
        let path = find_executable(opts.executable.as_deref(), opts.headful, opts.prefer)?;
        let launched = process::launch(&path, opts.headful).await?;
        let process = launched.process;
        let mut chromium = Self::attach(&launched.ws)
            .await
            .inspect_err(|_| process.kill())?;
        chromium.process = Some(process);
        chromium.stderr = launched.stderr;
        chromium.profile = Some(launched.profile);
        chromium.executable = Some(path);
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
        let gate = Gate::default();
        let navigation_guard = match gate::start(&browser, &gate).await {
            Ok(task) => task,
            Err(e) => {
                handler.abort();
                return Err(BrowserError::Connect {
                    url: ws.to_string(),
                    message: format!("cannot guard navigations: {e}"),
                });
            }
        };
        Ok(Chromium {
            browser,
            handler,
            gate,
            navigation_guard,
            gone,
            process: None,
            executable: None,
            stderr: Arc::new(Mutex::new(Vec::new())),
            profile: None,
            spare: Mutex::new(None),
            warm: AtomicBool::new(false),
            making: Arc::new(tokio::sync::Semaphore::new(CONTEXTS_MADE_AT_ONCE)),
            disposing: Mutex::new(Vec::new()),
        })
    }

    /// Keeps one fresh context + page ready for the next run, so a run does not wait for
    /// context and renderer start-up. For services and multi-plan runs; each run still gets a
    /// context nobody used before.
    pub fn keep_warm(&self, on: bool) {
        self.warm.store(on, Ordering::Relaxed);
        if on {
            self.prepare_spare(false);
        }
    }

    fn prepare_spare(&self, egress: bool) {
        let Ok(mut spare) = self.spare.lock() else {
            return;
        };
        if spare.is_none() {
            let browser = self.browser.clone();
            let making = self.making.clone();
            *spare = Some(tokio::spawn(async move {
                let _turn = making.acquire().await;
                fresh_page(&browser, egress).await
            }));
        }
    }

    /// Whether a run under `lock` gets an egress: when it refuses private addresses and the
    /// browser runs here (a remote browser could not reach a proxy on this machine's loopback).
    fn egress_for(&self, lock: &Lock) -> bool {
        let wanted = lock.policy() == AddressPolicy::Service;
        if wanted && self.process.is_none() {
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| {
                tracing::warn!(
                    "a remote browser's sub-resources are not checked for private addresses: \
                     only top-level navigations are"
                );
            });
        }
        wanted && self.process.is_some()
    }

    /// A new page in a new, isolated browser context, guarded by `lock`.
    pub async fn new_tab(&self, lock: Lock) -> Result<Tab, BrowserError> {
        self.check_alive()?;
        let egress = self.egress_for(&lock);
        let spare = self.spare.lock().ok().and_then(|mut s| s.take());
        let ready = match spare {
            Some(handle) => handle.await.ok().and_then(Result::ok),
            None => None,
        };
        let fresh = match ready {
            Some(fresh) if fresh.egress.is_some() == egress => fresh,
            other => {
                if let Some(unfit) = other {
                    let browser = self.browser.clone();
                    tokio::spawn(async move {
                        let _ = timed(browser.dispose_browser_context(unfit.context)).await;
                    });
                }
                let _turn = self.making.acquire().await;
                fresh_page(&self.browser, egress).await?
            }
        };
        if self.warm.load(Ordering::Relaxed) {
            self.prepare_spare(egress);
        }
        let FreshPage {
            page,
            context,
            egress,
        } = fresh;
        let tab = Tab::new(page, context.clone(), lock, self.gone.clone()).await?;
        // Registered before the tab is handed out: its first navigation is judged by its lock.
        let handles = tab.guard_handles();
        if let Some(egress) = &egress {
            egress.admit(handles.lock.clone(), handles.refusals.clone());
        }
        self.gate.admit(
            context,
            GuardedTab {
                main_frame: tab.main_frame(),
                page: handles.page,
                lock: handles.lock,
                refusals: handles.refusals,
                sealed: handles.sealed,
                hops: handles.hops,
                submitting: handles.submitting,
                calls: handles.calls,
                activity: handles.activity,
                egress,
            },
        );
        Ok(tab)
    }

    /// Disposes of a tab's browser context (cookies, storage, pages).
    pub async fn close_tab(&self, tab: Tab) {
        let context = self.forget(tab);
        // Disposing of the context closes its pages too: one command instead of two.
        let _ = timed(self.browser.dispose_browser_context(context)).await;
    }

    /// Disposes of a tab's browser context without waiting for the browser's answer: a run
    /// that has its result reports it while the browser tears the page down. The tab is
    /// unguarded and its watchers stopped at once; a browser that closes meanwhile takes the
    /// context with it.
    pub fn release_tab(&self, tab: Tab) {
        let context = self.forget(tab);
        let browser = self.browser.clone();
        let disposal = tokio::spawn(async move {
            let _ = timed(browser.dispose_browser_context(context)).await;
        });
        if let Ok(mut disposing) = self.disposing.lock() {
            disposing.retain(|d| !d.is_finished());
            disposing.push(disposal);
        }
    }

    /// Stops guarding `tab` and its watchers; its context, to be disposed of.
    fn forget(&self, tab: Tab) -> BrowserContextId {
        let context = tab.context_id();
        self.gate.release(&context);
        tab.close();
        context
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

    /// The binary this value launched (`None` for a remote browser).
    pub fn executable(&self) -> Option<&Path> {
        self.executable.as_deref()
    }

    /// The operating-system process id, when this value launched the browser.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(|p| p.pid)
    }

    /// Closes the browser and reaps its process; the profile directory is removed.
    /// A remote browser (`--browser-ws`) is left running: only our contexts were closed.
    pub async fn close(mut self) {
        self.navigation_guard.abort();
        // A browser this value launched takes the released tabs' contexts with it; a remote
        // one outlives us, so their disposal is seen through. Either way the tasks let go of
        // the connection, which is then ours alone.
        let disposing = self
            .disposing
            .get_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        for disposal in disposing {
            if self.process.is_some() {
                disposal.abort();
            }
            let _ = disposal.await;
        }
        let spare = self.spare.get_mut().ok().and_then(Option::take);
        if let Some(handle) = spare {
            handle.abort();
            // A remote browser outlives us: do not leave the spare context in it.
            if let Ok(Ok(fresh)) = handle.await {
                let _ = timed(self.browser.dispose_browser_context(fresh.context)).await;
            }
        }
        let Some(process) = self.process.take() else {
            self.handler.abort();
            return;
        };
        // The guard's tasks hold the browser too; once they are gone it is ours alone.
        let _ = (&mut self.navigation_guard).await;
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
        self.navigation_guard.abort();
        if let Some(spare) = self.spare.get_mut().ok().and_then(Option::take) {
            spare.abort();
        }
        for disposal in self
            .disposing
            .get_mut()
            .map(std::mem::take)
            .unwrap_or_default()
        {
            disposal.abort();
        }
        self.handler.abort();
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

/// A page script's parts (paths under `src/browser/`, text), checked by its join test:
/// every file of `src/browser/{folder}/` is a listed part, once (parts of other folders may
/// be listed too), and each part has at most 400 lines and ends its last line.
#[cfg(test)]
fn assert_script_parts<'a>(folder: &str, parts: impl IntoIterator<Item = (String, &'a str)>) {
    let parts: Vec<(String, &str)> = parts.into_iter().collect();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/browser")
        .join(folder);
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| format!("{folder}/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = parts
        .iter()
        .map(|(name, _)| name.clone())
        .filter(|name| name.starts_with(&format!("{folder}/")))
        .collect();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "every file of src/browser/{folder}/ is a listed part, once"
    );
    for (name, text) in &parts {
        let lines = text.lines().count();
        assert!(lines <= 400, "{name} has {lines} lines (at most 400)");
        assert!(text.ends_with('\n'), "{name} ends its last line");
    }
}
