//! The HTTP API over the planner and the runner (docs/http-api.md): one shared browser, a
//! context per run, a queue in front of a bounded number of runs, a run store shared by
//! replicas, bearer tokens beyond loopback, and only this server's own origin in browsers.
//!
//! Its modules form one chain, each using only those before it (a test below keeps it so):
//! the leaves (`store`, `metrics`, `browser`), `error`, `listener`, `api`, `registry`,
//! `inboxes`, `state`, `guard`, `extract`, `webhook`, `request`, `runs`, `queue`, `upkeep`,
//! `routes`,
//! `openapi`, `mcp`, and this one.

mod api;
mod browser;
mod cancel;
mod error;
mod extract;
mod guard;
mod inboxes;
mod listener;
mod mcp;
mod metrics;
mod openapi;
mod planning;
mod queue;
mod registry;
mod request;
mod routes;
mod runs;
mod state;
mod store;
mod upkeep;
mod webhook;

use std::future::Future;
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::{HeaderName, HeaderValue};
use axum::middleware;
use axum::response::Response;
use axum::routing::{get, post};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tower::ServiceExt;
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::trace::TraceLayer;

pub use browser::{BROWSER_WS_VAR, BrowserHandle, BrowserSource};
pub use error::ApiError;
pub use mcp::{Tools as McpTools, tools as mcp_tools, writing_guide};
pub use openapi::document as openapi_document;
pub use state::{
    AppState, DEFAULT_BODY_LIMIT, DEFAULT_DRAIN, DEFAULT_KEEP_DAYS, DEFAULT_QUEUE,
    DEFAULT_READ_TIMEOUT, ReplicaConfig, ServerConfig, WebhookConfig,
};
pub use store::{Store, StoreError, default_sqlite_path};
pub use webhook::{SECRET_VAR as WEBHOOK_SECRET_VAR, SIGNATURE_HEADER, signature};

use listener::ApiListener;
use routes::{
    act, cancel_run, create_plan, create_run, get_run, healthz, list_runs, method_not_allowed,
    metrics as metrics_route, not_found, plan_schema, screenshot,
};

/// The environment variable holding the bearer token.
pub const TOKEN_VAR: &str = "PLANLOCK_TOKEN";
/// How long shutdown waits for cancelled runs to report before closing the browser.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(20);

/// The service's routes. Tests drive it with `oneshot` or on a real port.
pub fn app(state: AppState) -> Router {
    let v1 = Router::new()
        .route("/v1/act", post(act))
        .route("/v1/plans", post(create_plan))
        .route("/v1/runs", post(create_run).get(list_runs))
        .route("/v1/runs/{id}", get(get_run).delete(cancel_run))
        .route("/v1/runs/{id}/screenshots/{file}", get(screenshot))
        .route("/v1/schema/plan", get(plan_schema))
        .nest_service("/mcp", mcp_service(&state))
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            guard::require_token,
        ));
    let metrics = state.metrics_arc();
    // Each request in a span with its id; its answer logged and counted.
    let request_log = TraceLayer::new_for_http()
        .make_span_with(request_span)
        .on_request(())
        .on_response(move |r: &Response, latency: Duration, _: &tracing::Span| {
            answered(&metrics, r, latency)
        })
        .on_body_chunk(())
        .on_eos(())
        .on_failure(());
    Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics_route))
        .route("/openapi.json", get(openapi::openapi))
        .merge(v1)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(
            state.clone(),
            guard::same_origin_only,
        ))
        .layer(DefaultBodyLimit::max(state.body_limit()))
        // Outermost last: a caller's unusable id is dropped, a missing one made, the request
        // logged in a span carrying it, and the id returned on the answer.
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(request_log)
        .layer(SetRequestIdLayer::x_request_id(NewRequestId))
        .layer(middleware::map_request(keep_usable_request_id))
        .with_state(state)
}

/// MCP over streamable HTTP at `/mcp`. Behind the service's own token, `Host` and `Origin`
/// guards (so rmcp's loopback-only `Host` check is off), stopped when the server shuts down.
fn mcp_service(
    state: &AppState,
) -> rmcp::transport::StreamableHttpService<
    McpTools,
    rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
> {
    use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
    let tools = McpTools::new(state.clone());
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .with_cancellation_token(state.shutdown_token().child_token())
        .with_max_request_body_bytes(state.body_limit());
    rmcp::transport::StreamableHttpService::new(
        move || Ok(tools.clone()),
        Default::default(),
        config,
    )
}

/// Makes a request id when the caller sent none: `req-` and a fresh run-style id.
#[derive(Clone, Copy)]
struct NewRequestId;

impl MakeRequestId for NewRequestId {
    fn make_request_id<B>(&mut self, _: &axum::http::Request<B>) -> Option<RequestId> {
        HeaderValue::from_str(&format!("req-{}", crate::runner::new_run_id()))
            .ok()
            .map(RequestId::new)
    }
}

/// A caller's `X-Request-Id` is kept when it is short and plain (at most 64 letters, digits,
/// `-`, `_`, `.`); any other is dropped, so the log never carries what a caller made up.
async fn keep_usable_request_id(mut req: Request) -> Request {
    let usable = req
        .headers()
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            !v.is_empty()
                && v.len() <= 64
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        });
    if !usable {
        req.headers_mut().remove(&REQUEST_ID);
    }
    req
}

static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The span a request is logged in: its id, method and path.
fn request_span(req: &Request) -> tracing::Span {
    let id = req
        .headers()
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    tracing::info_span!("request", request_id = %id, method = %req.method(), path = %req.uri().path())
}

/// Logs an answer (`answered`, its status and duration) and counts it for `/metrics`.
fn answered(metrics: &metrics::Metrics, response: &Response, latency: Duration) {
    let status = response.status().as_u16();
    metrics.http(status);
    tracing::info!(status, duration_ms = latency.as_millis() as u64, "answered");
}

/// Serves `app` on `listener` until `shutdown` resolves; then stops accepting. With a shared
/// queue it drains: it claims no more runs (the queued ones stay for the other replicas) and
/// lets its own finish, up to the drain deadline. Then it cancels the runs in flight and
/// queued (their callers get `cancelled` results), and closes the browser and the store.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    if let Ok(addr) = listener.local_addr() {
        state.listens_on(addr);
    }
    // A client gets `read_timeout` for each request head, idle keep-alive included: a
    // connection that drips its head byte by byte, or says nothing, is closed then.
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(state.read_timeout());
    let connections = GracefulShutdown::new();
    let router = app(state.clone());
    let mut listener = ApiListener(listener);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (io, peer) = tokio::select! {
            accepted = axum::serve::Listener::accept(&mut listener) => accepted,
            () = &mut shutdown => break,
        };
        let router = router.clone();
        let service = hyper::service::service_fn(
            move |mut req: axum::http::Request<hyper::body::Incoming>| {
                // Who asks, for the bound on one caller's runs.
                req.extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                router.clone().oneshot(req.map(axum::body::Body::new))
            },
        );
        let connection = http.serve_connection(TokioIo::new(io), service);
        let connection = connections.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(target: "planlock::server", "connection ended: {e}");
            }
        });
    }
    drop(listener);
    if state.shared_queue() {
        let running = state.registry().running();
        tracing::info!(runs = ?running, "draining: no more runs are claimed here");
        if !state.drain().await {
            tracing::warn!(
                runs = ?state.registry().running(),
                "runs did not end within the drain deadline; cancelling them"
            );
        }
    }
    let running = state.registry().running();
    if running.is_empty() {
        tracing::info!("shutting down");
    } else {
        tracing::info!(runs = ?running, "shutting down: cancelling the runs in flight");
    }
    state.begin_shutdown();
    // Answers in flight are finished (cancelled runs answer with their results).
    connections.shutdown().await;
    state.finish_shutdown(SHUTDOWN_GRACE).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    /// The server's modules in the order they build on each other: each uses only modules
    /// before it, so the imports have no cycle. A new module must take its place here.
    const LAYERS: &[&str] = &[
        "store", "metrics", "browser", "error", "listener", "api", "registry", "inboxes", "state",
        "guard", "extract", "webhook", "request", "runs", "queue", "cancel", "planning", "upkeep",
        "routes", "openapi", "mcp", "mod",
    ];

    /// The server modules a file's code (its tests left out) names through `super::` or
    /// `crate::server::`, in `use` lines or paths; anything of `mod.rs` counts as `mod`.
    fn imports(source: &str) -> BTreeSet<&'static str> {
        crate::rooms::used_after(source, &["super::", "crate::server::"], LAYERS, Some("mod"))
    }

    #[test]
    fn server_modules_import_only_the_modules_before_them() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/server");
        let mut seen = BTreeSet::new();
        let mut wrong = Vec::new();
        for entry in std::fs::read_dir(&dir).expect("src/server") {
            let path = entry.expect("an entry").path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let module = path.file_stem().and_then(|s| s.to_str()).expect("a name");
            let rank = LAYERS
                .iter()
                .position(|l| *l == module)
                .unwrap_or_else(|| panic!("src/server/{module}.rs is not in LAYERS"));
            seen.insert(module.to_string());
            let source = std::fs::read_to_string(&path).expect("readable");
            for used in imports(&source) {
                let used_rank = LAYERS.iter().position(|l| *l == used).expect("listed");
                if used_rank >= rank && used != module {
                    wrong.push(format!("{module} uses {used}"));
                }
            }
        }
        assert!(wrong.is_empty(), "imports against the order: {wrong:?}");
        assert_eq!(
            seen.len(),
            LAYERS.len(),
            "every module in LAYERS exists: {seen:?}"
        );
    }

    #[test]
    fn imports_are_read_from_use_lines_and_paths() {
        let source = "use super::error::ApiError;\nuse super::{api, state::AppState};\n\
                      fn f() { super::webhook::spawn(); crate::server::AppState::x(); }\n\
                      #[cfg(test)]\nmod tests {\n    use super::routes;\n}\n";
        let found: Vec<&str> = imports(source).into_iter().collect();
        assert_eq!(found, ["api", "error", "mod", "state", "webhook"]);
    }
}
