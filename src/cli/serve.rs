//! `planlock serve`: the HTTP API on a local address, until Ctrl-C or SIGTERM.

use std::net::SocketAddr;
use std::time::Duration;

use planlock::browser::LaunchOptions;
use planlock::exit;
use planlock::planner::PlannerConfig;
use planlock::server::{
    ApiError, AppState, BROWSER_WS_VAR, BrowserSource, ServerConfig, TOKEN_VAR, serve,
};
use tokio::net::TcpListener;

/// `planlock serve [--listen ADDR] [--max-runs N]`. The token comes from `PLANLOCK_TOKEN`,
/// the planner from `PLANLOCK_MODEL` etc., the browser from `$CHROME` (or
/// `PLANLOCK_BROWSER_WS` for a remote one).
pub async fn serve_command(listen: String, max_runs: usize) -> u8 {
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
    let launch = LaunchOptions {
        executable: None,
        connect_to: std::env::var(BROWSER_WS_VAR)
            .ok()
            .filter(|v| !v.trim().is_empty()),
        headful: false,
    };
    let mut config = ServerConfig::new(BrowserSource::Launch(launch));
    config.planner = PlannerConfig::from_env().map_err(|e| ApiError::from_planner(&e));
    config.token = token;
    config.max_runs = max_runs;
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
