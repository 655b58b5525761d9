//! The Chromium process: finding the binary, its flags and profile, spawning it, reading its
//! DevTools address, and killing and reaping it on every path.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;

use super::BrowserError;

/// How long Chromium may take to print its DevTools address.
pub(super) const LAUNCH_TIMEOUT: Duration = Duration::from_secs(20);

/// Quiet, container-friendly flags (no sandbox: tests and CI run as root), and nothing a run
/// never looks at:
/// - no startup window: the first page is the first run's, in its own context;
/// - no WebUI omnibox popup: headless Chromium 156 otherwise preloads it into a renderer
///   process of its own for every browser context, a third of a run's browser CPU;
/// - no back/forward cache: a run never goes back, and every page it leaves would stay
///   alive in the cache (10–25% of a navigation's browser CPU here);
/// - WebRTC only through a proxy: in server mode a context's proxy is its egress, and UDP
///   would go around it;
/// - a renderer process limit of 2: with runs side by side, Chromium then starts fewer
///   processes per run (measured: ~20% more runs per second at 8–16 at once, ~10% less
///   browser CPU per run). The limit is soft: processes are never shared between browser
///   contexts, nor between sites that site isolation keeps apart, so every run still gets
///   renderers of its own.
///
/// `--block-new-web-contents` is not among them: headless Chromium (`--headless=new`, 156)
/// ignores it and popups load. The browser-wide navigation guard governs them.
const CHROMIUM_FLAGS: [&str; 26] = [
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
    "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--disable-back-forward-cache",
    "--renderer-process-limit=2",
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
    "--no-startup-window",
];

/// Distribution launch scripts and the binaries they start. Debian's `/usr/bin/chromium`
/// adds flags of its own (GPU rasterization, which headless Chromium does in software;
/// extension loading) and runs a shell and `findmnt` before every launch.
const WRAPPERS: [(&str, &str); 3] = [
    ("/usr/bin/chromium", "/usr/lib/chromium/chromium"),
    (
        "/usr/bin/chromium-browser",
        "/usr/lib/chromium-browser/chromium-browser",
    ),
    (
        "/usr/bin/chromium-headless-shell",
        "/usr/lib/chromium/chromium-headless-shell",
    ),
];

/// Chromium's headless shell, where Debian installs it (`chromium-headless-shell`).
const HEADLESS_SHELLS: [&str; 1] = ["/usr/bin/chromium-headless-shell"];

/// The full browser, where distributions and vendors install it.
const BROWSERS: [&str; 7] = [
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/snap/bin/chromium",
    "/opt/google/chrome/chrome",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
];

/// Which Chromium to look for when none is named (`--browser`, `$CHROME`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Preference {
    /// The full browser: it can show a window, and its profile switches network prediction
    /// (prefetch from a page's speculation rules) off. The command line's choice.
    #[default]
    FullBrowser,
    /// Chromium's headless shell when it is installed, else the full browser. The service's
    /// choice: a run costs the shell about half the CPU, and in server mode, where every
    /// connection goes through planlock's proxy, it makes no prefetch of another site either.
    HeadlessShell,
}

/// Finds a Chromium executable: the explicit path, `$CHROME`, then where it is usually
/// installed, in the order `prefer` gives. A known distribution launch script is replaced by
/// the binary it starts, so the browser runs with exactly planlock's flags.
pub fn find_executable(
    explicit: Option<&Path>,
    headful: bool,
    prefer: Preference,
) -> Result<PathBuf, BrowserError> {
    let path = match find_named(explicit) {
        Some(path) => path,
        None => {
            let prefer = if headful {
                Preference::FullBrowser
            } else {
                prefer
            };
            find_installed(prefer, |p| p.exists()).ok_or(BrowserError::NotFound)?
        }
    };
    let path = behind_wrapper(&path).unwrap_or(path);
    if headful && is_headless_shell(&path) {
        return Err(BrowserError::HeadlessShellHasNoWindow {
            path: path.display().to_string(),
        });
    }
    Ok(path)
}

fn find_named(explicit: Option<&Path>) -> Option<PathBuf> {
    explicit.map(Path::to_path_buf).or_else(|| {
        std::env::var_os("CHROME")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
    })
}

/// The first of the usual places, in the order `prefer` gives, where `installed` finds a file.
fn find_installed(prefer: Preference, installed: impl Fn(&Path) -> bool) -> Option<PathBuf> {
    let shells = match prefer {
        Preference::HeadlessShell => &HEADLESS_SHELLS[..],
        Preference::FullBrowser => &[],
    };
    shells
        .iter()
        .chain(&BROWSERS)
        .map(PathBuf::from)
        .find(|p| installed(p))
}

/// Whether `path` names Chromium's headless shell (Debian's or Chrome for Testing's).
pub fn is_headless_shell(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.contains("headless-shell") || n.contains("headless_shell"))
}

/// The binary a known launch script at `path` starts, when `path` is that script.
fn behind_wrapper(path: &Path) -> Option<PathBuf> {
    let (_, binary) = WRAPPERS
        .iter()
        .find(|(script, _)| path == Path::new(script))?;
    let mut head = [0u8; 2];
    let is_script = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| &head == b"#!");
    let binary = PathBuf::from(binary);
    (is_script && binary.is_file()).then_some(binary)
}

/// A launched Chromium: its process, the DevTools WebSocket URL it printed, the tail of its
/// output and its temporary profile (removed when dropped, after the process is gone).
pub(super) struct Launched {
    pub process: Process,
    pub ws: String,
    pub stderr: Arc<Mutex<Vec<String>>>,
    pub profile: tempfile::TempDir,
}

/// Starts Chromium at `path` in a fresh temporary profile and waits for its DevTools address.
pub(super) async fn launch(path: &Path, headful: bool) -> Result<Launched, BrowserError> {
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
    let mut cmd = std::process::Command::new(path);
    if !headful {
        cmd.arg("--headless=new");
    }
    cmd.args(CHROMIUM_FLAGS)
        .arg(format!("--user-data-dir={}", profile.path().display()))
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
    Ok(Launched {
        process,
        ws,
        stderr,
        profile,
    })
}

/// The last lines Chromium printed, for error messages.
pub(super) fn stderr_tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        String::new()
    } else {
        let tail = &lines[lines.len().saturating_sub(8)..];
        format!("\nbrowser output:\n  {}", tail.join("\n  "))
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

/// The Chromium process. It is spawned by a dedicated thread that then waits for it, so the
/// thread lives exactly as long as the browser: Linux's parent-death signal (which follows the
/// spawning *thread*) then kills Chromium if planlock dies, even by SIGKILL.
pub(super) struct Process {
    pub pid: u32,
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
    pub fn kill(&self) {
        if self.exited.borrow().is_none() {
            // SAFETY: plain syscall on a pid this process spawned and has not yet reaped.
            unsafe {
                libc::kill(self.pid as libc::pid_t, libc::SIGKILL);
            }
        }
    }

    /// Waits up to `limit` for the process to exit; its exit status, or `None`.
    pub async fn wait(&self, limit: Duration) -> Option<String> {
        let mut exited = self.exited.clone();
        let exited = tokio::time::timeout(limit, exited.wait_for(Option::is_some))
            .await
            .ok()?
            .ok()?;
        exited.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_headless_shell_is_known_by_its_name() {
        assert!(is_headless_shell(Path::new(
            "/usr/lib/chromium/chromium-headless-shell"
        )));
        assert!(is_headless_shell(Path::new(
            "/opt/chrome-headless-shell-linux64/chrome-headless-shell"
        )));
        assert!(!is_headless_shell(Path::new("/usr/lib/chromium/chromium")));
        assert!(!is_headless_shell(Path::new("/usr/bin/google-chrome")));
    }

    /// `path`, named by the user, is the browser launched, with or without a window.
    fn used_as_given(path: &Path, window: bool, prefer: Preference) {
        assert_eq!(
            find_executable(Some(path), window, prefer).unwrap(),
            path,
            "window: {window}"
        );
    }

    #[test]
    fn an_explicit_path_is_used_as_given() {
        let path = Path::new("/opt/chromium/chrome");
        used_as_given(path, false, Preference::HeadlessShell);
        used_as_given(path, true, Preference::HeadlessShell);
    }

    #[test]
    fn the_service_prefers_the_headless_shell_and_the_command_line_the_full_browser() {
        let both = |p: &Path| {
            p == Path::new("/usr/bin/chromium")
                || p == Path::new("/usr/bin/chromium-headless-shell")
        };
        let full_only = |p: &Path| p == Path::new("/usr/bin/chromium");
        let shell_only = |p: &Path| p == Path::new("/usr/bin/chromium-headless-shell");
        let found = |prefer, installed: &dyn Fn(&Path) -> bool| {
            find_installed(prefer, installed).map(|p| p.display().to_string())
        };
        use Preference::{FullBrowser, HeadlessShell};
        assert_eq!(
            found(HeadlessShell, &both).as_deref(),
            Some("/usr/bin/chromium-headless-shell")
        );
        assert_eq!(
            found(FullBrowser, &both).as_deref(),
            Some("/usr/bin/chromium")
        );
        assert_eq!(
            found(HeadlessShell, &full_only).as_deref(),
            Some("/usr/bin/chromium")
        );
        // The command line never picks the shell unless it is named.
        assert_eq!(found(FullBrowser, &shell_only), None);
        assert_eq!(
            found(HeadlessShell, &shell_only).as_deref(),
            Some("/usr/bin/chromium-headless-shell")
        );
    }

    #[test]
    fn a_window_is_not_asked_of_the_headless_shell() {
        let shell = Path::new("/usr/lib/chromium/chromium-headless-shell");
        used_as_given(shell, false, Preference::FullBrowser);
        let err = find_executable(Some(shell), true, Preference::HeadlessShell).unwrap_err();
        assert_eq!(
            err,
            BrowserError::HeadlessShellHasNoWindow {
                path: shell.display().to_string()
            }
        );
    }

    #[test]
    fn a_launch_script_is_replaced_by_the_binary_it_starts() {
        // Only where Debian's packages are installed (scripts/test installs both).
        for (script, binary) in WRAPPERS {
            if Path::new(script).is_file() && Path::new(binary).is_file() {
                assert_eq!(
                    behind_wrapper(Path::new(script)).unwrap(),
                    Path::new(binary)
                );
            }
        }
        assert_eq!(behind_wrapper(Path::new("/opt/chromium/chrome")), None);
    }
}
