//! The demo shop: signup with an emailed 6-digit code (split input boxes), and a magic-link
//! login whose link goes through a click-tracking redirect, as real senders do.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use axum::Router;
use axum::extract::{Form, Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use rand::Rng;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// Sends the shop's mail somewhere a run's inbox can read it.
#[async_trait]
pub trait Mailer: Send + Sync {
    async fn send(&self, from: &str, to: &str, raw: Vec<u8>) -> Result<(), String>;
}

/// Delivers by SMTP (e.g. to planlock's embedded receiver).
pub struct SmtpMailer {
    server: SocketAddr,
}

impl SmtpMailer {
    pub fn new(server: SocketAddr) -> SmtpMailer {
        SmtpMailer { server }
    }
}

#[async_trait]
impl Mailer for SmtpMailer {
    async fn send(&self, from: &str, to: &str, raw: Vec<u8>) -> Result<(), String> {
        send_smtp(self.server, from, to, &raw)
            .await
            .map_err(|e| format!("SMTP to {}: {e}", self.server))
    }
}

/// A minimal SMTP client: enough for the demo shop to talk to a local receiver.
async fn send_smtp(server: SocketAddr, from: &str, to: &str, raw: &[u8]) -> std::io::Result<()> {
    let stream = TcpStream::connect(server).await?;
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    async fn expect(
        lines: &mut tokio::io::Lines<BufReader<tokio::net::tcp::OwnedReadHalf>>,
        code: &str,
    ) -> std::io::Result<()> {
        loop {
            let line = lines
                .next_line()
                .await?
                .ok_or_else(|| std::io::Error::other("connection closed"))?;
            if line.len() >= 4 && &line[3..4] == "-" {
                continue;
            }
            if line.starts_with(code) {
                return Ok(());
            }
            return Err(std::io::Error::other(format!(
                "expected {code}, got: {line}"
            )));
        }
    }
    expect(&mut lines, "220").await?;
    for (cmd, code) in [
        ("EHLO shop.demo.test".to_string(), "250"),
        (format!("MAIL FROM:<{from}>"), "250"),
        (format!("RCPT TO:<{to}>"), "250"),
        ("DATA".to_string(), "354"),
    ] {
        write.write_all(format!("{cmd}\r\n").as_bytes()).await?;
        expect(&mut lines, code).await?;
    }
    let text = String::from_utf8_lossy(raw).replace("\r\n", "\n");
    let mut body = String::new();
    for line in text.split('\n') {
        if line.starts_with('.') {
            body.push('.');
        }
        body.push_str(line);
        body.push_str("\r\n");
    }
    body.push_str(".\r\n");
    write.write_all(body.as_bytes()).await?;
    expect(&mut lines, "250").await?;
    write.write_all(b"QUIT\r\n").await?;
    Ok(())
}

#[derive(Default)]
struct Accounts {
    /// email → (code, verified)
    pending: HashMap<String, (String, bool)>,
    /// magic-link token → email
    tokens: HashMap<String, String>,
    /// email → SHA-256 of the password it signed up with (never the password itself)
    passwords: HashMap<String, [u8; 32]>,
    /// click-tracking id → target path
    clicks: HashMap<String, String>,
}

#[derive(Clone)]
struct Shop {
    origin: String,
    mailer: Arc<dyn Mailer>,
    accounts: Arc<Mutex<Accounts>>,
}

/// The running demo shop.
pub struct DemoSite {
    addr: SocketAddr,
    server: tokio::task::JoinHandle<()>,
    accounts: Arc<Mutex<Accounts>>,
}

impl DemoSite {
    /// Serves the shop on 127.0.0.1 (a free port), mailing through `mailer`.
    pub async fn start(mailer: Arc<dyn Mailer>) -> std::io::Result<DemoSite> {
        DemoSite::start_on(SocketAddr::from(([127, 0, 0, 1], 0)), mailer).await
    }

    /// Serves the shop on `addr`, mailing through `mailer`.
    pub async fn start_on(addr: SocketAddr, mailer: Arc<dyn Mailer>) -> std::io::Result<DemoSite> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let accounts: Arc<Mutex<Accounts>> = Arc::default();
        let shop = Shop {
            origin: format!("http://{addr}"),
            mailer,
            accounts: accounts.clone(),
        };
        let app = Router::new()
            .route("/", get(index))
            .route("/signup", get(signup_form).post(signup))
            .route("/verify", get(verify_form).post(verify))
            .route("/welcome", get(welcome))
            .route("/login", get(login_form).post(login))
            .route("/t/c/{id}", get(track_click))
            .route("/magic", get(magic))
            .with_state(shop);
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(DemoSite {
            addr,
            server,
            accounts,
        })
    }

    /// Whether the account of `email` was created with `password` (the shop keeps a digest).
    pub fn has_password(&self, email: &str, password: &str) -> bool {
        let accounts = self.accounts.lock().unwrap_or_else(|p| p.into_inner());
        accounts.passwords.get(&email.to_lowercase()) == Some(&password_digest(password))
    }

    /// The addresses whose accounts the shop has verified, sorted: its own record of a
    /// signup, for judging a run by what the app recorded rather than what a page said.
    pub fn verified_accounts(&self) -> Vec<String> {
        let accounts = self.accounts.lock().unwrap_or_else(|p| p.into_inner());
        let mut verified: Vec<String> = accounts
            .pending
            .iter()
            .filter(|(_, (_, verified))| *verified)
            .map(|(email, _)| email.clone())
            .collect();
        verified.sort();
        verified
    }

    /// An absolute URL on the shop.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for DemoSite {
    fn drop(&mut self) {
        self.server.abort();
    }
}

fn page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title} · Demo Shop</title>\
         <style>body{{font-family:system-ui,sans-serif;max-width:32em;margin:3em auto}}\
         label{{display:block;margin:.8em 0 .2em}} input{{font-size:1.1em;padding:.3em}}\
         .otp{{width:1.6em;text-align:center;margin-right:.3em}} button{{margin-top:1em;font-size:1.1em}}\
         </style></head><body><header><b>Demo Shop</b></header><main>{body}</main></body></html>"
    ))
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

async fn index() -> Html<String> {
    page(
        "Welcome",
        "<h1>Demo Shop</h1><p><a href=\"/signup\">Create an account</a> · <a href=\"/login\">Sign in</a></p>",
    )
}

async fn signup_form() -> Html<String> {
    page(
        "Sign up",
        "<h1>Create your account</h1><form method=\"post\" action=\"/signup\">\
         <label for=\"email\">Email</label><input id=\"email\" name=\"email\" type=\"email\" required>\
         <label for=\"password\">Password</label><input id=\"password\" name=\"password\" type=\"password\" required>\
         <br><button type=\"submit\">Create account</button></form>",
    )
}

#[derive(serde::Deserialize)]
struct SignupForm {
    email: String,
    password: String,
}

fn password_digest(password: &str) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(password.as_bytes()).into()
}

async fn signup(State(shop): State<Shop>, Form(form): Form<SignupForm>) -> Response {
    let email = form.email.trim().to_lowercase();
    let code = format!("{:06}", rand::rng().random_range(0..1_000_000));
    {
        let mut accounts = shop.accounts.lock().expect("accounts");
        accounts
            .pending
            .insert(email.clone(), (code.clone(), false));
        accounts
            .passwords
            .insert(email.clone(), password_digest(&form.password));
    }
    let mail = code_email(&email, &code);
    if let Err(e) = shop
        .mailer
        .send("no-reply@shop.demo.test", &email, mail)
        .await
    {
        return (
            StatusCode::BAD_GATEWAY,
            page("Error", &format!("<p>Could not send mail: {}</p>", esc(&e))),
        )
            .into_response();
    }
    Redirect::to(&format!("/verify?email={}", urlencode(&email))).into_response()
}

#[derive(serde::Deserialize)]
struct EmailQuery {
    email: String,
}

async fn verify_form(Query(q): Query<EmailQuery>) -> Html<String> {
    let boxes: String = (1..=6)
        .map(|i| format!("<input class=\"otp\" maxlength=\"1\" inputmode=\"numeric\" aria-label=\"Digit {i}\">"))
        .collect();
    page(
        "Verify",
        &format!(
            "<h1>Check your email</h1><p>We sent a 6-digit code to <b>{}</b>.</p>\
             <form method=\"post\" action=\"/verify\" onsubmit=\"this.code.value=[...document.querySelectorAll('.otp')].map(b=>b.value).join('')\">\
             <input type=\"hidden\" name=\"email\" value=\"{}\"><input type=\"hidden\" name=\"code\">\
             <div>{boxes}</div><button type=\"submit\">Verify</button></form>",
            esc(&q.email),
            esc(&q.email)
        ),
    )
}

#[derive(serde::Deserialize)]
struct VerifyForm {
    email: String,
    code: String,
}

async fn verify(State(shop): State<Shop>, Form(form): Form<VerifyForm>) -> Response {
    let email = form.email.trim().to_lowercase();
    let mut accounts = shop.accounts.lock().expect("accounts");
    match accounts.pending.get_mut(&email) {
        Some((code, verified)) if *code == form.code.trim() => {
            *verified = true;
            Redirect::to(&format!("/welcome?email={}", urlencode(&email))).into_response()
        }
        _ => (
            StatusCode::UNPROCESSABLE_ENTITY,
            page(
                "Verify",
                "<h1>That code is not right</h1><p>Check the email and try again.</p>",
            ),
        )
            .into_response(),
    }
}

async fn welcome(State(shop): State<Shop>, Query(q): Query<EmailQuery>) -> Response {
    let email = q.email.trim().to_lowercase();
    let verified = shop
        .accounts
        .lock()
        .expect("accounts")
        .pending
        .get(&email)
        .is_some_and(|(_, v)| *v);
    if !verified {
        return (
            StatusCode::FORBIDDEN,
            page("Welcome", "<h1>Not verified yet</h1>"),
        )
            .into_response();
    }
    page(
        "Welcome",
        &format!(
            "<h1>Your email is verified</h1><p id=\"who\">Welcome to Demo Shop, {}!</p>",
            esc(&email)
        ),
    )
    .into_response()
}

async fn login_form() -> Html<String> {
    page(
        "Sign in",
        "<h1>Sign in</h1><form method=\"post\" action=\"/login\">\
         <label for=\"email\">Email</label><input id=\"email\" name=\"email\" type=\"email\" required>\
         <br><button type=\"submit\">Email me a sign-in link</button></form>",
    )
}

#[derive(serde::Deserialize)]
struct LoginForm {
    email: String,
}

async fn login(State(shop): State<Shop>, Form(form): Form<LoginForm>) -> Response {
    let email = form.email.trim().to_lowercase();
    let token = random_token();
    let click = random_token();
    {
        let mut accounts = shop.accounts.lock().expect("accounts");
        accounts.tokens.insert(token.clone(), email.clone());
        accounts
            .clicks
            .insert(click.clone(), format!("/magic?token={token}"));
    }
    let tracked = format!("{}/t/c/{click}", shop.origin);
    let mail = magic_email(&email, &tracked, &shop.origin);
    if let Err(e) = shop.mailer.send("login@shop.demo.test", &email, mail).await {
        return (
            StatusCode::BAD_GATEWAY,
            page("Error", &format!("<p>Could not send mail: {}</p>", esc(&e))),
        )
            .into_response();
    }
    page(
        "Check your inbox",
        &format!(
            "<h1>Check your inbox</h1><p>We emailed a sign-in link to {}.</p>",
            esc(&email)
        ),
    )
    .into_response()
}

async fn track_click(State(shop): State<Shop>, Path(id): Path<String>) -> Response {
    match shop.accounts.lock().expect("accounts").clicks.get(&id) {
        Some(target) => Redirect::to(target).into_response(),
        None => (StatusCode::NOT_FOUND, "unknown link").into_response(),
    }
}

#[derive(serde::Deserialize)]
struct MagicQuery {
    token: String,
}

async fn magic(State(shop): State<Shop>, Query(q): Query<MagicQuery>) -> Response {
    match shop
        .accounts
        .lock()
        .expect("accounts")
        .tokens
        .remove(&q.token)
    {
        Some(email) => page(
            "Signed in",
            &format!(
                "<h1>Signed in</h1><p id=\"who\">Signed in as {}</p>",
                esc(&email)
            ),
        )
        .into_response(),
        None => (
            StatusCode::FORBIDDEN,
            [(header::CONTENT_TYPE, "text/html")],
            "<h1>This sign-in link has expired</h1>",
        )
            .into_response(),
    }
}

fn random_token() -> String {
    let mut rng = rand::rng();
    (0..24)
        .map(|_| char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[rng.random_range(0..36)]))
        .collect()
}

fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// A mail of the shop: its text part, then its HTML part, as multipart/alternative with
/// boundary `b`.
fn shop_mail(from: &str, to: &str, subject: &str, b: &str, text: &str, html: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nDate: {}\r\nMessage-ID: <{}@shop.demo.test>\r\n\
         MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"{b}\"\r\n\r\n\
         --{b}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n\
         --{b}\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{html}\r\n--{b}--\r\n",
        chrono::Utc::now().to_rfc2822(),
        random_token()
    )
    .into_bytes()
}

/// A verification mail shaped like real ones: the code, plus an order number, a year, a
/// phone number and a colour in the stylesheet that must not be mistaken for it.
fn code_email(to: &str, code: &str) -> Vec<u8> {
    let text = format!(
        "Welcome to Demo Shop!\r\n\r\nYour verification code is: {code}\r\n\r\n\
         It expires in 10 minutes. Questions? Call 0800 555 0199.\r\n\
         Reference 20931 · (c) 2026 Demo Shop, 1 Example Street, 12345 Sample City\r\n"
    );
    let html = format!(
        "<html><head><style>.code{{color:#202123;font-size:28px}}</style></head><body>\
         <p>Welcome to Demo Shop!</p><p>Your verification code is:</p>\
         <p class=\"code\"><strong>{code}</strong></p><p>It expires in 10 minutes.</p>\
         <p style=\"color:#999\">Reference 20931 · &copy; 2026 Demo Shop · 1 Example Street, 12345 Sample City</p>\
         </body></html>"
    );
    shop_mail(
        "Demo Shop <no-reply@shop.demo.test>",
        to,
        "Your Demo Shop verification code",
        "demo-boundary-1",
        &text,
        &html,
    )
}

/// A magic-link mail: the sign-in link goes through a click tracker, next to links that
/// must never be chosen (unsubscribe, privacy, a tracking pixel).
fn magic_email(to: &str, link: &str, origin: &str) -> Vec<u8> {
    let text = format!("Sign in to Demo Shop: {link}\r\n\r\nUnsubscribe: {origin}/unsubscribe\r\n");
    let html = format!(
        "<html><body><p><a href=\"{origin}/unsubscribe\">Unsubscribe</a> · <a href=\"{origin}/privacy\">Privacy</a></p>\
         <p>Click the button to sign in. The link works once, for 15 minutes.</p>\
         <p><a href=\"{link}\" style=\"background:#0a7;color:#fff;padding:10px\">Sign in to Demo Shop</a></p>\
         <img src=\"{origin}/t/open.gif\" width=\"1\" height=\"1\"></body></html>"
    );
    shop_mail(
        "Demo Shop <login@shop.demo.test>",
        to,
        "Your sign-in link for Demo Shop",
        "demo-boundary-2",
        &text,
        &html,
    )
}
