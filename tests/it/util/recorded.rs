//! A site on loopback that keeps its own log of every request it received (method, path and
//! query, body): what the gate's tests read to show a refused request never arrived. Pages are
//! registered by path; `/signup?to=ADDR` mails ADDR a link to `/confirm`, for the emailed-link
//! rule; `POST /login/` answers like a site's own sign-in form, with a redirect to `/signed-in`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use planlock::demo::{Mailer, SmtpMailer};

/// One request as the site received it: `GET /ok?leak=… ` or `POST /login/ username=…`.
pub type Hit = String;

#[derive(Clone, Default)]
struct Shared {
    pages: Arc<Mutex<HashMap<String, String>>>,
    hits: Arc<Mutex<Vec<Hit>>>,
    mailer: Arc<Mutex<Option<SocketAddr>>>,
    base: Arc<Mutex<String>>,
}

pub struct Recorded {
    pub addr: SocketAddr,
    shared: Shared,
}

impl Recorded {
    /// Listens on `ip`, port 0.
    pub async fn start(ip: &str) -> Recorded {
        let listener = tokio::net::TcpListener::bind((ip, 0))
            .await
            .unwrap_or_else(|e| panic!("bind the recorded site on {ip}: {e}"));
        let addr = listener.local_addr().expect("addr");
        let shared = Shared::default();
        *shared.base.lock().unwrap() = format!("http://{addr}");
        let app = Router::new().fallback(answer).with_state(shared.clone());
        tokio::spawn(async move {
            axum::serve(listener, app)
                .await
                .expect("serve the recorded site")
        });
        Recorded { addr, shared }
    }

    /// `http://ADDR` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Serves `body` at `path` from now on (JavaScript when the path ends in `.js`).
    pub fn page(&self, path: &str, body: impl Into<String>) {
        self.shared
            .pages
            .lock()
            .unwrap()
            .insert(path.to_string(), body.into());
    }

    /// `/signup?to=ADDR` mails ADDR through the SMTP server at `smtp`.
    pub fn mail_through(&self, smtp: SocketAddr) {
        *self.shared.mailer.lock().unwrap() = Some(smtp);
    }

    /// Every request received so far.
    pub fn hits(&self) -> Vec<Hit> {
        self.shared.hits.lock().unwrap().clone()
    }

    /// The requests received so far that contain `needle` (in the path, query or body).
    pub fn hits_with(&self, needle: &str) -> Vec<Hit> {
        self.hits()
            .into_iter()
            .filter(|h| h.contains(needle))
            .collect()
    }
}

async fn answer(State(site): State<Shared>, req: Request) -> Response {
    let method = req.method().to_string();
    let uri = req.uri().clone();
    let path = uri.path().to_string();
    let target = uri
        .path_and_query()
        .map_or(path.clone(), |p| p.as_str().to_string());
    let query = uri.query().unwrap_or_default().to_string();
    let body = axum::body::to_bytes(req.into_body(), 1 << 20)
        .await
        .unwrap_or_default();
    site.hits.lock().unwrap().push(format!(
        "{method} {target} {}",
        String::from_utf8_lossy(&body)
    ));
    if path == "/signup" {
        return signup(&site, &query).await;
    }
    if path == "/login/" && method == "POST" {
        return (StatusCode::SEE_OTHER, [(header::LOCATION, "/signed-in")]).into_response();
    }
    let page = site.pages.lock().unwrap().get(&path).cloned();
    match page {
        Some(body) => {
            let kind = if path.ends_with(".js") {
                "text/javascript"
            } else {
                "text/html; charset=utf-8"
            };
            ([(header::CONTENT_TYPE, kind)], body).into_response()
        }
        None => (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            format!("<!doctype html><title>{path}</title><h1>You reached {path}</h1>"),
        )
            .into_response(),
    }
}

/// Mails the address in `to=` a confirmation link to `/confirm`.
async fn signup(site: &Shared, query: &str) -> Response {
    let to = url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "to")
        .map(|(_, v)| v.replace(' ', "+"))
        .unwrap_or_default();
    let smtp = *site.mailer.lock().unwrap();
    let base = site.base.lock().unwrap().clone();
    let said = match smtp {
        None => "No mailer".to_string(),
        Some(smtp) => {
            let raw = format!(
                "From: Shop <noreply@shop.test>\r\nTo: {to}\r\nSubject: Confirm your email\r\n\
                 Content-Type: text/plain; charset=utf-8\r\n\r\n\
                 To confirm your address, open this link:\r\n\r\n{base}/confirm?token=k3J9xQ2m\r\n"
            );
            match SmtpMailer::new(smtp)
                .send("noreply@shop.test", &to, raw.into_bytes())
                .await
            {
                Ok(()) => "Check your inbox".to_string(),
                Err(e) => format!("Mail failed: {e}"),
            }
        }
    };
    axum::response::Html(format!("<!doctype html><h1>{said}</h1>")).into_response()
}
