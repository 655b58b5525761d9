//! The one fake model provider: a loopback HTTP server that records every request and answers
//! from a queue of canned responses (recorded from the providers, in `fixtures/planner/`), or
//! with the same answer every time.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::rt;

/// One answer of the fake provider.
#[derive(Clone)]
pub struct Canned {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
    pub delay: Duration,
}

impl Canned {
    /// A JSON answer from `fixtures/planner/NAME`.
    pub fn fixture(status: u16, name: &str) -> Canned {
        Canned::json(status, fixture(name))
    }

    pub fn json(status: u16, body: String) -> Canned {
        Canned {
            status,
            headers: vec![("content-type", "application/json".into())],
            body,
            delay: Duration::ZERO,
        }
    }

    /// An OpenAI Chat Completions answer whose message is `plan`.
    pub fn openai_plan(plan: &Value) -> Canned {
        Canned::json(
            200,
            json!({
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "model": "test-model",
                "choices": [{
                    "index": 0,
                    "message": {"role": "assistant", "content": plan.to_string()},
                    "finish_reason": "stop"
                }],
                "usage": {"prompt_tokens": 900, "completion_tokens": 200, "total_tokens": 1100,
                          "prompt_tokens_details": {"cached_tokens": 800}}
            })
            .to_string(),
        )
    }
}

/// The text of `fixtures/planner/NAME`.
pub fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/planner")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A request the fake received.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: Method,
    pub path: String,
    pub headers: HeaderMap,
    pub body: Value,
    /// The body as its bytes arrived.
    pub raw: Vec<u8>,
}

#[derive(Default)]
struct FakeState {
    queue: Mutex<VecDeque<Canned>>,
    /// Answered when the queue is empty; `None`: an unexpected request is a 418.
    always: Option<Canned>,
    requests: Mutex<Vec<Recorded>>,
}

/// The fake provider, listening on loopback until the test binary ends.
pub struct FakeModel {
    addr: SocketAddr,
    state: Arc<FakeState>,
}

async fn handle(
    State(state): State<Arc<FakeState>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let raw = body.to_vec();
    let body: Value = serde_json::from_slice(&raw).unwrap_or(Value::Null);
    state.requests.lock().unwrap().push(Recorded {
        method,
        path: uri.path().to_string(),
        headers,
        body,
        raw,
    });
    let next = state.queue.lock().unwrap().pop_front();
    let Some(canned) = next.or_else(|| state.always.clone()) else {
        // Not retryable, so an unexpected extra request fails loudly.
        return (StatusCode::IM_A_TEAPOT, "fake: no response left").into_response();
    };
    tokio::time::sleep(canned.delay).await;
    let mut response = Response::builder().status(canned.status);
    for (k, v) in &canned.headers {
        response = response.header(*k, v);
    }
    response.body(canned.body.into()).unwrap()
}

impl FakeModel {
    /// Answers the requests with `responses` in order, then 418.
    pub fn start(responses: Vec<Canned>) -> FakeModel {
        Self::serve(FakeState {
            queue: Mutex::new(responses.into()),
            ..FakeState::default()
        })
    }

    /// Answers every Chat Completions request with `plan`.
    pub fn openai_plan(plan: Value) -> FakeModel {
        Self::serve(FakeState {
            always: Some(Canned::openai_plan(&plan)),
            ..FakeState::default()
        })
    }

    /// Listens on the shared runtime, so sync and async tests can both use it.
    fn serve(state: FakeState) -> FakeModel {
        let state = Arc::new(state);
        let app = Router::new().fallback(handle).with_state(state.clone());
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        rt().spawn(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
        FakeModel { addr, state }
    }

    /// `http://127.0.0.1:PORT` (the Anthropic base URL).
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT/v1` (the OpenAI base URL).
    pub fn openai_url(&self) -> String {
        format!("{}/v1", self.base())
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.state.requests.lock().unwrap().clone()
    }

    /// How many requests arrived.
    pub fn count(&self) -> usize {
        self.state.requests.lock().unwrap().len()
    }

    /// The bodies of the requests as their bytes arrived, in order.
    pub fn raw_bodies(&self) -> Vec<Vec<u8>> {
        self.requests().into_iter().map(|r| r.raw).collect()
    }

    /// The JSON bodies of the requests, in order.
    pub fn bodies(&self) -> Vec<Value> {
        self.requests().into_iter().map(|r| r.body).collect()
    }
}
