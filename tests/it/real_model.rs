//! The planner against a real OpenAI-compatible server: llama.cpp's `llama-server` serving
//! SmolLM2-135M-Instruct on loopback. Opt-in (`scripts/test --real-model` builds the server,
//! fetches the model and runs this), because the build takes minutes. It checks the plumbing
//! a stand-in cannot: the real server accepts the strict schema and enforces it while
//! generating (so the answer starts with `reasoning`), the output cap is sent and honoured,
//! the usage is read, the cut-off answer is one sentence with exit 2, and there is no second
//! call. The model is far too small to plan well, so the plan itself is not judged.

use crate::util;

use std::io::Read;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use planlock::exit;

const SERVER_VAR: &str = "PLANLOCK_LLAMA_SERVER";
const MODEL_VAR: &str = "PLANLOCK_LLAMA_MODEL";
/// The output cap the test sets: far too few tokens for a plan, so the answer is cut off.
const CAP: u32 = 24;

/// A running `llama-server`, killed (by PID) and reaped when dropped.
struct LlamaServer {
    child: Child,
    port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl LlamaServer {
    fn start(server: &str, model: &str) -> LlamaServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("llama-server.log");
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free loopback port")
            .port();
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        let out = std::fs::File::create(&log).expect("log file");
        let child = Command::new(server)
            .args(["--model", model, "--host", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .args(["--ctx-size", "4096", "--parallel", "1", "--threads"])
            .arg(threads.to_string())
            .stdin(Stdio::null())
            .stdout(out.try_clone().expect("log file"))
            .stderr(out)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {server}: {e}"));
        let mut s = LlamaServer {
            child,
            port,
            log,
            _dir: dir,
        };
        s.wait_until_healthy(Duration::from_secs(180));
        s
    }

    fn wait_until_healthy(&mut self, within: Duration) {
        let start = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "llama-server exited ({status}) before it was ready:\n{}",
                    self.log()
                );
            }
            if health_ok(self.port) {
                return;
            }
            assert!(
                start.elapsed() < within,
                "llama-server was not ready within {within:?}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Completions the server started: one line per task it took.
    fn tasks_started(&self) -> usize {
        self.log().matches("processing task").count()
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `GET /health` answers 200 (the model is loaded).
fn health_ok(port: u16) -> bool {
    use std::io::Write;
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    if s.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .is_err()
    {
        return false;
    }
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer.starts_with("HTTP/1.1 200")
}

fn required_env(var: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| {
        panic!("{var} is not set: run this test with scripts/test --real-model, which sets it")
    })
}

#[test]
#[ignore = "needs llama-server and a model: scripts/test --real-model"]
fn real_model_a_cut_off_answer_is_one_sentence_with_exit_2_after_one_call() {
    let server = LlamaServer::start(&required_env(SERVER_VAR), &required_env(MODEL_VAR));
    let cache = tempfile::tempdir().expect("temp dir");
    let plan_file = cache.path().join("plan.json");

    let started = Instant::now();
    let out = util::planlock()
        .args([
            "plan",
            "Sign up at http://127.0.0.1:9/signup with {{email}} and verify the email",
            "--blind",
            "--output",
        ])
        .arg(&plan_file)
        .env("PLANLOCK_MODEL", "openai:smollm2-135m")
        .env(
            "OPENAI_BASE_URL",
            format!("http://127.0.0.1:{}/v1", server.port),
        )
        .env_remove("OPENAI_API_KEY")
        .env("PLANLOCK_MAX_TOKENS", CAP.to_string())
        // Schema-constrained generation on 2 busy cores is slow; the cap, not this, ends it.
        .env("PLANLOCK_MODEL_TIMEOUT", "900")
        .env("PLANLOCK_CACHE_DIR", cache.path())
        .output()
        .expect("planlock runs");
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("planlock plan took {took:?}; it said:\n{stderr}");

    assert_eq!(
        out.status.code(),
        Some(i32::from(exit::INVALID_INPUT)),
        "{stderr}"
    );
    assert!(!plan_file.exists(), "no plan file is written");
    // The cap was sent and honoured: the server stopped at it and said so.
    let cut =
        format!("the answer was cut off at the output cap of {CAP} tokens (PLANLOCK_MAX_TOKENS)");
    assert!(stderr.contains(&cut), "{stderr}");
    // The usage was read from the real server's answer.
    let used = stderr
        .lines()
        .find_map(|l| l.strip_prefix("The answer used "))
        .unwrap_or_else(|| panic!("no usage line:\n{stderr}"));
    let input: u64 = used
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no input count in {used:?}"));
    assert!(input > 500, "the system prompt alone is longer: {used}");
    assert!(
        used.ends_with(&format!("input and {CAP} output tokens.")),
        "{used}"
    );
    // The strict schema was accepted and enforced while generating, in its own order: the
    // answer begins with the plan's reasoning (unconstrained, this model writes prose).
    let returned = stderr
        .split_once("The model returned:\n")
        .map(|(_, r)| r.trim_start())
        .unwrap_or_else(|| panic!("the answer is not shown:\n{stderr}"));
    let first_key = returned
        .strip_prefix('{')
        .map(str::trim_start)
        .unwrap_or_else(|| panic!("the answer is not a JSON object: {returned}"));
    assert!(first_key.starts_with("\"reasoning\""), "{returned}");
    // One request, no retry, no second call to repair the plan.
    assert_eq!(server.tasks_started(), 1, "{}", server.log());
}
