//! The blind plans (`fixtures/blind/SET/plans/`: written by someone who never saw the pages,
//! from the request planlock sends), each run through the real runner on real Chromium
//! against the UI corpus, its two Python apps or the demo shop, started for that run alone,
//! and judged by what the page or the app itself recorded, never by what the plan checked.
//! Each must end as its set's `expected.json` says; `scripts/bench --blind` prints the tables.

use crate::corpus::{self, App, CorpusWeb};
use crate::util;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use planlock::demo::{self, DemoSite, Mailer, SmtpMailer};
use planlock::inbox::smtp::SmtpInbox;
use planlock::plan::{self, Limits, Vars};
use planlock::runner::{self, Recorder, RunResult, RunSpec, Secrets};
use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

fn blind_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blind")
}

/// One writer's plans for every goal, each set written from a different request.
#[derive(Debug, Clone, Copy)]
enum Set {
    /// The goal alone, with the planner's prompt as it was before plans could mark a guess.
    First,
    /// The goal and the start page's outline (`plan --dry-run`), with today's prompt.
    Looked,
    /// A second writer: the goal alone (`plan --blind --dry-run`), with today's prompt.
    GoalOnly,
    /// The second writer again, after its goal-only plans: the goal and the outline as it is
    /// now (an id-only field said as `id=`).
    Outlined,
}

const SETS: &[Set] = &[Set::First, Set::Looked, Set::GoalOnly, Set::Outlined];

impl Set {
    fn dir(self) -> PathBuf {
        blind_dir().join(match self {
            Set::First => "first",
            Set::Looked => "looked",
            Set::GoalOnly => "goal-only",
            Set::Outlined => "outlined",
        })
    }
}

/// The demo shop's `{{secret.PASSWORD}}`.
const SHOP_PASSWORD: &str = "correct horse battery staple";

// ---- What shows each goal reached ----

/// What shows a blind plan's goal was reached: the page's or the app's own record, read after
/// the run. Each names the values the goal gives, so a run that typed something else, or
/// stopped one screen short, has not reached it.
enum Goal {
    /// A corpus page reported this success state (`PAGE/STATE`, see
    /// `fixtures/corpus/web/src/reached.js`) holding every value of one of `facts`.
    Page {
        flow: &'static str,
        facts: &'static [&'static [(&'static str, &'static str)]],
    },
    /// Django (Quill): the account exists with this email and password and is signed in, and
    /// the server's request log shows a registration, then a sign-out, then a sign-in, each
    /// accepted (answered with a redirect).
    QuillAccount {
        username: &'static str,
        email: &'static str,
        password: &'static str,
    },
    /// Flask-AppBuilder (Ledger): the user's `login_count`, which only a sign-in with the
    /// right password raises, is above zero.
    LedgerSignIn { username: &'static str },
    /// The demo shop verified the run's address: its welcome page, which answers 403 until
    /// the address is verified, answers 200.
    ShopVerified,
    /// The sign-in link the demo shop emailed to the run's address was opened: the shop keeps
    /// no session, and a used link is the one trace a sign-in leaves (it answers 403 "expired"
    /// afterwards).
    ShopLinkUsed,
}

impl Goal {
    /// What its evidence is read from.
    fn read_from(&self) -> &'static str {
        match self {
            Goal::Page { .. } => "a page's report",
            Goal::QuillAccount { .. } => "Django's account and log",
            Goal::LedgerSignIn { .. } => "Flask-AppBuilder's login count",
            Goal::ShopVerified => "the shop's welcome page",
            Goal::ShopLinkUsed => "the shop's sign-in link",
        }
    }
}

fn goal(plan: &str) -> Goal {
    match plan {
        "bootstrap-signup" => Goal::Page {
            flow: "bootstrap-signup/signed-up",
            facts: &[&[("email", "alan@parcel.test"), ("password", "enigma-1941")]],
        },
        // The page's menu ends in "Sign Up" (from=menu); the footer has one too, not a menu.
        "bootstrap-menu-link" => Goal::Page {
            flow: "bootstrap-signup/arrived",
            facts: &[&[("from", "menu")]],
        },
        // The menu's "Pricing" and the one in the text both lead to the pricing page.
        "bootstrap-pricing" => Goal::Page {
            flow: "bootstrap-signup/arrived",
            facts: &[&[("from", "pricing")], &[("from", "plans")]],
        },
        "cookie-banner-accept" => Goal::Page {
            flow: "cookie-banner/joined",
            facts: &[&[("email", "margaret@apollo.test"), ("analytics", "accepted")]],
        },
        "mui-create-account" => Goal::Page {
            flow: "mui-signin/account-created",
            facts: &[&[("email", "grace@acme.test"), ("password", "cobol-1959")]],
        },
        "mui-signin" => Goal::Page {
            flow: "mui-signin/signed-in",
            facts: &[&[
                ("email", "ada@acme.test"),
                ("password", "analytical-engine"),
                ("password_shown", "yes"),
                ("remembered", "yes"),
            ]],
        },
        "mui-dialog" => Goal::Page {
            flow: "mui-dialog/subscribed",
            facts: &[&[("email", "tim@web.test")]],
        },
        // The dialog opens only from closed: a second opening came after a closing.
        "mui-dialog-close" => Goal::Page {
            flow: "mui-dialog/opened",
            facts: &[&[("times", "2")]],
        },
        "mui-wizard" => Goal::Page {
            flow: "mui-wizard/created",
            facts: &[&[
                ("name", "Linus T"),
                ("email", "linus@acme.test"),
                ("password", "penguin-1991"),
                ("plan", "team"),
            ]],
        },
        "shoelace-signup" => Goal::Page {
            flow: "shoelace-signup/signed-up",
            facts: &[&[
                ("email", "barbara@lanterns.test"),
                ("password", "liskov-1987"),
                ("terms", "accepted"),
            ]],
        },
        "django-register-login" => Goal::QuillAccount {
            username: "ken",
            email: "ken@quill.test",
            password: "unix-epoch-1970",
        },
        "fab-login" => Goal::LedgerSignIn { username: "grace" },
        "demo-signup" => Goal::ShopVerified,
        "demo-magic-link" => Goal::ShopLinkUsed,
        other => panic!("no goal evidence for the blind plan {other}: add it to goal()"),
    }
}

/// What the page or app showed of a goal after the run.
#[derive(Debug, Clone)]
struct Evidence {
    reached: bool,
    /// What was seen, in a few words.
    seen: String,
}

impl Evidence {
    fn reached(seen: impl Into<String>) -> Evidence {
        Evidence {
            reached: true,
            seen: seen.into(),
        }
    }

    fn missing(seen: impl Into<String>) -> Evidence {
        Evidence {
            reached: false,
            seen: seen.into(),
        }
    }
}

// ---- Where a plan runs ----

/// The servers one blind run reaches, started for it alone so that nothing another test
/// does can count as its evidence.
enum World {
    Corpus(CorpusWeb),
    Quill(App),
    Ledger(App),
    Shop(Shop),
}

/// The demo shop, mailing through the embedded SMTP inbox.
struct Shop {
    site: DemoSite,
    smtp: Arc<SmtpInbox>,
    outbox: Arc<Outbox>,
}

/// The shop's outgoing mail: sent on by SMTP to the run's inbox, and a copy of each kept, as
/// a mail server's log would keep it.
struct Outbox {
    smtp: SmtpMailer,
    sent: Mutex<Vec<(String, Vec<u8>)>>,
}

#[async_trait]
impl Mailer for Outbox {
    async fn send(&self, from: &str, to: &str, raw: Vec<u8>) -> Result<(), String> {
        self.sent
            .lock()
            .unwrap()
            .push((to.to_lowercase(), raw.clone()));
        self.smtp.send(from, to, raw).await
    }
}

impl World {
    fn start(goal: &Goal) -> World {
        match goal {
            Goal::Page { .. } => World::Corpus(CorpusWeb::start()),
            Goal::QuillAccount { .. } => World::Quill(corpus::django()),
            Goal::LedgerSignIn { .. } => World::Ledger(corpus::flask_appbuilder()),
            Goal::ShopVerified | Goal::ShopLinkUsed => World::Shop(util::rt().block_on(async {
                let smtp = SmtpInbox::start(
                    SocketAddr::from(([127, 0, 0, 1], 0)),
                    demo::DEMO_MAIL_DOMAIN,
                )
                .await
                .expect("start the SMTP inbox");
                let outbox = Arc::new(Outbox {
                    smtp: SmtpMailer::new(smtp.local_addr()),
                    sent: Mutex::default(),
                });
                let site = DemoSite::start(outbox.clone())
                    .await
                    .expect("start the demo shop");
                Shop { site, smtp, outbox }
            })),
        }
    }

    /// The plan's `{{variables}}`: the origin of what it runs against (and, for the shop's
    /// own bundled plans, the password they type).
    fn vars(&self) -> Vars {
        Vars::from_pairs(self.var_pairs()).expect("blind plan variables")
    }

    /// [`World::vars`] as `NAME=VALUE` pairs.
    fn var_pairs(&self) -> Vec<String> {
        match self {
            World::Corpus(web) => vec![format!("corpus={}", web.url)],
            World::Quill(app) => vec![format!("django={}", app.url)],
            World::Ledger(app) => vec![format!("fab={}", app.url)],
            World::Shop(shop) => vec![
                format!("base_url={}", shop.site.url("")),
                format!("password={SHOP_PASSWORD}"),
            ],
        }
    }

    fn spec(&self, spec: RunSpec) -> RunSpec {
        let spec = spec.vars(self.vars()).allow_host("127.0.0.1");
        match self {
            World::Shop(shop) => spec
                .secrets(Secrets::none().with_given(BTreeMap::from([(
                    "PASSWORD".to_string(),
                    SHOP_PASSWORD.to_string(),
                )])))
                .inbox(None, shop.smtp.clone()),
            _ => spec,
        }
    }

    /// Reads the goal's evidence off the page's report or the app's state.
    fn judge(&self, goal: &Goal, run_id: &str) -> Evidence {
        match (goal, self) {
            (Goal::Page { flow, facts }, World::Corpus(web)) => page_reached(web, flow, facts),
            (
                Goal::QuillAccount {
                    username,
                    email,
                    password,
                },
                World::Quill(app),
            ) => quill_account(app, username, email, password),
            (Goal::LedgerSignIn { username }, World::Ledger(app)) => ledger_sign_in(app, username),
            (Goal::ShopVerified, World::Shop(shop)) => shop_verified(shop, run_id),
            (Goal::ShopLinkUsed, World::Shop(shop)) => shop_link_used(shop, run_id),
            _ => unreachable!("World::start matches the goal"),
        }
    }
}

/// A beacon is sent as the page reaches its state; it may land a moment after the run ends.
fn page_reached(web: &CorpusWeb, flow: &str, facts: &[&[(&str, &str)]]) -> Evidence {
    let holds = |got: &serde_json::Map<String, Value>, want: &[(&str, &str)]| {
        want.iter()
            .all(|(k, v)| got.get(*k).and_then(Value::as_str) == Some(*v))
    };
    let grace = Instant::now() + Duration::from_secs(1);
    loop {
        let reached = web.reached();
        if let Some(hit) = reached
            .iter()
            .find(|r| r.flow == flow && facts.iter().any(|want| holds(&r.facts, want)))
        {
            return Evidence::reached(format!("{} {}", hit.flow, Value::from(hit.facts.clone())));
        }
        if Instant::now() > grace {
            let seen: Vec<String> = reached
                .iter()
                .map(|r| format!("{} {}", r.flow, Value::from(r.facts.clone())))
                .collect();
            return Evidence::missing(if seen.is_empty() {
                "the page reported no success state".to_string()
            } else {
                format!("the page reported only {}", seen.join(", "))
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The account as Django's own models hold it (password checked by its hasher, sessions
/// decoded by its session store), and the POSTs its server logged.
fn quill_account(app: &App, username: &str, email: &str, password: &str) -> Evidence {
    const READ: &str = "\
import json, os
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.utils import timezone
user = get_user_model().objects.filter(username=os.environ['QUILL_USERNAME']).first()
live = Session.objects.filter(expire_date__gt=timezone.now())
print(json.dumps(user and {
    'email': user.email,
    'password_matches': user.check_password(os.environ['QUILL_PASSWORD']),
    'signed_in_sessions': sum(s.get_decoded().get('_auth_user_id') == str(user.pk) for s in live),
}))";
    let out = Command::new(corpus::python())
        .args(["django_site/manage.py", "shell", "-c", READ])
        .current_dir(corpus::corpus_dir().join("py"))
        .env("CORPUS_DJANGO_DB", &app.db)
        .env("QUILL_USERNAME", username)
        .env("QUILL_PASSWORD", password)
        .output()
        .expect("run Django's shell");
    assert!(
        out.status.success(),
        "Django's shell failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let account: Value = serde_json::from_slice(&out.stdout).expect("the shell prints JSON");
    // `"POST /accounts/login/ HTTP/1.1" 302 0` per accepted form; a refused one is a 200.
    let log = app.log();
    let accepted: Vec<&str> = log
        .lines()
        .filter_map(|line| {
            let request = line.split('"').nth(1)?.strip_prefix("POST ")?;
            let status = line.split('"').nth(2)?.split_whitespace().next()?;
            (status == "302").then(|| request.split(' ').next().unwrap_or(request))
        })
        .collect();
    let flow = [
        "/accounts/register/",
        "/accounts/logout/",
        "/accounts/login/",
    ];
    let mut wanted = flow.iter().peekable();
    for path in &accepted {
        if wanted.peek() == Some(&path) {
            wanted.next();
        }
    }
    let seen = format!("account {account}; accepted POSTs {accepted:?}");
    let account_ok = account["email"] == email
        && account["password_matches"] == true
        && account["signed_in_sessions"].as_u64() >= Some(1);
    if account_ok && wanted.peek().is_none() {
        Evidence::reached(seen)
    } else {
        Evidence::missing(seen)
    }
}

fn ledger_sign_in(app: &App, username: &str) -> Evidence {
    use sqlx::Connection as _;
    let logins: Option<Option<i64>> = util::rt().block_on(async {
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&app.db)
            .read_only(true);
        let mut db = sqlx::SqliteConnection::connect_with(&options)
            .await
            .expect("open Flask-AppBuilder's database");
        sqlx::query_scalar("SELECT login_count FROM ab_user WHERE username = ?")
            .bind(username)
            .fetch_optional(&mut db)
            .await
            .expect("read ab_user")
    });
    let Some(logins) = logins else {
        return Evidence::missing(format!("no user {username}"));
    };
    let seen = format!("{username}: login_count {}", logins.unwrap_or(0));
    if logins.unwrap_or(0) > 0 {
        Evidence::reached(seen)
    } else {
        Evidence::missing(seen)
    }
}

fn shop_verified(shop: &Shop, run_id: &str) -> Evidence {
    let address = shop.smtp.run_address(run_id);
    let status = util::rt().block_on(async {
        reqwest::Client::new()
            .get(shop.site.url("/welcome"))
            .query(&[("email", &address)])
            .send()
            .await
            .expect("ask the shop")
            .status()
    });
    if status.is_success() {
        Evidence::reached(format!("/welcome for {address}: {status}"))
    } else {
        Evidence::missing(format!("/welcome for {address}: {status} (not verified)"))
    }
}

fn shop_link_used(shop: &Shop, run_id: &str) -> Evidence {
    let address = shop.smtp.run_address(run_id);
    let tracker = shop.site.url("/t/c/");
    let sent = shop.outbox.sent.lock().unwrap().clone();
    let Some(link) = sent
        .iter()
        .filter(|(to, _)| *to == address)
        .find_map(|(_, raw)| {
            let text = String::from_utf8_lossy(raw);
            let id = text.split(&tracker).nth(1)?;
            let id: String = id.chars().take_while(char::is_ascii_alphanumeric).collect();
            Some(format!("{tracker}{id}"))
        })
    else {
        return Evidence::missing(format!("the shop sent no sign-in link to {address}"));
    };
    let status = util::rt().block_on(async {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("an HTTP client");
        let hop = client.get(&link).send().await.expect("the click tracker");
        let target = hop
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(|to| shop.site.url(to))
            .expect("the tracker redirects");
        client.get(target).send().await.expect("the link").status()
    });
    if status == reqwest::StatusCode::FORBIDDEN {
        Evidence::reached(format!("the sign-in link to {address} was used"))
    } else {
        Evidence::missing(format!(
            "the sign-in link to {address} was never opened (it still answers {status})"
        ))
    }
}

// ---- Running a plan and what it came to ----

/// How one blind run ended, and what the page or app showed of its goal.
struct Outcome {
    plan: String,
    /// `succeeded` or `failed` as the result says; `invalid` when the plan did not validate,
    /// `refused` when the run could not be locked.
    status: String,
    failed_step: Option<usize>,
    step_type: Option<String>,
    kind: Option<String>,
    message: Option<String>,
    took: Duration,
    /// Each warning's step (from 1) and sentence.
    warnings: Vec<String>,
    goal: Evidence,
}

impl Outcome {
    fn verdict(&self) -> &'static str {
        match (self.status.as_str(), self.goal.reached) {
            ("succeeded", true) => "goal reached",
            ("succeeded", false) => "succeeded, goal NOT reached",
            ("failed", true) => "failed (goal reached anyway)",
            ("failed", false) => "failed",
            ("invalid", _) => "plan invalid",
            _ => "not run",
        }
    }
}

/// Runs the blind plan `name` against a world of its own and judges its goal.
fn run_blind(set: Set, name: &str) -> Outcome {
    let path = set.dir().join("plans").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    run_for_goal(name, &text)
}

/// Runs `text` (a plan) against a fresh world for the goal of the blind plan `name`, and
/// judges that goal.
fn run_for_goal(name: &str, text: &str) -> Outcome {
    let goal = goal(name);
    let world = World::start(&goal);
    let not_run = |status: &str, message: String| Outcome {
        plan: name.to_string(),
        status: status.to_string(),
        failed_step: None,
        step_type: None,
        kind: None,
        message: Some(message),
        took: Duration::ZERO,
        warnings: Vec::new(),
        goal: Evidence::missing("not run"),
    };
    let plan = match plan::parse_and_validate(text, &Limits::default(), &world.vars()) {
        Ok(plan) => plan,
        Err(e) => return not_run("invalid", e.to_string()),
    };
    let spec = world.spec(RunSpec::new(plan).named(name));
    let result: RunResult = match util::rt().block_on(async {
        let run = spec.lock().await?;
        let browser = util::browser().expect("browser");
        let mut events = Recorder::default();
        Ok::<_, runner::SpecError>(
            runner::run(browser, run, &mut events, CancellationToken::new()).await,
        )
    }) {
        Ok(result) => result,
        Err(e) => return not_run("refused", e.to_string()),
    };
    let evidence = world.judge(&goal, &result.run_id);
    // Read as the result's JSON says it, which has not changed since 2acc19c (the before
    // side of the README's table), while the types behind it have.
    let json = serde_json::to_value(&result).expect("a result is JSON");
    let text = |v: &Value| v.as_str().map(str::to_string);
    let failed_step = result.failed_step;
    Outcome {
        plan: name.to_string(),
        status: text(&json["status"]).unwrap_or_default(),
        failed_step,
        step_type: failed_step.and_then(|i| text(&json["steps"][i]["type"])),
        kind: text(&json["error"]["kind"]),
        message: text(&json["error"]["message"]),
        took: Duration::from_millis(result.duration_ms),
        warnings: json["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|w| {
                let step = w["step"].as_u64().map_or(0, |i| i + 1);
                format!("{step}: {}", w["error"]["message"].as_str().unwrap_or(""))
            })
            .collect(),
        goal: evidence,
    }
}

// ---- What each run is expected to come to ----

/// One entry of `fixtures/blind/expected.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    /// `succeeded` or `failed`, as the run's result says.
    status: String,
    /// Whether the page or app shows the goal reached (see [`Goal`]). A run that succeeded
    /// without it did not do what it was asked.
    goal_reached: bool,
    /// For a failed run: the step it failed at (0-based, as the result's `failed_step`),
    /// the error's kind, a fragment of its message naming the cause, and a bound on how long
    /// the whole run took.
    failed_step: Option<usize>,
    kind: Option<String>,
    message: Option<String>,
    within_s: Option<f64>,
    /// Why it ends so, in words.
    why: String,
    /// The other way a run of this plan ends, for a plan whose end is a race today (its `why`
    /// names the race); absent for every other plan.
    or: Option<Box<Expected>>,
}

fn expectations(set: Set) -> BTreeMap<String, Expected> {
    let path = set.dir().join("expected.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut all: BTreeMap<String, Value> = serde_json::from_str(&text).expect("expected.json");
    all.remove("_about");
    all.into_iter()
        .map(|(plan, v)| {
            let expected =
                serde_json::from_value(v).unwrap_or_else(|e| panic!("expected.json, {plan}: {e}"));
            (plan, expected)
        })
        .collect()
}

/// How `outcome` differs from what `expected` says, one line each; empty when it ends as
/// either of its ways does.
fn differences(outcome: &Outcome, expected: &Expected) -> Vec<String> {
    let mut off = differences_from(outcome, expected);
    let Some(other) = expected.or.as_deref().filter(|_| !off.is_empty()) else {
        return off;
    };
    let other_off = differences_from(outcome, other);
    if other_off.is_empty() {
        return other_off;
    }
    off.push(format!(
        "nor as its other way ({}): {}",
        other.why,
        other_off.join("; ")
    ));
    off
}

fn differences_from(outcome: &Outcome, expected: &Expected) -> Vec<String> {
    let mut off = Vec::new();
    if outcome.status != expected.status {
        off.push(format!(
            "status: {} (expected {})",
            outcome.status, expected.status
        ));
    }
    if outcome.goal.reached != expected.goal_reached {
        off.push(format!(
            "goal reached: {} (expected {}): {}",
            outcome.goal.reached, expected.goal_reached, outcome.goal.seen
        ));
    }
    if outcome.failed_step != expected.failed_step {
        off.push(format!(
            "failed_step: {:?} (expected {:?})",
            outcome.failed_step, expected.failed_step
        ));
    }
    if outcome.kind != expected.kind {
        off.push(format!(
            "kind: {:?} (expected {:?})",
            outcome.kind, expected.kind
        ));
    }
    if let Some(fragment) = &expected.message
        && !outcome
            .message
            .as_deref()
            .is_some_and(|m| m.contains(fragment.as_str()))
    {
        off.push(format!(
            "message: {:?} does not say {fragment:?}",
            outcome.message.as_deref().unwrap_or("")
        ));
    }
    if let Some(bound) = expected.within_s
        && outcome.took.as_secs_f64() > bound
    {
        off.push(format!(
            "took {:.1} s (expected within {bound} s)",
            outcome.took.as_secs_f64()
        ));
    }
    off
}

// ---- The table ----

const TABLE_HEAD: &str = "| plan | outcome | failed at step | error kind | took | goal evidence |\n\
                          |---|---|---|---|---|---|";

/// One row; the step counted from 1, as planlock's summaries count.
fn row(o: &Outcome) -> String {
    let step = match (o.failed_step, &o.step_type) {
        (Some(i), Some(t)) => format!("{} ({t})", i + 1),
        _ => String::new(),
    };
    let mut outcome = o.verdict().to_string();
    if !o.warnings.is_empty() {
        let _ = write!(outcome, ", {} warning(s)", o.warnings.len());
    }
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let evidence = match (&o.message, o.status.as_str()) {
        (Some(m), "failed" | "invalid" | "refused") => {
            // Enough of the message to name the cause; the test's failure prints it whole.
            let cut: String = m.chars().take(160).collect();
            let more = if cut.len() < m.len() { "…" } else { "" };
            format!("{}; error: {cut}{more}", o.goal.seen)
        }
        _ => o.goal.seen.clone(),
    };
    format!(
        "| {} | {} | {} | {} | {:.1} s | {} |",
        o.plan,
        cell(&outcome),
        step,
        o.kind.as_deref().unwrap_or(""),
        o.took.as_secs_f64(),
        cell(&evidence)
    )
}

// ---- The tests ----

/// Skips (outside CI) what needs Chromium or the corpus when it is missing.
fn ready(goal: &Goal) -> bool {
    if util::browser().is_none() {
        return false;
    }
    matches!(goal, Goal::ShopVerified | Goal::ShopLinkUsed) || corpus::installed()
}

fn assert_ends_as_expected(set: Set, name: &str) {
    if !ready(&goal(name)) {
        return;
    }
    let expected = expectations(set)
        .remove(name)
        .unwrap_or_else(|| panic!("{set:?}: expected.json has no entry for {name}"));
    let outcome = run_blind(set, name);
    eprintln!("{}", row(&outcome));
    for w in &outcome.warnings {
        eprintln!("    warning at step {w}");
    }
    let off = differences(&outcome, &expected);
    assert!(
        off.is_empty(),
        "{name} ({set:?}) did not end as expected.json says ({}):\n  {}\n{TABLE_HEAD}\n{}\nerror: {}",
        expected.why,
        off.join("\n  "),
        row(&outcome),
        outcome.message.as_deref().unwrap_or("none")
    );
}

macro_rules! blind_plans {
    ($($test:ident: $plan:literal,)*) => {
        /// Every blind plan, each with a test of its own.
        const PLANS: &[&str] = &[$($plan),*];
        /// The plans written from the goal alone, with the first prompt.
        mod first {
            $(
                #[test]
                fn $test() {
                    super::assert_ends_as_expected(super::Set::First, $plan);
                }
            )*
        }
        /// The plans written from the goal and the start page's outline.
        mod looked {
            $(
                #[test]
                fn $test() {
                    super::assert_ends_as_expected(super::Set::Looked, $plan);
                }
            )*
        }
        /// The second writer's plans from the goal alone.
        mod goal_only {
            $(
                #[test]
                fn $test() {
                    super::assert_ends_as_expected(super::Set::GoalOnly, $plan);
                }
            )*
        }
        /// The second writer's plans from the goal and the outline.
        mod outlined {
            $(
                #[test]
                fn $test() {
                    super::assert_ends_as_expected(super::Set::Outlined, $plan);
                }
            )*
        }
    };
}

blind_plans! {
    bootstrap_menu_link: "bootstrap-menu-link",
    bootstrap_pricing: "bootstrap-pricing",
    bootstrap_signup: "bootstrap-signup",
    cookie_banner_accept: "cookie-banner-accept",
    demo_magic_link: "demo-magic-link",
    demo_signup: "demo-signup",
    django_register_login: "django-register-login",
    fab_login: "fab-login",
    mui_create_account: "mui-create-account",
    mui_dialog_close: "mui-dialog-close",
    mui_dialog: "mui-dialog",
    mui_signin: "mui-signin",
    mui_wizard: "mui-wizard",
    shoelace_signup: "shoelace-signup",
}

#[test]
fn every_blind_plan_has_a_goal_evidence_and_an_expectation() {
    for &set in SETS {
        every_plan_of_the_set_has_a_goal_evidence_and_an_expectation(set);
    }
}

fn every_plan_of_the_set_has_a_goal_evidence_and_an_expectation(set: Set) {
    let names_in = |dir: &str, suffix: &str| -> BTreeSet<String> {
        std::fs::read_dir(set.dir().join(dir))
            .unwrap_or_else(|e| panic!("{set:?}: list {dir}: {e}"))
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter_map(|f| f.strip_suffix(suffix).map(str::to_string))
            .collect()
    };
    let on_disk = names_in("plans", ".json");
    let tested: BTreeSet<String> = PLANS.iter().map(|p| p.to_string()).collect();
    assert_eq!(tested, on_disk, "{set:?}: every plan has a test");
    assert_eq!(
        names_in("requests", ".user.txt"),
        on_disk,
        "{set:?}: every plan has the request it was written from"
    );
    let expected: BTreeSet<String> = expectations(set).into_keys().collect();
    assert_eq!(
        expected, on_disk,
        "{set:?}: every plan has an entry in expected.json"
    );
    let goals: Value = serde_json::from_str(
        &std::fs::read_to_string(blind_dir().join("goals.json")).expect("goals.json"),
    )
    .expect("goals.json is JSON");
    let goals: BTreeSet<String> = goals["goals"]
        .as_object()
        .expect("goals")
        .keys()
        .cloned()
        .collect();
    assert_eq!(goals, on_disk, "every plan has its goal in goals.json");
    let ways = expectations(set).into_iter().flat_map(|(plan, mut e)| {
        goal(&plan);
        let other = e.or.take().map(|o| (plan.clone(), *o));
        [Some((plan, e)), other].into_iter().flatten()
    });
    for (plan, e) in ways {
        assert!(e.or.is_none(), "{plan}: one other way at most");
        match e.status.as_str() {
            "succeeded" => assert!(
                e.failed_step.is_none() && e.kind.is_none() && e.message.is_none(),
                "{plan}: a run that succeeds has no failure to name"
            ),
            "failed" => assert!(
                e.failed_step.is_some() && e.kind.is_some() && e.message.is_some(),
                "{plan}: a failure names its step, kind and cause"
            ),
            other => panic!("{plan}: status {other} is neither succeeded nor failed"),
        }
        // "Fails fast": within the plan's own timeouts plus a margin, never open-ended.
        assert!(
            e.within_s.is_some() || e.status == "succeeded",
            "{plan}: a failure has a time bound"
        );
    }
}

/// The plan of the same goal written with the pages in view, when there is one: the corpus's
/// own (`fixtures/corpus/plans/`), or the demo shop's bundled one.
fn sighted_plan(name: &str) -> Option<String> {
    match name {
        "demo-signup" => Some(demo::SIGNUP_PLAN.to_string()),
        "demo-magic-link" => Some(demo::MAGIC_LINK_PLAN.to_string()),
        _ => std::fs::read_to_string(
            corpus::corpus_dir()
                .join("plans")
                .join(format!("{name}.json")),
        )
        .ok(),
    }
}

/// The judges can say yes: where a sighted plan succeeded (each waits for its page's exact
/// success text, values included), the evidence its goal asks for is there.
#[test]
fn the_evidence_is_there_when_a_sighted_plan_reaches_the_goal() {
    if util::browser().is_none() || !corpus::installed() {
        return;
    }
    let mut unconfirmed = Vec::new();
    let mut confirmed = BTreeSet::new();
    for name in PLANS {
        let text = sighted_plan(name).unwrap_or_else(|| panic!("no sighted plan for {name}"));
        let o = run_for_goal(name, &text);
        eprintln!("{}", row(&o));
        if o.status == "succeeded" {
            assert!(
                o.goal.reached,
                "the sighted plan of {name} succeeded, but the judge saw: {}",
                o.goal.seen
            );
            confirmed.insert(goal(name).read_from());
        } else {
            unconfirmed.push(row(&o));
        }
    }
    // Every kind of judge said yes at least once, whatever the locator does to a few plans.
    let kinds = PLANS
        .iter()
        .map(|name| goal(name).read_from())
        .collect::<BTreeSet<_>>();
    assert_eq!(
        confirmed.len(),
        kinds.len(),
        "some judges were never shown a reached goal; sighted plans that failed:\n{}",
        unconfirmed.join("\n")
    );
}

/// The judges can say no: a world nobody acted in shows no goal reached.
#[test]
fn nothing_done_reaches_no_goal() {
    if util::browser().is_none() || !corpus::installed() {
        return;
    }
    for name in [
        "mui-wizard",
        "django-register-login",
        "fab-login",
        "demo-signup",
        "demo-magic-link",
    ] {
        let goal = goal(name);
        let world = World::start(&goal);
        let evidence = world.judge(&goal, &runner::new_run_id());
        assert!(!evidence.reached, "{name}: {}", evidence.seen);
    }
}

// ---- What the planner is shown of each start page ----

fn outline_file(name: &str) -> PathBuf {
    blind_dir().join("outlines").join(format!("{name}.txt"))
}

/// The outline block of a user message, its per-call nonce left out.
fn outline_in(message: &str) -> Option<String> {
    let open = message.find("<page-outline-")?;
    let tag_end = open + message[open..].find('>')?;
    let tag = &message[open + 1..tag_end];
    let close = message.find(&format!("</{tag}>"))?;
    Some(
        message[tag_end + 1..close]
            .trim_start_matches('\n')
            .to_string(),
    )
}

/// The request `planlock plan` sends for each goal, received by the wire-format stand-in
/// model, carries the outline of the goal's start page, as its golden file in
/// `fixtures/blind/outlines/` has it (`PLANLOCK_BLESS=1` writes them).
#[test]
fn each_goals_request_carries_its_start_pages_outline() {
    if util::browser().is_none() || !corpus::installed() {
        return;
    }
    let goals: Value = serde_json::from_str(
        &std::fs::read_to_string(blind_dir().join("goals.json")).expect("goals.json"),
    )
    .expect("goals.json is JSON");
    let bless = std::env::var_os("PLANLOCK_BLESS").is_some();
    let mut wrong = Vec::new();
    let mut sizes = Vec::new();
    for name in PLANS {
        let goal_text = goals["goals"][name].as_str().expect("a goal");
        let world = World::start(&goal(name));
        let fake = util::model::FakeModel::openai_plan(serde_json::json!({
            "reasoning": "r",
            "steps": [{"type": "done", "summary": "ok"}]
        }));
        let cache = tempfile::tempdir().unwrap();
        let mut cmd = util::planlock();
        cmd.args(["plan", goal_text, "--look=required"])
            .env("PLANLOCK_MODEL", "openai:stand-in")
            .env("OPENAI_BASE_URL", fake.openai_url())
            .env_remove("OPENAI_API_KEY")
            .env("PLANLOCK_CACHE_DIR", cache.path());
        for pair in world.var_pairs() {
            cmd.args(["--var", &pair]);
        }
        if let World::Shop(_) = world {
            cmd.args(["--inbox-address", "run@demo.planlock.test"]);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // What the look costs: `scripts/bench --outline` prints these lines.
        let stderr = String::from_utf8_lossy(&out.stderr);
        if let Some(line) = stderr
            .lines()
            .find(|l| l.contains("planned after looking at"))
        {
            eprintln!("{name}: {}", line.trim());
        }
        let requests = fake.requests();
        assert_eq!(requests.len(), 1, "{name}: one model call");
        let message = requests[0].body["messages"][1]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        // What the whole request costs, part by part: the OpenAI body as sent, and the
        // Anthropic body as `--dry-run` shows it (the same function builds what is sent).
        let mut dry = cmd;
        dry.arg("--dry-run")
            .env("PLANLOCK_MODEL", "anthropic:stand-in");
        let out = dry.output().unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let preview: Value = serde_json::from_slice(&out.stdout).expect("the dry run prints JSON");
        sizes.push(RequestSize::openai(name, &requests[0].body));
        sizes.push(RequestSize::anthropic(name, &preview["body"]));
        let outline = outline_in(&message)
            .unwrap_or_else(|| panic!("{name}: no outline in the request:\n{message}"));
        let file = outline_file(name);
        if bless {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, &outline).unwrap();
            continue;
        }
        let golden = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{}: {e} (PLANLOCK_BLESS=1 writes it)", file.display()));
        if outline != golden {
            wrong.push(format!(
                "{name}: the request's outline differs from {}:\n--- sent\n{outline}--- golden\n{golden}",
                file.display()
            ));
        }
    }
    RequestSize::report(&sizes);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The parts of one model request, as sent: the system prompt, the schema the answer is
/// held to, the user message (the outline in it), and the whole body, compact.
struct RequestSize {
    goal: &'static str,
    provider: &'static str,
    parts: [(&'static str, String); 4],
}

impl RequestSize {
    fn openai(goal: &'static str, body: &Value) -> RequestSize {
        RequestSize {
            goal,
            provider: "openai",
            parts: [
                ("system", text(&body["messages"][0]["content"])),
                ("schema", body["response_format"].to_string()),
                ("user", text(&body["messages"][1]["content"])),
                ("whole", body.to_string()),
            ],
        }
    }

    fn anthropic(goal: &'static str, body: &Value) -> RequestSize {
        RequestSize {
            goal,
            provider: "anthropic",
            parts: [
                ("system", text(&body["system"][0]["text"])),
                ("schema", body["tools"].to_string()),
                ("user", text(&body["messages"][0]["content"])),
                ("whole", body.to_string()),
            ],
        }
    }

    /// Prints each request's parts in characters (and tokens at about 4 characters each);
    /// with `PLANLOCK_REQUEST_PARTS=DIR`, writes each part there as
    /// `GOAL.PROVIDER.PART.txt` for a tokenizer to count (`scripts/bench --outline`).
    fn report(sizes: &[RequestSize]) {
        let dir = std::env::var_os("PLANLOCK_REQUEST_PARTS").map(PathBuf::from);
        eprintln!("\n| goal | provider | system | schema | user (outline) | whole | ≈ tokens |");
        eprintln!("|---|---|---|---|---|---|---|");
        for s in sizes {
            let chars: Vec<usize> = s.parts.iter().map(|(_, t)| t.chars().count()).collect();
            eprintln!(
                "| {} | {} | {} | {} | {} | {} | {} |",
                s.goal,
                s.provider,
                chars[0],
                chars[1],
                chars[2],
                chars[3],
                chars[3] / 4
            );
            if let Some(dir) = &dir {
                std::fs::create_dir_all(dir).expect("the parts folder");
                for (part, text) in &s.parts {
                    let file = dir.join(format!("{}.{}.{part}.txt", s.goal, s.provider));
                    std::fs::write(file, text).expect("write a part");
                }
            }
        }
    }
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// Every blind plan of every set in turn, one table a set (`scripts/bench --blind`); fails,
/// after printing them, when any run did not end as its `expected.json` says.
#[test]
#[ignore = "the whole tables, one plan after another: scripts/bench --blind"]
fn blind_outcome_table() {
    if util::browser().is_none() || !corpus::installed() {
        return;
    }
    let mut off = Vec::new();
    let mut false_total = Vec::new();
    for &set in SETS {
        let expected = expectations(set);
        let outcomes: Vec<Outcome> = PLANS
            .iter()
            .map(|name| {
                let o = run_blind(set, name);
                eprintln!("{}", row(&o));
                for w in &o.warnings {
                    eprintln!("    warning at step {w}");
                }
                o
            })
            .collect();
        println!("\n{set:?}\n{TABLE_HEAD}");
        for o in &outcomes {
            println!("{}", row(o));
        }
        let reached = outcomes
            .iter()
            .filter(|o| o.status == "succeeded" && o.goal.reached)
            .count();
        let failed: Vec<&Outcome> = outcomes
            .iter()
            .filter(|o| o.status != "succeeded")
            .collect();
        let failing_time: f64 = failed.iter().map(|o| o.took.as_secs_f64()).sum();
        // The worst outcome, on its own line: a run that said succeeded, its goal not reached.
        let false_successes: Vec<&str> = outcomes
            .iter()
            .filter(|o| o.status == "succeeded" && !o.goal.reached)
            .map(|o| o.plan.as_str())
            .collect();
        println!(
            "\n{set:?}: {reached} of {} plans succeed with their goal reached; {} failed, in {:.1} s together",
            outcomes.len(),
            failed.len(),
            failing_time
        );
        println!(
            "{set:?}: FALSE SUCCESSES: {}{}",
            false_successes.len(),
            if false_successes.is_empty() {
                String::new()
            } else {
                format!(" ({})", false_successes.join(", "))
            }
        );
        false_total.extend(false_successes.iter().map(|p| format!("{set:?} {p}")));
        off.extend(outcomes.iter().filter_map(|o| {
            let e = expected.get(&o.plan)?;
            let d = differences(o, e);
            (!d.is_empty()).then(|| format!("{set:?} {}: {}", o.plan, d.join("; ")))
        }));
    }
    println!(
        "\nall sets: FALSE SUCCESSES: {} (runs that reported succeeded without their goal)",
        false_total.len()
    );
    assert!(
        false_total.is_empty(),
        "runs reported succeeded although their page or app recorded no goal: {}",
        false_total.join(", ")
    );
    assert!(
        off.is_empty(),
        "{} runs did not end as expected.json says:\n{}",
        off.len(),
        off.join("\n")
    );
}
