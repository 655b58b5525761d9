//! `planlock serve`: the HTTP API on a local address, until Ctrl-C or SIGTERM.

use std::net::SocketAddr;
use std::time::Duration;

use planlock::browser::LaunchOptions;
use planlock::exit;
use planlock::plan::SECRET_ENV_PREFIX;
use planlock::planner::PlannerConfig;
use planlock::runner::Secrets;
use planlock::server::{
    ApiError, AppState, BROWSER_WS_VAR, BrowserSource, ServerConfig, TOKEN_VAR, serve,
};
use tokio::net::TcpListener;

/// `planlock serve`: the token comes from `PLANLOCK_TOKEN`, the planner from
/// `PLANLOCK_MODEL` etc., secret values from `PLANLOCK_SECRET_NAME`, the browser from
/// `--browser-ws` (or `PLANLOCK_BROWSER_WS`), else `$CHROME` or the usual paths.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on (`IP:PORT`; loopback unless PLANLOCK_TOKEN is set).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: String,
    /// Most runs at once.
    #[arg(long = "max-runs", default_value_t = 4)]
    max_runs: usize,
    /// A host name callers may use to reach this server (repeatable). IP addresses and
    /// `localhost` are always accepted; any other `Host` is refused (DNS rebinding).
    #[arg(long = "host-name", value_name = "NAME")]
    host_names: Vec<String>,
    /// A secret plans may use as `{{secret.NAME}}`, with its value from
    /// PLANLOCK_SECRET_NAME, sent only to these hosts (and their sites): a run that uses it
    /// may visit nothing else. Other PLANLOCK_SECRET_* variables are not readable by requests.
    #[arg(long = "secret", value_name = "NAME@HOST[,HOST]")]
    secrets: Vec<String>,
    /// Connect to a running Chromium over CDP (`ws://…`) instead of launching one.
    #[arg(long = "browser-ws", value_name = "URL", env = BROWSER_WS_VAR)]
    browser_ws: Option<String>,
}

pub async fn serve_command(args: ServeArgs) -> u8 {
    let ServeArgs {
        listen, max_runs, ..
    } = args.clone();
    let addr = match parse_listen(&listen) {
        Ok(a) => a,
        Err(m) => {
            eprintln!("planlock: {m}");
            return exit::INVALID_INPUT;
        }
    };
    let token = std::env::var(TOKEN_VAR)
        .ok()
        .filter(|t| !t.trim().is_empty());
    if !addr.ip().is_loopback() && token.is_none() {
        eprintln!(
            "planlock: refusing to listen on {addr} without a token: anyone who can reach that \
             address could drive the browser and read mail through this server. Set {TOKEN_VAR} \
             to a long random secret (callers then send `Authorization: Bearer TOKEN`), or \
             listen on 127.0.0.1."
        );
        return exit::INVALID_INPUT;
    }
    if max_runs == 0 {
        eprintln!("planlock: --max-runs must be at least 1");
        return exit::INVALID_INPUT;
    }
    let secrets = match server_secrets(&args.secrets) {
        Ok(s) => s,
        Err(m) => {
            eprintln!("planlock: {m}");
            return exit::INVALID_INPUT;
        }
    };
    let launch = LaunchOptions {
        executable: None,
        connect_to: args.browser_ws.filter(|v| !v.trim().is_empty()),
        headful: false,
    };
    let mut config = ServerConfig::new(BrowserSource::Launch(launch));
    config.planner = PlannerConfig::from_env().map_err(|e| ApiError::from_planner(&e));
    config.token = token;
    config.max_runs = max_runs;
    config.host_names = args.host_names;
    config.secrets = secrets;
    let state = AppState::new(config);
    if let Err(e) = state.start_browser().await {
        eprintln!("planlock: {e}");
        return exit::ENVIRONMENT;
    }
    let listener = match TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!(
                "planlock: cannot listen on {addr}: {}",
                super::io_sentence(&e)
            );
            state.begin_shutdown();
            state.finish_shutdown(Duration::ZERO).await;
            return exit::ENVIRONMENT;
        }
    };
    let local = listener.local_addr().unwrap_or(addr);
    eprintln!(
        "planlock: serving on http://{local} (at most {max_runs} run{} at once; {})",
        if max_runs == 1 { "" } else { "s" },
        if state.requires_token() {
            "callers must send the bearer token"
        } else {
            "no token required on loopback"
        }
    );
    match serve(listener, state, shutdown_signal()).await {
        Ok(()) => exit::SUCCESS,
        Err(e) => {
            eprintln!("planlock: the server stopped: {e}");
            exit::ENVIRONMENT
        }
    }
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
