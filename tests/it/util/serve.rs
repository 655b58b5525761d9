//! The real `planlock serve` binary as a test server: started on a free loopback port,
//! its stderr collected, killed (and reaped) on drop.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct ServeProcess {
    child: Child,
    /// The run store, unless the test gave `--store`.
    _store: Option<tempfile::TempDir>,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    lines: Arc<Mutex<Vec<String>>>,
}

impl ServeProcess {
    /// `planlock serve --listen 127.0.0.1:0 ARGS…` with `envs` added; waits for the line
    /// that says where it serves (at most 60 s).
    pub fn start(args: &[&str], envs: &[(&str, &str)]) -> ServeProcess {
        let mut cmd = super::planlock();
        cmd.arg("serve");
        if !args.contains(&"--listen") {
            cmd.args(["--listen", "127.0.0.1:0"]);
        }
        let store = (!args.contains(&"--store")).then(|| {
            let dir = tempfile::Builder::new()
                .prefix("planlock-serve-test-")
                .tempdir()
                .expect("a temp dir for the run store");
            cmd.arg("--store").arg(format!(
                "sqlite:{}",
                dir.path().join("runs.sqlite3").display()
            ));
            dir
        });
        cmd.args(args)
            .env_remove("PLANLOCK_TOKEN")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn planlock serve");
        let stderr = child.stderr.take().expect("stderr");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel::<Option<String>>();
        let collected = lines.clone();
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let serving = line.contains("serving on http://");
                // Collected before `start` returns, so `stderr()` always has the line.
                collected.lock().unwrap().push(line.clone());
                if let Some(t) = &tx
                    && serving
                {
                    let _ = t.send(Some(line));
                    tx = None;
                }
            }
            if let Some(t) = tx {
                let _ = t.send(None);
            }
        });
        let line = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(Some(line)) => line,
            other => {
                let _ = child.kill();
                let _ = child.wait();
                let said = lines.lock().unwrap().join("\n");
                panic!("planlock serve did not start ({other:?}): {said}");
            }
        };
        let base = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .expect("an address")
            .trim_end_matches([',', ')'])
            .to_string();
        ServeProcess {
            child,
            _store: store,
            base,
            lines,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// `127.0.0.1:PORT`
    pub fn authority(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    /// Everything the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL: the server dies without a chance to record anything.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, then waits (at most 30 s) for the exit status.
    pub fn terminate(&mut self) -> ExitStatus {
        // SAFETY: signalling a child this harness spawned and has not reaped.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "serve did not stop on SIGTERM: {}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The body of a run that holds its slot on the fixture site until cancelled, or until
/// `seconds` have passed (then it fails: its text never appears).
pub fn holding_run(seconds: u64) -> serde_json::Value {
    let site = super::site().url("");
    serde_json::json!({"plan": {"reasoning": "r", "steps": [
        {"type": "navigate", "url": format!("{site}/form.html")},
        {"type": "wait_for_text", "text": "this text never appears", "timeout_seconds": seconds},
        {"type": "done", "summary": "never reached"}]},
        "allowed_hosts": ["127.0.0.1"]})
}

/// `body` (a run on the fixture site) with its result POSTed to `hook`, a receiver on
/// loopback: the run's lock, which judges the webhook as it judges pages, names the
/// fixture site's port and the receiver's (another loopback port is another service).
pub fn hooked(mut body: serde_json::Value, hook: &str) -> serde_json::Value {
    let port = |url: &str| {
        url::Url::parse(url)
            .ok()
            .and_then(|u| u.port())
            .unwrap_or(80)
    };
    body["callback_url"] = serde_json::json!(hook);
    body["allowed_hosts"] = serde_json::json!([
        format!("127.0.0.1:{}", port(&super::site().url(""))),
        format!("127.0.0.1:{}", port(hook)),
    ]);
    body
}
