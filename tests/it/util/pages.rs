//! Generated pages, by number, served on a loopback port of their own: what the property tests
//! over pages in real Chromium load.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use axum::Router;
use axum::extract::Path;
use axum::response::{Html, IntoResponse};
use axum::routing::get;
use proptest::test_runner::{Config as ProptestConfig, FileFailurePersistence};

pub struct Pages {
    url: String,
    pages: Arc<Mutex<HashMap<u64, String>>>,
    next: AtomicU64,
}

impl Pages {
    /// Serves `html` from now on; its URL.
    pub fn add(&self, html: String) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        self.pages.lock().unwrap().insert(n, html);
        format!("{}/p/{n}", self.url)
    }
}

/// The one page server of the test binary.
pub fn pages() -> &'static Pages {
    static PAGES: LazyLock<Pages> = LazyLock::new(|| {
        let listener = super::rt()
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind the page server");
        let addr = listener.local_addr().expect("addr");
        let pages: Arc<Mutex<HashMap<u64, String>>> = Arc::default();
        let served = pages.clone();
        let app = Router::new().route(
            "/p/{n}",
            get(move |Path(n): Path<u64>| {
                let served = served.clone();
                async move {
                    match served.lock().unwrap().get(&n) {
                        Some(html) => Html(html.clone()).into_response(),
                        None => axum::http::StatusCode::NOT_FOUND.into_response(),
                    }
                }
            }),
        );
        super::rt().spawn(async move {
            axum::serve(listener, app)
                .await
                .expect("serve the generated pages");
        });
        Pages {
            url: format!("http://{addr}"),
            pages,
            next: AtomicU64::new(0),
        }
    });
    &PAGES
}

/// How many generated pages a property test loads: each is a page in real Chromium, so
/// bounded (raise with `PROPTEST_CASES`); failing cases are saved beside the test and replayed
/// first.
pub fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(24),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}
