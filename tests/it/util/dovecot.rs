//! A real Dovecot IMAP server for tests: its own config, Maildir, port and log under a temp
//! dir, so several can run in parallel. Stopped (and killed if need be) on drop.
//!
//! ```ignore
//! mod support;
//! let Some(dovecot) = support::dovecot::Dovecot::start() else { return }; // skipped, not CI
//! let url = dovecot.url("address=bob@demo.test&plus=true");
//! dovecot.append(b"To: bob+run1@demo.test\r\nSubject: hi\r\n\r\nbody\r\n").await;
//! dovecot.restart();
//! ```
//!
//! With `CI=true` a missing Dovecot is a failure, never a skip. `DOVECOT=/path/to/dovecot`
//! overrides where the binary is looked for.
#![allow(dead_code)]

use std::fs;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The one mail user of every harness.
pub const USER: &str = "bob";
pub const PASSWORD: &str = "secret";

pub struct Dovecot {
    dir: tempfile::TempDir,
    binary: PathBuf,
    conf: PathBuf,
    port: u16,
}

impl Dovecot {
    /// Starts a fresh Dovecot on a free loopback port. Returns `None` (after saying why on
    /// stderr) when Dovecot is not installed, unless `CI=true`, where that panics.
    pub fn start() -> Option<Dovecot> {
        let Some(binary) = find_binary() else {
            let why = "Dovecot is not installed (looked at $DOVECOT, /usr/sbin/dovecot and PATH); \
                       install the Debian package dovecot-imapd (scripts/test does)";
            if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
                panic!("CI=true, so this is a failure, not a skip: {why}");
            }
            eprintln!("skipping a test that needs a real IMAP server: {why}");
            return None;
        };
        let version = version_of(&binary);
        let mut last_error = String::new();
        // A free port can be taken between our probe and Dovecot's bind; try a few.
        for _ in 0..5 {
            let dir = tempfile::Builder::new()
                .prefix("planlock-dovecot-")
                .tempdir()
                .expect("create a temp dir for Dovecot");
            let port = free_port();
            let dovecot = Dovecot {
                conf: dir.path().join("dovecot.conf"),
                dir,
                binary: binary.clone(),
                port,
            };
            dovecot.write_config(&version);
            match dovecot.launch() {
                Ok(()) => {
                    dovecot.watch_for_exit();
                    return Some(dovecot);
                }
                Err(e) => last_error = e,
            }
        }
        panic!("Dovecot {version} did not start: {last_error}");
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// `imap://bob:secret@127.0.0.1:PORT/INBOX?QUERY` (`query` without the `?`).
    pub fn url(&self, query: &str) -> String {
        self.url_with(USER, PASSWORD, query)
    }

    pub fn url_with(&self, user: &str, password: &str, query: &str) -> String {
        let mut url = format!("imap://{user}:{password}@127.0.0.1:{}/INBOX", self.port);
        if !query.is_empty() {
            url.push('?');
            url.push_str(query);
        }
        url
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Dovecot's log so far, for assertion messages.
    pub fn log(&self) -> String {
        fs::read_to_string(self.dir.path().join("dovecot.log")).unwrap_or_default()
    }

    /// Appends a message to INBOX over IMAP, as another client would.
    pub async fn append(&self, raw: &[u8]) {
        self.append_to("INBOX", raw).await
    }

    pub async fn append_to(&self, mailbox: &str, raw: &[u8]) {
        let result = tokio::time::timeout(Duration::from_secs(10), async {
            let tcp = tokio::net::TcpStream::connect(self.addr()).await?;
            let mut client = async_imap::Client::new(tcp);
            client.read_response().await?;
            let mut session = client.login(USER, PASSWORD).await.map_err(|(e, _)| e)?;
            session.append(mailbox, None, None, raw).await?;
            session.logout().await?;
            Ok::<(), async_imap::error::Error>(())
        })
        .await;
        match result {
            Ok(Ok(())) => {}
            Ok(Err(e)) => panic!("APPEND to Dovecot failed: {e}\n{}", self.log()),
            Err(_) => panic!("APPEND to Dovecot timed out\n{}", self.log()),
        }
    }

    /// A logged-in session for appending many messages without a login each time.
    pub async fn appender(&self) -> Appender {
        let tcp = tokio::net::TcpStream::connect(self.addr())
            .await
            .expect("connect to Dovecot");
        tcp.set_nodelay(true).unwrap();
        let local_port = tcp.local_addr().expect("local address").port();
        let mut client = async_imap::Client::new(tcp);
        client.read_response().await.expect("greeting");
        let session = client
            .login(USER, PASSWORD)
            .await
            .map_err(|(e, _)| e)
            .expect("log in to Dovecot");
        Appender {
            session,
            local_port,
        }
    }

    /// Creates a mailbox (folder) next to INBOX.
    pub async fn create_mailbox(&self, name: &str) {
        let mut appender = self.appender().await;
        appender
            .session
            .create(name)
            .await
            .unwrap_or_else(|e| panic!("CREATE {name} on Dovecot failed: {e}\n{}", self.log()));
    }

    /// The client ports of the TCP connections to this server that are established on the
    /// server side, read from the kernel's socket table (what Dovecot's per user+IP limit
    /// counts, give or take connections it has not noticed closing).
    pub fn established(&self) -> Vec<u16> {
        established_to(self.port)
    }

    /// Samples [`Dovecot::established`] every few milliseconds on a thread until
    /// [`ConnectionWatch::stop`], ignoring connections from `except` (client ports, e.g. an
    /// [`Appender`]'s). A connection counts when two reads in a row saw it: the kernel writes
    /// its socket table a page at a time, so one read on a busy machine can hold a connection
    /// that had closed before another it lists was opened.
    pub fn watch_connections(&self, except: &[u16]) -> ConnectionWatch {
        let port = self.port;
        let except = except.to_vec();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let sampler = std::thread::spawn(move || {
            let mut peak = Vec::new();
            let mut samples = 0usize;
            let mut before: Vec<u16> = Vec::new();
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                let read: Vec<u16> = established_to(port)
                    .into_iter()
                    .filter(|p| !except.contains(p))
                    .collect();
                let now: Vec<u16> = read
                    .iter()
                    .copied()
                    .filter(|p| before.contains(p))
                    .collect();
                before = read;
                if now.len() > peak.len() {
                    peak = now;
                }
                samples += 1;
                std::thread::sleep(Duration::from_millis(5));
            }
            (peak, samples)
        });
        ConnectionWatch {
            stop,
            sampler: Some(sampler),
        }
    }

    /// Stops the server (mail stays in the Maildir); connections are dropped.
    pub fn stop(&self) {
        let _ = Command::new(&self.binary)
            .arg("-c")
            .arg(&self.conf)
            .arg("stop")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && self.master_pid().is_some_and(alive) {
            std::thread::sleep(Duration::from_millis(20));
        }
        // Dovecot 2.3 leaves imap processes serving their clients after the master stops;
        // a restart in a test should drop connections like a crash or reboot does.
        self.kill();
    }

    /// Starts the server again on the same port and Maildir after [`Dovecot::stop`].
    pub fn start_again(&self) {
        if let Err(e) = self.launch() {
            panic!("Dovecot did not start again: {e}");
        }
    }

    /// Stops and starts the server, as an upgrade or crash would.
    pub fn restart(&self) {
        self.stop();
        self.start_again();
    }

    fn launch(&self) -> Result<(), String> {
        // The daemon inherits stdout/stderr: pipes would never reach EOF, so use a file.
        let output_path = self.dir.path().join("start.out");
        let output = fs::File::create(&output_path).map_err(|e| e.to_string())?;
        let status = Command::new(&self.binary)
            .arg("-c")
            .arg(&self.conf)
            .stdin(Stdio::null())
            .stdout(output.try_clone().map_err(|e| e.to_string())?)
            .stderr(output)
            .status()
            .map_err(|e| format!("cannot run {}: {e}", self.binary.display()))?;
        if !status.success() {
            return Err(format!(
                "{} exited with {status}: {}\n{}",
                self.binary.display(),
                fs::read_to_string(&output_path).unwrap_or_default(),
                self.log()
            ));
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if self.accepts() {
                return Ok(());
            }
            if self.master_pid().is_some_and(|pid| !alive(pid)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let log = self.log();
        self.kill();
        Err(format!(
            "Dovecot did not accept connections on 127.0.0.1:{}\n{log}",
            self.port
        ))
    }

    /// Drop does not run for a harness kept in a `static`, or when the test process is
    /// killed (a timeout). A detached watchdog stops this instance and removes its dir once
    /// the test process is gone.
    fn watch_for_exit(&self) {
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 1; done; \
             '{binary}' -c '{conf}' stop >/dev/null 2>&1; sleep 2; \
             kill -9 \"$(cat '{dir}/run/master.pid' 2>/dev/null)\" >/dev/null 2>&1; \
             rm -rf '{dir}'",
            pid = std::process::id(),
            binary = self.binary.display(),
            conf = self.conf.display(),
            dir = self.dir.path().display(),
        );
        let _ = Command::new("sh")
            .arg("-c")
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
    }

    fn accepts(&self) -> bool {
        TcpStream::connect_timeout(&self.addr(), Duration::from_millis(200)).is_ok()
    }

    fn master_pid(&self) -> Option<u32> {
        fs::read_to_string(self.dir.path().join("run/master.pid"))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// SIGKILLs the master and every process of this instance (their titles carry the
    /// instance name, which is this harness's unique temp dir name).
    fn kill(&self) {
        let mut pids: Vec<u32> = self.master_pid().into_iter().collect();
        let marker = format!("dovecot-{}/", self.instance());
        let conf = self.conf.to_string_lossy().to_string();
        if let Ok(entries) = fs::read_dir("/proc") {
            for entry in entries.flatten() {
                let Some(pid) = entry
                    .file_name()
                    .to_str()
                    .and_then(|p| p.parse::<u32>().ok())
                else {
                    continue;
                };
                let cmdline = fs::read(entry.path().join("cmdline")).unwrap_or_default();
                let cmdline = String::from_utf8_lossy(&cmdline);
                if cmdline.contains(&marker) || cmdline.contains(&conf) {
                    pids.push(pid);
                }
            }
        }
        for pid in &pids {
            let _ = Command::new("kill")
                .arg("-9")
                .arg(pid.to_string())
                .stderr(Stdio::null())
                .status();
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && (pids.iter().any(|p| alive(*p)) || self.accepts()) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = fs::remove_file(self.dir.path().join("run/master.pid"));
    }

    fn instance(&self) -> String {
        self.dir
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string()
    }

    fn write_config(&self, version: &str) {
        let dir = self.dir.path();
        let as_root = is_root();
        let (login_user, internal_user, mail_uid, mail_gid) = if as_root {
            // Dovecot refuses to run mail processes as root.
            (
                "dovenull".to_string(),
                "dovecot".to_string(),
                "nobody".to_string(),
                "nogroup".to_string(),
            )
        } else {
            let user = id("-un");
            let group = id("-gn");
            (user.clone(), user.clone(), user, group)
        };
        fs::create_dir_all(dir.join("run")).unwrap();
        fs::create_dir_all(dir.join("state")).unwrap();
        fs::create_dir_all(dir.join("mail")).unwrap();
        fs::write(
            dir.join("passwd"),
            format!("{USER}:{{PLAIN}}{PASSWORD}::::::\n"),
        )
        .unwrap();
        set_mode(dir, 0o755);
        set_mode(&dir.join("passwd"), 0o644);
        if as_root {
            let status = Command::new("chown")
                .arg("-R")
                .arg(format!("{mail_uid}:{mail_gid}"))
                .arg(dir.join("mail"))
                .status()
                .expect("run chown");
            assert!(status.success(), "chown of the Maildir failed");
        }
        let d = dir.display();
        let port = self.port;
        let instance = self.instance();
        let config = if version.starts_with("2.4") || version.starts_with('3') {
            format!(
                "dovecot_config_version = {version_major}
dovecot_storage_version = {version_major}
protocols = imap
listen = 127.0.0.1
base_dir = {d}/run
state_dir = {d}/state
instance_name = {instance}
log_path = {d}/dovecot.log
info_log_path = {d}/dovecot.log
ssl = no
auth_allow_cleartext = yes
auth_mechanisms = plain login
auth_failure_delay = 0
default_login_user = {login_user}
default_internal_user = {internal_user}
mail_driver = maildir
mail_home = {d}/mail/%{{user}}
mail_path = {d}/mail/%{{user}}/Maildir
passdb passwd-file {{
  passwd_file_path = {d}/passwd
}}
userdb static {{
  fields {{
    uid = {mail_uid}
    gid = {mail_gid}
    home = {d}/mail/%{{user}}
  }}
}}
service imap-login {{
  inet_listener imap {{
    listen = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
",
                version_major = version.split('.').take(2).collect::<Vec<_>>().join(".") + ".0",
            )
        } else {
            format!(
                "protocols = imap
listen = 127.0.0.1
base_dir = {d}/run
state_dir = {d}/state
instance_name = {instance}
log_path = {d}/dovecot.log
info_log_path = {d}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
default_login_user = {login_user}
default_internal_user = {internal_user}
mail_location = maildir:{d}/mail/%u/Maildir
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {d}/passwd
}}
userdb {{
  driver = static
  args = uid={mail_uid} gid={mail_gid} home={d}/mail/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
"
            )
        };
        fs::write(&self.conf, config).unwrap();
    }
}

/// See [`Dovecot::watch_connections`].
pub struct ConnectionWatch {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    sampler: Option<std::thread::JoinHandle<(Vec<u16>, usize)>>,
}

/// What a [`ConnectionWatch`] saw.
#[derive(Debug)]
pub struct Peak {
    /// The most connections established at once, as their client ports.
    pub connections: Vec<u16>,
    pub samples: usize,
}

impl ConnectionWatch {
    pub fn stop(mut self) -> Peak {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let (connections, samples) = self
            .sampler
            .take()
            .expect("stopped once")
            .join()
            .expect("the sampler thread");
        Peak {
            connections,
            samples,
        }
    }
}

impl Drop for ConnectionWatch {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// See [`Dovecot::appender`].
pub struct Appender {
    session: async_imap::Session<tokio::net::TcpStream>,
    local_port: u16,
}

impl Appender {
    /// The client port of this session's connection, to leave it out of a count.
    pub fn local_port(&self) -> u16 {
        self.local_port
    }

    /// APPENDs to INBOX; returns when the server has stored the message.
    pub async fn append(&mut self, raw: &[u8]) {
        self.session
            .append("INBOX", None, None, raw)
            .await
            .expect("APPEND to Dovecot");
    }
}

impl Drop for Dovecot {
    /// Kills the instance outright: nothing is left to save, and `dovecot stop` can take
    /// seconds while clients are connected.
    fn drop(&mut self) {
        self.kill();
    }
}

fn find_binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("DOVECOT") {
        return Some(PathBuf::from(path)).filter(|p| p.exists());
    }
    let standard = PathBuf::from("/usr/sbin/dovecot");
    if standard.exists() {
        return Some(standard);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("dovecot"))
            .find(|p| p.exists())
    })
}

/// `2.3.19.1` from `2.3.19.1 (9b53102964)`.
fn version_of(binary: &Path) -> String {
    let out = Command::new(binary)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} --version: {e}", binary.display()));
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or("2.3")
        .to_string()
}

/// Client ports of established TCP connections whose server side is 127.0.0.1:`port` (or
/// its IPv6 form), from /proc/net/tcp and /proc/net/tcp6, each once.
///
/// The kernel writes those tables a page at a time and finds its place again by counting:
/// when sockets open or close between two reads (thousands of loopback connections in
/// TIME_WAIT during a busy test), one socket can be listed on both pages. Every client
/// connects from loopback, so a client port names one connection.
fn established_to(port: u16) -> Vec<u16> {
    const ESTABLISHED: &str = "01";
    let mut out = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (Some(local), Some(remote), Some(state)) =
                (fields.get(1), fields.get(2), fields.get(3))
            else {
                continue;
            };
            let port_of = |addr: &str| {
                addr.rsplit_once(':')
                    .and_then(|(_, p)| u16::from_str_radix(p, 16).ok())
            };
            if *state == ESTABLISHED && port_of(local) == Some(port) {
                out.extend(port_of(remote));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("find a free port")
}

/// Running (zombies, which only wait for their parent to reap them, do not count).
fn alive(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

fn is_root() -> bool {
    id("-u") == "0"
}

fn id(flag: &str) -> String {
    let out = Command::new("id").arg(flag).output().expect("run id");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// Mail for a test's app delivered into Dovecot by IMAP APPEND, as a delivery agent would put
/// it there.
pub struct DovecotMailer(pub std::sync::Arc<Dovecot>);

#[async_trait::async_trait]
impl planlock::demo::Mailer for DovecotMailer {
    async fn send(&self, _from: &str, _to: &str, raw: Vec<u8>) -> Result<(), String> {
        self.0.append(&raw).await;
        Ok(())
    }
}
