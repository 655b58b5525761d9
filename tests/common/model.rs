//! A model server for tests: speaks the OpenAI Chat Completions wire format on loopback,
//! answers every request with one plan, and keeps every request it received.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::routing::post;
use serde_json::{Value, json};

use super::rt;

/// A model server that answers every chat completion with `plan` and counts requests.
pub struct FakeModel {
    pub url: String,
    pub requests: Arc<AtomicUsize>,
    pub bodies: Arc<Mutex<Vec<Value>>>,
}

pub fn fake_model(plan: Value) -> FakeModel {
    let requests = Arc::new(AtomicUsize::new(0));
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let (count, seen) = (requests.clone(), bodies.clone());
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        post(move |Json(body): Json<Value>| {
            let (count, seen, plan) = (count.clone(), seen.clone(), plan.clone());
            async move {
                count.fetch_add(1, Ordering::SeqCst);
                seen.lock().unwrap().push(body);
                Json(json!({
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
                }))
            }
        }),
    );
    let listener = rt()
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    rt().spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    FakeModel {
        url: format!("http://{addr}/v1"),
        requests,
        bodies,
    }
}
