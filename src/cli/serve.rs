//! `planlock serve`: the HTTP API on a local address, until Ctrl-C or SIGTERM.

use std::net::SocketAddr;
use std::time::Duration;

use planlock::browser::{LaunchOptions, Preference};
use std::sync::Arc;

use planlock::browser::BrowserError;
use planlock::exit;
use planlock::inbox::binding::redact;
use planlock::inbox::{Caller, Inbox, InboxError, connect, parse_binding_as};
use planlock::plan::SECRET_ENV_PREFIX;
use planlock::planner::PlannerConfig;
use planlock::runner::Secrets;
use planlock::server::{
    ApiError, AppState, BROWSER_WS_VAR, BrowserSource, McpTools, ReplicaConfig, ServerConfig,
    TOKEN_VAR, WEBHOOK_SECRET_VAR, default_sqlite_path, serve,
};
use tokio::net::TcpListener;

use super::error::{self, CliError};

/// `planlock serve`: the token comes from `PLANLOCK_TOKEN`, the planner from
/// `PLANLOCK_MODEL` etc., secret values from `PLANLOCK_SECRET_NAME`, the browser from
/// `--browser-ws` (or `PLANLOCK_BROWSER_WS`), else `$CHROME`, else Chromium's headless shell
/// when it is installed, else the full browser.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on (`IP:PORT`; loopback unless PLANLOCK_TOKEN is set).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: String,
    /// A host name callers may use to reach this server (repeatable). IP addresses and
    /// `localhost` are always accepted; any other `Host` is refused (DNS rebinding).
    #[arg(long = "host-name", value_name = "NAME")]
    host_names: Vec<String>,
    /// The longest a client may take to send a request's head (an idle connection included),
    /// and then its body; slower connections are closed (the body: answered 408).
    #[arg(long = "read-timeout", default_value_t = planlock::server::DEFAULT_READ_TIMEOUT.as_secs(), value_name = "SECS")]
    read_timeout: u64,
    #[command(flatten)]
    service: ServiceArgs,
}

/// What the service runs with, over HTTP (`serve`) or stdio (`mcp`): its slots and queue,
/// secrets, inboxes, store and browser.
#[derive(Debug, Clone, clap::Args)]
pub struct ServiceArgs {
    /// Most runs at once.
    #[arg(long = "max-runs", default_value_t = 4)]
    pub max_runs: usize,
    /// A secret plans may use as `{{secret.NAME}}`, with its value from
    /// PLANLOCK_SECRET_NAME, sent only to these hosts (and their sites): a run that uses it
    /// may visit nothing else. Other PLANLOCK_SECRET_* variables are not readable by requests.
    #[arg(long = "secret", value_name = "NAME@HOST[,HOST]")]
    secrets: Vec<String>,
    /// A mailbox requests may choose by name (`"inbox": "NAME"`), repeatable. `${VAR}` in
    /// the URL is replaced by that environment variable, so passwords stay out of `ps`.
    #[arg(long = "inbox", value_name = "NAME=URL")]
    inboxes: Vec<String>,
    /// More `NAME=URL` inboxes, one a line (`#` starts a comment; `${VAR}` as for --inbox).
    #[arg(long = "inbox-file", value_name = "FILE")]
    inbox_files: Vec<std::path::PathBuf>,
    /// Let requests bring mailbox URLs of their own (judged by the address rule pages
    /// follow: private addresses only when the request's allowed_hosts names them).
    #[arg(long = "allow-request-inboxes")]
    allow_request_inboxes: bool,
    /// Runs that may wait for a slot (first come, first served); more are answered 429.
    #[arg(long, default_value_t = planlock::server::DEFAULT_QUEUE)]
    pub queue: usize,
    /// Runs one caller may have executing and waiting at once; more are answered 429 (a
    /// caller is the token, or the client's address when the server takes none). Default:
    /// half of --max-runs plus --queue, at least --max-runs.
    #[arg(long = "max-runs-per-caller", value_name = "N")]
    max_runs_per_caller: Option<usize>,
    /// Where runs, events and screenshots are kept: `sqlite:PATH` (default: runs.sqlite3
    /// under $XDG_DATA_HOME/planlock or ~/.local/share/planlock) or `postgres://…` (shared
    /// by replicas; `${VAR}` is filled in from the environment).
    #[arg(long, value_name = "sqlite:PATH|postgres://…")]
    store: Option<String>,
    /// This replica's name in a shared store (default: the host name and the port). Runs it
    /// left in flight are marked interrupted when it starts again; give each live replica
    /// its own.
    #[arg(long = "replica-id", value_name = "ID", env = "PLANLOCK_REPLICA_ID")]
    replica_id: Option<String>,
    /// A live run whose replica has not renewed its lease for this long is marked failed
    /// (interrupted) by another replica.
    #[arg(long = "lease-seconds", default_value_t = 30, value_name = "SECS")]
    lease_seconds: u64,
    /// With a PostgreSQL store, on SIGTERM: stop taking runs from the shared queue (the
    /// other replicas take them) and let this replica's runs finish for at most this long,
    /// then cancel the rest.
    #[arg(long = "drain-seconds", default_value_t = planlock::server::DEFAULT_DRAIN.as_secs(), value_name = "SECS")]
    drain_seconds: u64,
    /// Days finished runs are kept.
    #[arg(long = "keep-days", default_value_t = planlock::server::DEFAULT_KEEP_DAYS)]
    keep_days: u32,
    /// Connect to a running Chromium over CDP (`ws://…`) instead of launching one. Launched,
    /// it is $CHROME, else Chromium's headless shell when it is installed (about half the CPU
    /// per run), else the full browser.
    #[arg(long = "browser-ws", value_name = "URL", env = BROWSER_WS_VAR)]
    browser_ws: Option<String>,
}

pub async fn serve_command(args: ServeArgs) -> Result<u8, CliError> {
    let addr = parse_listen(&args.listen).map_err(CliError::input)?;
    let token = std::env::var(TOKEN_VAR)
        .ok()
        .filter(|t| !t.trim().is_empty());
    if !addr.ip().is_loopback() && token.is_none() {
        return Err(CliError::input(format!(
            "refusing to listen on {addr} without a token: anyone who can reach that address \
             could drive the browser and read mail through this server. Set {TOKEN_VAR} to a \
             long random secret (callers then send `Authorization: Bearer TOKEN`), or listen on \
             127.0.0.1."
        )));
    }
    args.service.check()?;
    if args.read_timeout == 0 {
        return Err(CliError::input("--read-timeout must be at least 1"));
    }
    let secrets = server_secrets(&args.service.secrets).map_err(CliError::input)?;
    let inboxes = server_inboxes(&args.service.inboxes, &args.service.inbox_files).await?;
    let listener = TcpListener::bind(addr).await.map_err(|e| {
        CliError::environment(format!(
            "cannot listen on {addr}: {}",
            super::io_sentence(&e)
        ))
    })?;
    let local = listener.local_addr().unwrap_or(addr);
    let mut config = args
        .service
        .config(secrets, inboxes, default_replica_id(local))?;
    config.token = token;
    config.host_names = args.host_names;
    config.read_timeout = Duration::from_secs(args.read_timeout);
    let (state, browser) = args.service.start(config).await?;
    let (max_runs, queue) = (args.service.max_runs, args.service.queue);
    eprintln!(
        "planlock: serving on http://{local} (at most {max_runs} run{} at once, {} waiting, \
         {} per caller; runs kept in {} as replica {}; runs in {browser}; MCP at /mcp; {})",
        if max_runs == 1 { "" } else { "s" },
        queue,
        state.max_runs_per_caller(),
        state.store_place(),
        state.replica(),
        if state.requires_token() {
            "callers must send the bearer token"
        } else {
            "no token required on loopback"
        }
    );
    serve(listener, state, shutdown_signal())
        .await
        .map_err(|e| CliError::environment("the server stopped").because(e))?;
    Ok(exit::SUCCESS)
}

/// `planlock mcp`: the service's MCP tools on stdin and stdout, for an agent that starts
/// planlock itself. Runs go to the service's store, as `serve`'s do.
#[derive(Debug, Clone, clap::Args)]
pub struct McpArgs {
    #[command(flatten)]
    service: ServiceArgs,
}

/// Serves MCP over stdio until the client closes it (or Ctrl-C, SIGTERM). Nothing else is
/// written to stdout: it is the protocol's.
pub async fn mcp_command(args: McpArgs) -> Result<u8, CliError> {
    use rmcp::ServiceExt;
    args.service.check()?;
    let secrets = server_secrets(&args.service.secrets).map_err(CliError::input)?;
    let inboxes = server_inboxes(&args.service.inboxes, &args.service.inbox_files).await?;
    // Each process its own replica: an agent may start several on one store, and a replica
    // marks the live runs of its own name interrupted when it starts.
    let mut config = args.service.config(
        secrets,
        inboxes,
        format!("{}:mcp-{}", default_replica_id_host(), std::process::id()),
    )?;
    config.command = "planlock mcp";
    let (state, browser) = args.service.start(config).await?;
    eprintln!(
        "planlock: MCP on stdio (runs kept in {} as replica {}; runs in {browser})",
        state.store_place(),
        state.replica()
    );
    let served = McpTools::new(state.clone())
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| CliError::environment(format!("the MCP client did not start: {e}")));
    let outcome = match served {
        Ok(service) => {
            tokio::select! {
                r = service.waiting() => r.map(|_| exit::SUCCESS).map_err(|e| CliError::environment(format!("MCP over stdio stopped: {e}"))),
                () = shutdown_signal() => Ok(exit::SUCCESS),
            }
        }
        Err(e) => Err(e),
    };
    state.begin_shutdown();
    state.finish_shutdown(Duration::from_secs(20)).await;
    outcome
}

impl ServiceArgs {
    fn check(&self) -> Result<(), CliError> {
        if self.max_runs == 0 {
            return Err(CliError::input("--max-runs must be at least 1"));
        }
        if self.lease_seconds == 0 {
            return Err(CliError::input("--lease-seconds must be at least 1"));
        }
        if self.max_runs_per_caller == Some(0) {
            return Err(CliError::input("--max-runs-per-caller must be at least 1"));
        }
        Ok(())
    }

    /// The service's configuration from these options and the environment.
    fn config(
        &self,
        secrets: Secrets,
        inboxes: Vec<(String, Arc<dyn Inbox>)>,
        default_replica: String,
    ) -> Result<ServerConfig, CliError> {
        let launch = LaunchOptions {
            executable: None,
            connect_to: self.browser_ws.clone().filter(|v| !v.trim().is_empty()),
            headful: false,
            // A run costs the headless shell about half the CPU, and behind the service's
            // proxy the lock holds on it as on the full browser.
            prefer: Preference::HeadlessShell,
        };
        let mut config = ServerConfig::new(BrowserSource::Launch(launch));
        config.planner = PlannerConfig::from_env().map_err(ApiError::from);
        config.max_runs = self.max_runs;
        config.secrets = secrets;
        config.inboxes = inboxes;
        config.allow_request_inboxes = self.allow_request_inboxes;
        config.queue = self.queue;
        config.max_runs_per_caller = self.max_runs_per_caller;
        config.keep_days = self.keep_days;
        let lease = Duration::from_secs(self.lease_seconds);
        config.replica = ReplicaConfig {
            id: self
                .replica_id
                .clone()
                .filter(|r| !r.trim().is_empty())
                .unwrap_or(default_replica),
            // Renewed several times per lease, so one slow write does not lose it.
            heartbeat: (lease / 4).clamp(Duration::from_millis(250), Duration::from_secs(5)),
            lease,
            drain: Duration::from_secs(self.drain_seconds),
        };
        config.webhook.secret = std::env::var(WEBHOOK_SECRET_VAR)
            .ok()
            .filter(|v| !v.trim().is_empty());
        config.store = Some(match &self.store {
            Some(s) => expand_env(s).map_err(|m| CliError::input(format!("--store: {m}")))?,
            None => format!("sqlite:{}", default_sqlite_path().display()),
        });
        Ok(config)
    }

    /// Opens the store and starts the browser: the state and where runs run.
    async fn start(&self, config: ServerConfig) -> Result<(AppState, String), CliError> {
        let given_store = self.store.is_some();
        let state = AppState::start(config)
            .await
            .map_err(|e| match given_store {
                true => CliError::environment("--store").because(e),
                false => CliError::environment(e.to_string()),
            })?;
        match state.start_browser().await {
            Ok(browser) => Ok((state, browser)),
            Err(e) => {
                state.begin_shutdown();
                state.finish_shutdown(Duration::ZERO).await;
                Err(browser_error(e))
            }
        }
    }
}

/// The service's browser that cannot be started, and how `serve` chooses one.
fn browser_error(e: BrowserError) -> CliError {
    match e {
        BrowserError::NotFound => CliError::environment(format!(
            "{e}, or set $CHROME, or connect to a running one with --browser-ws URL"
        )),
        other => CliError::environment(other.to_string()),
    }
}

/// A name for this replica that stays the same across restarts on one machine: the host
/// name and the port (a restarted replica then finds the runs it left behind).
fn default_replica_id(addr: SocketAddr) -> String {
    format!("{}:{}", default_replica_id_host(), addr.port())
}

/// This machine's host name.
fn default_replica_id_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "planlock".to_string())
}

/// `--inbox NAME=URL` and the lines of `--inbox-file`, `${VAR}`s filled in, each bound
/// once for the life of the server (an IMAP inbox keeps its connections between runs).
async fn server_inboxes(
    given: &[String],
    files: &[std::path::PathBuf],
) -> Result<Vec<(String, Arc<dyn Inbox>)>, CliError> {
    let mut specs: Vec<(String, String)> = given
        .iter()
        .map(|s| (format!("--inbox {}", redact(s.trim())), s.clone()))
        .collect();
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| {
            CliError::input(format!(
                "--inbox-file {}: {}",
                file.display(),
                super::io_sentence(&e)
            ))
        })?;
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            specs.push((
                format!("{} line {}", file.display(), n + 1),
                line.to_string(),
            ));
        }
    }
    let mut out: Vec<(String, Arc<dyn Inbox>)> = Vec::new();
    for (place, spec) in specs {
        let spec = expand_env(&spec).map_err(|m| CliError::input(format!("{place}: {m}")))?;
        let (name, url) = parse_binding_as(&spec, Caller::Service).map_err(|e| match e {
            // planlock fills `${VAR}` in, so the password stays out of the process's arguments.
            InboxError::InvalidUrl { problem, .. } => {
                error::inbox_url_error(&place, problem, |user| {
                    format!("'NAME=imap://{user}:${{IMAP_PASSWORD}}@...'")
                })
            }
            other => CliError::input(place.clone()).because(other),
        })?;
        let Some(name) = name else {
            return Err(CliError::input(format!(
                "{place}: a server inbox needs a name requests choose it by: NAME=URL"
            )));
        };
        if out.iter().any(|(n, _)| *n == name) {
            return Err(CliError::input(format!(
                "{place}: the inbox name `{name}` is given twice"
            )));
        }
        let inbox = connect(&url)
            .await
            // A binding that cannot be used is the operator's to fix, whatever went wrong.
            .map_err(|e| CliError::input(place.clone()).because(e))?;
        if let Err(e) = tokio::time::timeout(Duration::from_secs(10), inbox.check())
            .await
            .unwrap_or_else(|_| Err(InboxError::Unreachable("no answer within 10 s".into())))
        {
            // Runs that use it answer 503 until it is reachable; the server serves the rest.
            eprintln!(
                "planlock: warning: the inbox `{name}` ({}) is not reachable now: {e}",
                inbox.describe()
            );
        }
        out.push((name, inbox));
    }
    Ok(out)
}

/// `${VAR}` replaced by the environment variable's value; a missing one is an error.
fn expand_env(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err("`${` without a closing `}`".to_string());
        };
        let var = &after[..end];
        let value = std::env::var(var).map_err(|_| {
            format!("the environment variable {var} (named as ${{{var}}}) is not set")
        })?;
        out.push_str(&value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `--secret NAME@HOST[,HOST]`, each value read from `PLANLOCK_SECRET_NAME`.
fn server_secrets(given: &[String]) -> Result<Secrets, String> {
    let mut secrets = Secrets::none();
    for spec in given {
        let Some((name, hosts)) = spec.split_once('@') else {
            return Err(format!(
                "--secret {spec}: give the hosts the secret may be sent to, e.g. \
                 --secret {spec}@shop.example"
            ));
        };
        let valid = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !valid {
            return Err(format!(
                "--secret {spec}: `{name}` is not a secret name (letters, digits and `_`, not \
                 starting with a digit)"
            ));
        }
        let hosts: Vec<String> = hosts
            .split(',')
            .map(str::trim)
            .filter(|h| !h.is_empty())
            .map(str::to_string)
            .collect();
        if hosts.is_empty() {
            return Err(format!("--secret {spec}: no host after `@`"));
        }
        let var = format!("{SECRET_ENV_PREFIX}{name}");
        let value = std::env::var(&var)
            .ok()
            .filter(|v| !v.is_empty())
            .ok_or_else(|| format!("--secret {spec}: the environment variable {var} is not set"))?;
        secrets = secrets
            .with_bound(name, value, &hosts)
            .map_err(|e| format!("--secret {spec}: {e}"))?;
    }
    Ok(secrets)
}

fn parse_listen(listen: &str) -> Result<SocketAddr, String> {
    if let Ok(a) = listen.parse::<SocketAddr>() {
        return Ok(a);
    }
    if let Some(port) = listen.strip_prefix("localhost:")
        && let Ok(port) = port.parse::<u16>()
    {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    Err(format!(
        "--listen `{listen}` is not an address: give IP:PORT, e.g. 127.0.0.1:8080 (this \
         machine only) or 0.0.0.0:8080 (every interface; needs {TOKEN_VAR})"
    ))
}

/// Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
