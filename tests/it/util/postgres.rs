//! A real PostgreSQL for tests: one server per test binary in a temp dir on a free loopback
//! port (`initdb`, `pg_ctl`), run as the `postgres` user when the tests run as root (the
//! server refuses root), a fresh database per test, stopped by its PID at exit.
//!
//! With `CI=true` a missing PostgreSQL is a failure, never a skip. `PG_BIN=/path/to/bin`
//! overrides where `initdb` and `pg_ctl` are looked for.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The role every test database belongs to (trust authentication on loopback).
pub const USER: &str = "planlock";

pub struct Postgres {
    dir: PathBuf,
    bin: PathBuf,
    port: u16,
    pid: u32,
    /// `runuser -u postgres --` when running as root.
    as_user: Option<String>,
}

static SERVER: OnceLock<Option<Postgres>> = OnceLock::new();

/// The binary's PostgreSQL, started on first use; `None` (and a note) when PostgreSQL is not
/// installed, outside CI.
pub fn server() -> Option<&'static Postgres> {
    SERVER
        .get_or_init(|| {
            let Some(bin) = find_bin() else {
                let why = "PostgreSQL is not installed (looked at $PG_BIN, \
                           /usr/lib/postgresql/*/bin and PATH); install the Debian package \
                           postgresql (scripts/test does)";
                if super::in_ci() {
                    panic!("CI=true, so this is a failure, not a skip: {why}");
                }
                eprintln!("skipping a test that needs PostgreSQL: {why}");
                return None;
            };
            let pg = Postgres::start(bin);
            // SAFETY: registering a plain `extern "C"` function with libc.
            unsafe {
                libc::atexit(stop_server);
            }
            Some(pg)
        })
        .as_ref()
}

/// A fresh, empty database on the shared server: `postgres://planlock@127.0.0.1:PORT/NAME`.
pub fn database() -> Option<String> {
    static N: AtomicUsize = AtomicUsize::new(0);
    let pg = server()?;
    let name = format!(
        "t{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    );
    pg.sql(&format!("CREATE DATABASE {name}"));
    Some(format!("postgres://{USER}@127.0.0.1:{}/{name}", pg.port))
}

extern "C" fn stop_server() {
    if let Some(Some(pg)) = SERVER.get() {
        pg.stop();
    }
}

fn find_bin() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PG_BIN") {
        let dir = PathBuf::from(dir);
        return dir.join("initdb").is_file().then_some(dir);
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|b| b.join("initdb").is_file())
        .collect();
    versions.sort();
    if let Some(newest) = versions.pop() {
        return Some(newest);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .find(|p| p.join("initdb").is_file() && p.join("pg_ctl").is_file())
    })
}

impl Postgres {
    fn start(bin: PathBuf) -> Postgres {
        let root = unsafe { libc::geteuid() } == 0;
        let as_user = root.then(|| "postgres".to_string());
        let dir = tempfile::Builder::new()
            .prefix("planlock-postgres-")
            .tempdir()
            .expect("a temp dir for PostgreSQL")
            .keep();
        if let Some(user) = &as_user {
            let status = Command::new("chown")
                .args(["-R", user])
                .arg(&dir)
                .status()
                .expect("chown");
            assert!(status.success(), "cannot give {} to {user}", dir.display());
        }
        let data = dir.join("data");
        let mut last_error = String::new();
        let init = Self::command(&as_user, &bin.join("initdb"))
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                USER,
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ])
            .stdin(Stdio::null())
            .output()
            .expect("run initdb");
        assert!(
            init.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&init.stderr)
        );
        // A free port can be taken between our probe and the server's bind; try a few.
        for _ in 0..5 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map(|a| a.port())
                .expect("a free port");
            let options = format!(
                "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off \
                 -c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
                dir.display()
            );
            let out = Self::command(&as_user, &bin.join("pg_ctl"))
                .arg("-D")
                .arg(&data)
                .args(["-o", &options, "-l"])
                .arg(dir.join("log"))
                .args(["-w", "-t", "60", "start"])
                .stdin(Stdio::null())
                .output()
                .expect("run pg_ctl");
            if out.status.success() {
                let pid = std::fs::read_to_string(data.join("postmaster.pid"))
                    .ok()
                    .and_then(|t| t.lines().next().and_then(|l| l.trim().parse().ok()))
                    .expect("postmaster.pid names the server");
                return Postgres {
                    dir,
                    bin,
                    port,
                    pid,
                    as_user,
                };
            }
            last_error = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stderr),
                std::fs::read_to_string(dir.join("log")).unwrap_or_default()
            );
        }
        panic!("PostgreSQL did not start: {last_error}");
    }

    fn command(as_user: &Option<String>, program: &Path) -> Command {
        match as_user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(program);
                c
            }
            None => Command::new(program),
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's process (its backends are below it).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The folder of this server's own tools (`psql`, `pg_dump`), of the server's version.
    pub fn bin(&self) -> &Path {
        &self.bin
    }

    /// Runs one statement as the test role, with `psql` from the same installation.
    pub fn sql(&self, statement: &str) {
        let psql = if self.bin.join("psql").is_file() {
            self.bin.join("psql")
        } else {
            PathBuf::from("psql")
        };
        let out = Command::new(psql)
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", USER])
            .args(["-d", "postgres", "-v", "ON_ERROR_STOP=1", "-c", statement])
            .stdin(Stdio::null())
            .output()
            .expect("run psql");
        assert!(
            out.status.success(),
            "{statement}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Runs one query in the database `url` names (one of [`database`]'s) and gives its rows,
    /// one a line, columns split by `|`.
    pub fn query(&self, url: &str, statement: &str) -> String {
        let psql = if self.bin.join("psql").is_file() {
            self.bin.join("psql")
        } else {
            PathBuf::from("psql")
        };
        let name = url.rsplit('/').next().expect("a database name");
        let out = Command::new(psql)
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", USER])
            .args(["-d", name, "-v", "ON_ERROR_STOP=1", "-At", "-c", statement])
            .stdin(Stdio::null())
            .output()
            .expect("run psql");
        assert!(
            out.status.success(),
            "{statement}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Stops the server by its PID (fast shutdown), then removes its files.
    fn stop(&self) {
        // SAFETY: a plain syscall on the server this harness started.
        unsafe {
            libc::kill(self.pid as libc::pid_t, libc::SIGINT);
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while Path::new(&format!("/proc/{}", self.pid)).exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
