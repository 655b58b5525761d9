//! Journeys on stock apps: real, unmodified apps installed from the registries
//! (`fixtures/journeys/install`), each started once per test run with a fresh database and its
//! mail sent to one embedded SMTP receiver, driven through whole journeys (sign up, confirm,
//! log in again; reset; a second factor; an invitation; a magic link) by the real runner on
//! real Chromium. A journey is judged by the app's own records (`DIR/records show`: its
//! database, read by its own models), never by what the page said. A run that succeeded while
//! the app recorded nothing is a FALSE SUCCESS, the worst outcome there is.
//!
//! Each journey has a hand plan (`DIR/NAME.hand.json`, written by a person who looked at the
//! pages; it must reach its goal) and, once a writer who never saw the pages has written it
//! from the request (`DIR/NAME.request.txt`), a blind plan (`DIR/NAME.blind.json`, run as
//! written: its failures are recorded, a false success fails its test).
//! `scripts/bench --journeys` prints the table. `fixtures/journeys/README.md` tells the rest.

use crate::util;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use planlock::inbox::smtp::SmtpInbox;
use planlock::plan::{self, Limits, Vars};
use planlock::runner::{self, Event, Listener, Recorder, RunSpec, Secrets};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

pub(crate) fn journeys_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/journeys")
}

/// The domain of every run's address (`run-RUNID@journeys.example`). Not `.test`: the
/// `email-validator` package several apps use refuses that special-use name, `.example` not.
pub(crate) const MAIL_DOMAIN: &str = "journeys.example";

// ---- The apps ----

/// One stock app as the journeys start it: `fixtures/journeys/DIR/start` with `env` added,
/// its origin given to plans as `{{VAR}}`.
pub(crate) struct AppDef {
    /// How journeys name this instance.
    pub key: &'static str,
    /// Its folder under `fixtures/journeys` (start, records, plans).
    pub dir: &'static str,
    /// The plans' variable for its origin (`http://127.0.0.1:PORT`).
    pub var: &'static str,
    /// What the app is, for the table.
    pub what: &'static str,
    /// Settings of this instance beyond the folder's own.
    pub env: &'static [(&'static str, &'static str)],
    /// The app keeps its data in PostgreSQL: each start gets a fresh, empty database on the
    /// test binary's server (`JOURNEY_PG_URL`; PostgreSQL's tools in `JOURNEY_PG_BIN`).
    pub postgres: bool,
    /// How the app's username is made from the run address's local part.
    pub username: Username,
}

/// The account's username, given to plans as `{{username}}` and used by `records seed`.
#[derive(Clone, Copy)]
pub(crate) enum Username {
    /// The run address's local part, `run-abc`.
    LocalPart,
    /// For apps whose usernames are letters and digits only: the local part without its
    /// dash, `runabc`.
    LettersAndDigits,
}

impl Username {
    fn of(self, address: &str) -> String {
        let local = address.split('@').next().unwrap_or(address);
        match self {
            Username::LocalPart => local.to_string(),
            Username::LettersAndDigits => {
                local.chars().filter(char::is_ascii_alphanumeric).collect()
            }
        }
    }
}

pub(crate) const APPS: &[AppDef] = &[
    AppDef {
        key: "allauth",
        dir: "allauth",
        var: "allauth",
        what: "django-allauth 65.22.1 (Django 5.2.19)",
        env: &[],
        postgres: false,
        username: Username::LocalPart,
    },
    AppDef {
        key: "allauth-code",
        dir: "allauth",
        var: "allauth",
        what: "django-allauth 65.22.1 (Django 5.2.19), email verification by code",
        env: &[("JOURNEY_ALLAUTH_VERIFY", "code")],
        postgres: false,
        username: Username::LocalPart,
    },
    AppDef {
        key: "redux",
        dir: "redux",
        var: "redux",
        what: "django-registration-redux 2.13 (Django 5.2.19)",
        env: &[],
        postgres: false,
        username: Username::LocalPart,
    },
    AppDef {
        key: "twofactor",
        dir: "twofactor",
        var: "twofactor",
        what: "django-two-factor-auth 1.18.1, django-otp 1.7.5 EmailDevice (Django 5.2.19)",
        env: &[],
        postgres: false,
        username: Username::LocalPart,
    },
    AppDef {
        key: "magiclink",
        dir: "magiclink",
        var: "magiclink",
        what: "django-magiclink 1.3.0 (Django 5.2.19)",
        env: &[],
        postgres: false,
        username: Username::LocalPart,
    },
    AppDef {
        key: "invitations",
        dir: "invitations",
        var: "invitations",
        what: "django-invitations 2.1.0 with django-allauth 65.22.1 (Django 5.2.19)",
        env: &[],
        postgres: false,
        username: Username::LocalPart,
    },
    AppDef {
        key: "wagtail",
        dir: "wagtail",
        var: "wagtail",
        what: "Wagtail 8.0.1 admin (Django 5.2.19)",
        env: &[],
        postgres: false,
        username: Username::LocalPart,
    },
    AppDef {
        key: "security",
        dir: "security",
        var: "security",
        what: "Flask-Security-Too 5.9.2 (Flask 3.1.3)",
        env: &[],
        postgres: false,
        username: Username::LocalPart,
    },
    AppDef {
        key: "appbuilder",
        dir: "appbuilder",
        var: "appbuilder",
        what: "Flask-AppBuilder 5.3.0 with Flask-Mail",
        env: &[],
        postgres: false,
        username: Username::LocalPart,
    },
    AppDef {
        key: "roundup",
        dir: "roundup",
        var: "roundup",
        what: "Roundup 2.6.0, classic tracker (sqlite)",
        env: &[],
        postgres: false,
        username: Username::LocalPart,
    },
    AppDef {
        key: "trac",
        dir: "trac",
        var: "trac",
        what: "Trac 1.6 with TracAccountManager 0.6.0 (sqlite)",
        env: &[],
        postgres: false,
        username: Username::LocalPart,
    },
    AppDef {
        key: "misago",
        dir: "misago",
        var: "misago",
        what: "Misago 0.39.6 forum (Django 4.2.8, React; PostgreSQL)",
        env: &[],
        postgres: true,
        username: Username::LettersAndDigits,
    },
    AppDef {
        key: "plone",
        dir: "plone",
        var: "plone",
        what: "Plone 6.2.2 Classic UI (Zope 6.3, waitress)",
        env: &[],
        postgres: false,
        username: Username::LocalPart,
    },
];

fn app_def(key: &str) -> &'static AppDef {
    APPS.iter()
        .find(|a| a.key == key)
        .unwrap_or_else(|| panic!("no app {key} in APPS"))
}

/// True when the apps are installed; else a note (or, in CI, a failure).
pub(crate) fn installed() -> bool {
    static READY: LazyLock<bool> = LazyLock::new(|| {
        let check = Command::new(journeys_dir().join("install"))
            .arg("--check")
            .output();
        let ok = check.as_ref().is_ok_and(|o| o.status.success());
        if !ok {
            let why = match &check {
                Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
                Err(e) => e.to_string(),
            };
            if util::in_ci() {
                panic!("CI=true but the journeys' apps are not installed: {why}");
            }
            eprintln!("skipping: the journeys' apps are not installed ({why})");
        }
        ok
    });
    *READY
}

/// The one SMTP receiver every app sends its mail to.
pub(crate) fn mail() -> &'static Arc<SmtpInbox> {
    static MAIL: LazyLock<Arc<SmtpInbox>> = LazyLock::new(|| {
        util::rt()
            .block_on(SmtpInbox::start(
                SocketAddr::from(([127, 0, 0, 1], 0)),
                MAIL_DOMAIN,
            ))
            .expect("start the embedded SMTP receiver")
    });
    &MAIL
}

/// A started app: its origin, its database, its log; stopped (its whole process group) when
/// the test binary exits.
pub(crate) struct Running {
    pub url: String,
    pub db: PathBuf,
    /// Its folder (database, log, whatever the app keeps).
    pub data: PathBuf,
    /// Where it sends its mail (a loopback port).
    pub smtp_port: u16,
    /// Its PostgreSQL database and the server's tools (`JOURNEY_PG_URL`, `JOURNEY_PG_BIN`),
    /// for an app that keeps its data there.
    postgres: Vec<(&'static str, String)>,
    log: PathBuf,
    /// How long it took to start (migrations included).
    pub started_in: Duration,
    /// Its process group, killed when the test binary exits.
    pub group: i32,
    /// The folder, removed with it, unless the caller gave one to keep.
    _temporary: Option<tempfile::TempDir>,
}

impl Running {
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// Process groups of the apps this binary started, killed at exit.
static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

extern "C" fn stop_apps() {
    for &group in GROUPS.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        // SAFETY: a plain syscall on a process group this test binary created.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
}

/// The app `key`, started on first use and shared by every journey after that. Two apps start
/// at the same time; one app never starts twice.
pub(crate) fn running(key: &str) -> &'static Running {
    type Slot = Arc<OnceLock<Result<&'static Running, String>>>;
    static SLOTS: LazyLock<Mutex<HashMap<String, Slot>>> = LazyLock::new(Mutex::default);
    let slot = SLOTS
        .lock()
        .unwrap()
        .entry(key.to_string())
        .or_default()
        .clone();
    let smtp_port = mail().local_addr().port();
    match slot.get_or_init(|| start(app_def(key), smtp_port).map(|r| &*Box::leak(Box::new(r)))) {
        Ok(app) => app,
        Err(e) => panic!("{e}"),
    }
}

/// A new instance of the app `key` of its own, sending its mail by SMTP to `smtp_port` on
/// loopback (a receiver another process runs, e.g. `planlock serve`'s inbox), at
/// `MAIL_DOMAIN`. Stopped when the test binary exits.
pub(crate) fn start_mailing_to(key: &str, smtp_port: u16) -> Running {
    start(app_def(key), smtp_port).unwrap_or_else(|e| panic!("{e}"))
}

/// [`start_mailing_to`], its database and log in `data` (a new folder, kept after it stops).
pub(crate) fn start_in(key: &str, smtp_port: u16, data: &Path) -> Result<Running, String> {
    std::fs::create_dir_all(data).map_err(|e| format!("{}: {e}", data.display()))?;
    start_with(app_def(key), smtp_port, data.to_path_buf(), None)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

fn start(def: &AppDef, smtp_port: u16) -> Result<Running, String> {
    let data = tempfile::tempdir().map_err(|e| format!("a folder for {}: {e}", def.key))?;
    start_with(def, smtp_port, data.path().to_path_buf(), Some(data))
}

fn start_with(
    def: &AppDef,
    smtp_port: u16,
    folder: PathBuf,
    temporary: Option<tempfile::TempDir>,
) -> Result<Running, String> {
    static AT_EXIT: OnceLock<()> = OnceLock::new();
    AT_EXIT.get_or_init(|| {
        // SAFETY: registering a plain `extern "C"` function with libc.
        unsafe {
            libc::atexit(stop_apps);
        }
    });
    let began = Instant::now();
    let db = folder.join("app.db");
    let log = folder.join("server.log");
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let postgres = if def.postgres {
        let database = util::postgres::database().ok_or_else(|| {
            format!(
                "{} keeps its data in PostgreSQL, which is not installed",
                def.key
            )
        })?;
        let bin = util::postgres::server()
            .expect("the server of that database")
            .bin();
        vec![
            ("JOURNEY_PG_URL", database),
            ("JOURNEY_PG_BIN", bin.display().to_string()),
        ]
    } else {
        Vec::new()
    };
    let out = std::fs::File::create(&log).map_err(|e| e.to_string())?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    let mut child = Command::new(journeys_dir().join(def.dir).join("start"))
        .envs(def.env.iter().copied())
        .env("JOURNEY_PORT", port.to_string())
        .env("JOURNEY_BASE_URL", &url)
        .env("JOURNEY_DB", &db)
        .env("JOURNEY_DATA", &folder)
        .env("JOURNEY_SMTP_PORT", smtp_port.to_string())
        .env("JOURNEY_MAIL_DOMAIN", MAIL_DOMAIN)
        .envs(postgres.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", def.key))?;
    let group = child.id() as i32;
    GROUPS.lock().unwrap().push(group);
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let running = Running {
        url,
        db,
        data: folder,
        smtp_port,
        postgres,
        log,
        started_in: Duration::ZERO,
        group,
        _temporary: temporary,
    };
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!(
                "{} exited ({status}) before it listened on {addr}:\n{}",
                def.key,
                running.log()
            ));
        }
        if began.elapsed() > Duration::from_secs(120) {
            return Err(format!(
                "{} did not listen on {addr} within 120 s:\n{}",
                def.key,
                running.log()
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // Reaped by no one: the process group dies with the test binary.
    std::mem::forget(child);
    Ok(Running {
        started_in: began.elapsed(),
        ..running
    })
}

// ---- The app's own records ----

/// Runs `DIR/records COMMAND` for the account `email` (its username in `JOURNEY_USERNAME`)
/// with `env`; its JSON answer.
pub(crate) fn records(
    def: &AppDef,
    app: &Running,
    command: &str,
    email: &str,
    env: &[(&str, String)],
) -> Value {
    records_of(def, &app.records_env(), command, email, env)
}

impl Running {
    /// What `DIR/records` needs to know of this instance, beside the app's own settings.
    pub(crate) fn records_env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("JOURNEY_DB", self.db.display().to_string()),
            ("JOURNEY_BASE_URL", self.url.clone()),
            ("JOURNEY_SMTP_PORT", self.smtp_port.to_string()),
        ]
        .into_iter()
        .chain(self.postgres.iter().cloned())
        .collect()
    }
}

/// [`records`] of an instance known by its [`Running::records_env`] (one this binary did not
/// start: the agent bench's, started by another run of it).
pub(crate) fn records_of(
    def: &AppDef,
    instance: &[(&str, String)],
    command: &str,
    email: &str,
    env: &[(&str, String)],
) -> Value {
    let out = Command::new(journeys_dir().join(def.dir).join("records"))
        .arg(command)
        .envs(def.env.iter().copied())
        .envs(instance.iter().map(|(k, v)| (k, v)))
        .env("JOURNEY_EMAIL", email)
        .env("JOURNEY_USERNAME", def.username.of(email))
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("run {}/records: {e}", def.dir));
    assert!(
        out.status.success(),
        "{}/records {command} failed: {}",
        def.dir,
        String::from_utf8_lossy(&out.stderr)
    );
    if command == "send" {
        return Value::Null;
    }
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}/records {command} printed no JSON ({e}): {}",
            def.dir,
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

// ---- The journeys ----

/// Where a journey's account comes from. Its username, where the app asks for one, is the
/// run address's local part, given to plans as `{{username}}`.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Account {
    /// The journey creates it (`{{secret.PASSWORD}}` is its password).
    New,
    /// It exists before the run, at the run's address, with `{{secret.PASSWORD}}`, made by
    /// this `records` command (`seed`, or e.g. `seed-2fa` with a second factor), as an admin
    /// or an earlier sign-up made it.
    Seeded(&'static str),
}

/// One fact the app must hold after the journey, read from `records show`.
#[derive(Clone, Copy)]
pub(crate) enum Proof {
    /// The account exists.
    Exists,
    /// The app holds the address as confirmed.
    Confirmed,
    /// The stored hash accepts the secret of this name.
    Password(&'static str),
    /// The stored hash no longer accepts the secret of this name.
    NotPassword(&'static str),
    /// The app recorded a sign-in during the run (its `last_login`, or what it keeps instead).
    SignedInDuringRun,
    /// The fact at this JSON pointer (under `extra`) is `true`.
    Holds(&'static str),
    /// The time at this JSON pointer (under `extra`, Unix seconds) is after the run's start.
    DuringRun(&'static str),
}

pub(crate) struct Journey {
    /// The app instance (`APPS`).
    pub app: &'static str,
    /// Its plans' file stem in the app's folder.
    pub name: &'static str,
    pub account: Account,
    /// Someone other than the user acts once the run has started (`records send`: an
    /// inviter), since mail sent before a run is not that run's.
    pub sent_by_another: bool,
    pub proofs: &'static [Proof],
}

use Proof::*;

pub(crate) const JOURNEYS: &[Journey] = &[
    Journey {
        app: "allauth",
        name: "signup-confirm-login",
        account: Account::New,
        sent_by_another: false,
        proofs: &[Exists, Confirmed, Password("PASSWORD"), SignedInDuringRun],
    },
    Journey {
        app: "allauth",
        name: "reset-password",
        account: Account::Seeded("seed"),
        sent_by_another: false,
        proofs: &[
            Password("NEW_PASSWORD"),
            NotPassword("PASSWORD"),
            SignedInDuringRun,
        ],
    },
    Journey {
        app: "allauth",
        name: "login-by-code",
        account: Account::Seeded("seed"),
        sent_by_another: false,
        proofs: &[SignedInDuringRun],
    },
    Journey {
        app: "allauth-code",
        name: "signup-code-login",
        account: Account::New,
        sent_by_another: false,
        // The code signs the new account in; after signing out, only the last sign-in leaves
        // a live session.
        proofs: &[
            Exists,
            Confirmed,
            Password("PASSWORD"),
            SignedInDuringRun,
            Holds("/signed_in_now"),
        ],
    },
    Journey {
        app: "allauth-code",
        name: "reset-password-by-code",
        account: Account::Seeded("seed"),
        sent_by_another: false,
        proofs: &[
            Password("NEW_PASSWORD"),
            NotPassword("PASSWORD"),
            SignedInDuringRun,
        ],
    },
    Journey {
        app: "redux",
        name: "register-activate-login",
        account: Account::New,
        sent_by_another: false,
        proofs: &[Exists, Confirmed, Password("PASSWORD"), SignedInDuringRun],
    },
    Journey {
        app: "redux",
        name: "reset-password",
        account: Account::Seeded("seed"),
        sent_by_another: false,
        proofs: &[
            Password("NEW_PASSWORD"),
            NotPassword("PASSWORD"),
            SignedInDuringRun,
        ],
    },
    Journey {
        app: "twofactor",
        name: "login-email-code",
        account: Account::Seeded("seed-2fa"),
        sent_by_another: false,
        proofs: &[
            SignedInDuringRun,
            DuringRun("/email_devices/0/last_used_at"),
        ],
    },
    Journey {
        app: "twofactor",
        name: "setup-email-factor",
        account: Account::Seeded("seed"),
        sent_by_another: false,
        proofs: &[SignedInDuringRun, Holds("/confirmed_email_device")],
    },
    Journey {
        app: "magiclink",
        name: "login",
        account: Account::Seeded("seed"),
        sent_by_another: false,
        proofs: &[SignedInDuringRun, Holds("/magic_link_used")],
    },
    Journey {
        app: "invitations",
        name: "accept-invitation",
        account: Account::New,
        sent_by_another: true,
        proofs: &[
            Exists,
            Confirmed,
            Password("PASSWORD"),
            Holds("/invitation_accepted"),
        ],
    },
    Journey {
        app: "wagtail",
        name: "reset-password",
        account: Account::Seeded("seed"),
        sent_by_another: false,
        proofs: &[
            Password("NEW_PASSWORD"),
            NotPassword("PASSWORD"),
            SignedInDuringRun,
        ],
    },
    Journey {
        app: "security",
        name: "register-confirm-login",
        account: Account::New,
        sent_by_another: false,
        proofs: &[Exists, Confirmed, Password("PASSWORD"), SignedInDuringRun],
    },
    Journey {
        app: "security",
        name: "reset-password",
        account: Account::Seeded("seed"),
        sent_by_another: false,
        proofs: &[
            Password("NEW_PASSWORD"),
            NotPassword("PASSWORD"),
            SignedInDuringRun,
        ],
    },
    Journey {
        app: "security",
        name: "two-factor-email",
        account: Account::Seeded("seed-2fa"),
        sent_by_another: false,
        proofs: &[SignedInDuringRun],
    },
    Journey {
        app: "security",
        name: "unified-signin-code",
        account: Account::Seeded("seed-us"),
        sent_by_another: false,
        proofs: &[SignedInDuringRun],
    },
    Journey {
        app: "appbuilder",
        name: "register-activate-login",
        account: Account::New,
        sent_by_another: false,
        proofs: &[Exists, Confirmed, Password("PASSWORD"), SignedInDuringRun],
    },
    Journey {
        app: "roundup",
        name: "register-confirm-login",
        account: Account::New,
        sent_by_another: false,
        // Confirming signs the new user in; after logging out, only the last log-in leaves a
        // live session.
        proofs: &[
            Exists,
            Confirmed,
            Password("PASSWORD"),
            SignedInDuringRun,
            Holds("/signed_in_now"),
        ],
    },
    Journey {
        app: "roundup",
        name: "reset-password",
        account: Account::Seeded("seed"),
        sent_by_another: false,
        // Roundup mails the new password; only the old one no longer working is its record.
        proofs: &[Exists, NotPassword("PASSWORD")],
    },
    Journey {
        app: "trac",
        name: "register-verify-login",
        account: Account::New,
        sent_by_another: false,
        proofs: &[Exists, Confirmed, Password("PASSWORD"), SignedInDuringRun],
    },
    Journey {
        app: "misago",
        name: "register-activate-login",
        account: Account::New,
        sent_by_another: false,
        // Misago writes an account's creation time as its last log-in: the records count a
        // sign-in only after that.
        proofs: &[Exists, Confirmed, Password("PASSWORD"), SignedInDuringRun],
    },
    Journey {
        app: "plone",
        name: "register-set-password-login",
        account: Account::New,
        sent_by_another: false,
        // Plone keeps no confirmation: a registered user's password is a random one until it
        // is set through the emailed link, so the secret being the password is that record.
        proofs: &[Exists, Password("PASSWORD"), SignedInDuringRun],
    },
    Journey {
        app: "plone",
        name: "reset-password",
        account: Account::Seeded("seed"),
        sent_by_another: false,
        proofs: &[
            Password("NEW_PASSWORD"),
            NotPassword("PASSWORD"),
            SignedInDuringRun,
        ],
    },
    Journey {
        app: "misago",
        name: "reset-password",
        account: Account::Seeded("seed"),
        sent_by_another: false,
        proofs: &[
            Password("NEW_PASSWORD"),
            NotPassword("PASSWORD"),
            SignedInDuringRun,
        ],
    },
];

pub(crate) fn journey(app: &str, name: &str) -> &'static Journey {
    JOURNEYS
        .iter()
        .find(|j| j.app == app && j.name == name)
        .unwrap_or_else(|| panic!("no journey {app}/{name} in JOURNEYS"))
}

impl Journey {
    pub(crate) fn def(&self) -> &'static AppDef {
        app_def(self.app)
    }

    pub(crate) fn file(&self, kind: PlanKind) -> PathBuf {
        journeys_dir()
            .join(self.def().dir)
            .join(format!("{}.{}.json", self.name, kind.suffix()))
    }

    pub(crate) fn id(&self) -> String {
        format!("{}/{}", self.app, self.name)
    }

    /// The request a blind plan is written from (`planlock plan GOAL --dry-run`).
    fn request_file(&self) -> PathBuf {
        journeys_dir()
            .join(self.def().dir)
            .join(format!("{}.request.txt", self.name))
    }

    /// Its goal in `goals.json`, as a user would type it.
    pub(crate) fn goal(&self) -> String {
        static GOALS: LazyLock<Value> = LazyLock::new(|| {
            let path = journeys_dir().join("goals.json");
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            serde_json::from_str(&text).expect("goals.json is JSON")
        });
        GOALS["goals"][self.id()]
            .as_str()
            .unwrap_or_else(|| panic!("goals.json has no goal for {}", self.id()))
            .to_string()
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) enum PlanKind {
    Hand,
    Blind,
    /// Written by a model that had planlock's MCP tools and nothing else
    /// (`fixtures/journeys/agent/`), kept as it ran with the bench's literals put back as
    /// the journeys' variables.
    Agent,
}

impl PlanKind {
    pub(crate) const ALL: [PlanKind; 3] = [PlanKind::Hand, PlanKind::Blind, PlanKind::Agent];

    fn suffix(self) -> &'static str {
        match self {
            PlanKind::Hand => "hand",
            PlanKind::Blind => "blind",
            PlanKind::Agent => "agent",
        }
    }
}

/// What the app recorded of a journey.
#[derive(Debug, Clone)]
pub(crate) struct Evidence {
    pub reached: bool,
    /// Each proof with its answer, and what the app holds, in a few words.
    pub seen: String,
}

/// Checks each proof against the app's `records show` answer; `since` is the run's start
/// (Unix seconds).
pub(crate) fn judge(proofs: &[Proof], facts: &Value, since: f64) -> Evidence {
    // An app that keeps whole seconds (Trac's auth_cookie.time is `int(time.time())`) writes
    // a sign-in in the run's first second as before the start: such a time counts from the
    // start's whole second. Finer times count from the start itself.
    let during = |t: f64| {
        t >= if t.fract() == 0.0 {
            since.floor()
        } else {
            since
        }
    };
    let mut missing = Vec::new();
    for proof in proofs {
        let (holds, what) = match *proof {
            Exists => (facts["exists"] == true, "the account exists".to_string()),
            Confirmed => (
                facts["confirmed"] == true,
                "the address is confirmed".to_string(),
            ),
            Password(name) => (
                facts["passwords"][name] == true,
                format!("{{{{secret.{name}}}}} is the password"),
            ),
            NotPassword(name) => (
                facts["passwords"][name] == false,
                format!("{{{{secret.{name}}}}} is no longer the password"),
            ),
            SignedInDuringRun => (
                facts["last_login"].as_f64().is_some_and(during),
                "a sign-in was recorded during the run".to_string(),
            ),
            Holds(pointer) => (
                facts["extra"].pointer(pointer) == Some(&Value::Bool(true)),
                format!("{pointer} holds"),
            ),
            DuringRun(pointer) => (
                facts["extra"]
                    .pointer(pointer)
                    .and_then(Value::as_f64)
                    .is_some_and(during),
                format!("{pointer} is during the run"),
            ),
        };
        if !holds {
            missing.push(what);
        }
    }
    let mut shown = facts.clone();
    if let Some(t) = facts["last_login"].as_f64() {
        shown["last_login"] = json!(format!("{:+.1} s after the run's start", t - since));
    }
    let seen = if missing.is_empty() {
        format!("app: {shown}")
    } else {
        format!(
            "NOT in the app's records: {}; app: {shown}",
            missing.join(", ")
        )
    };
    Evidence {
        reached: missing.is_empty(),
        seen,
    }
}

// ---- Running one journey ----

/// How one run of a journey ended, and what its app recorded.
pub(crate) struct Outcome {
    pub journey: String,
    pub kind: PlanKind,
    /// `succeeded`, `failed`, `cancelled` as the result says; `invalid` when the plan did not
    /// validate; `refused` when the run could not be locked.
    pub status: String,
    pub failed_step: Option<usize>,
    pub step_type: Option<String>,
    pub error_kind: Option<String>,
    pub message: Option<String>,
    pub took: Duration,
    pub warnings: Vec<String>,
    pub evidence: Evidence,
    /// The event log's last steps (up to the failed one), as JSON: what a failure shows.
    pub last_steps: String,
}

impl Outcome {
    /// Reported success with nothing in the app's records to show for it.
    pub fn false_success(&self) -> bool {
        self.status == "succeeded" && !self.evidence.reached
    }

    pub fn verdict(&self) -> &'static str {
        match (self.status.as_str(), self.evidence.reached) {
            ("succeeded", true) => "goal reached",
            ("succeeded", false) => "FALSE SUCCESS",
            ("failed", true) => "failed (app recorded the goal anyway)",
            ("failed", false) => "failed",
            ("invalid", _) => "plan invalid",
            ("refused", _) => "refused before running",
            _ => "not finished",
        }
    }

    /// The failure's sentence, or the first warning's, for the table.
    pub fn sentence(&self) -> String {
        let step = match (self.failed_step, &self.step_type) {
            (Some(i), Some(t)) => format!(
                "step {} ({t}) {}: ",
                i + 1,
                self.error_kind.as_deref().unwrap_or("")
            ),
            _ => String::new(),
        };
        match &self.message {
            Some(m) => format!("{step}{m}"),
            None if !self.warnings.is_empty() => format!("warning at {}", self.warnings[0]),
            None => String::new(),
        }
    }
}

/// Starts the inviter (`records send`) once the run has started.
struct SendsAtStart<'a> {
    events: Recorder,
    send: Option<Box<dyn FnOnce() + Send + 'a>>,
}

impl Listener for SendsAtStart<'_> {
    fn on_event(&mut self, event: &Event) {
        if matches!(event, Event::RunStarted { .. })
            && let Some(send) = self.send.take()
        {
            send();
        }
        self.events.on_event(event);
    }
}

/// A plan's variables: the app's origin, and the account's username (made from the address's
/// local part as the app allows), for apps that ask for one.
fn journey_vars(def: &AppDef, url: &str, address: &str) -> Vars {
    let username = def.username.of(address);
    Vars::from_pairs([format!("{}={url}", def.var), format!("username={username}")])
        .expect("the journeys' variables")
}

/// A password for one run: random, so nothing another run typed can count.
pub(crate) fn fresh_password() -> String {
    format!("Pw.{}.{}", runner::new_run_id(), runner::new_run_id())
}

/// Runs one journey's plan of `kind` against its app (started once) and judges it by the
/// app's records. `None` when there is no such plan (a blind or agent plan not written yet).
pub(crate) fn run_journey(j: &Journey, kind: PlanKind) -> Option<Outcome> {
    let path = j.file(kind);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && kind != PlanKind::Hand => {
            return None;
        }
        Err(e) => panic!("{}: {e}", path.display()),
    };
    Some(run_journey_plan(j, kind, &text))
}

/// One journey at a time on each app, as one person uses a site: an app's single database
/// under concurrent sign-ups can fail its own transactions (Plone's Zope retries a conflicting
/// registration, mailing a link each time, and every attempt may lose), which is the load the
/// tests put on the app, not what a plan did. Runs on different apps still overlap.
fn one_at_a_time(app: &str) -> std::sync::MutexGuard<'static, ()> {
    static TURNS: LazyLock<Mutex<HashMap<String, &'static Mutex<()>>>> =
        LazyLock::new(Mutex::default);
    let turn: &'static Mutex<()> = TURNS
        .lock()
        .unwrap()
        .entry(app.to_string())
        .or_insert_with(|| Box::leak(Box::default()));
    // A journey that panicked still gave its turn back.
    turn.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `text`, a plan for journey `app/name` (its account, mail and proofs), as
/// [`run_journey`] runs the journey's own plans. `None` when the journeys are not installed
/// or no browser is there (outside CI).
pub(crate) fn run_plan_for(app: &str, name: &str, text: &str) -> Option<Outcome> {
    let j = journey(app, name);
    ready_for(j.def()).then(|| run_journey_plan(j, PlanKind::Hand, text))
}

fn run_journey_plan(j: &Journey, kind: PlanKind, text: &str) -> Outcome {
    let def = j.def();
    let app = running(j.app);
    let _turn = one_at_a_time(j.app);
    let run_id = runner::new_run_id();
    let address = mail().run_address(&run_id);
    let secrets = BTreeMap::from([
        ("PASSWORD".to_string(), fresh_password()),
        ("NEW_PASSWORD".to_string(), fresh_password()),
    ]);
    let secret_env = |k: &str| secrets[k].clone();
    if let Account::Seeded(command) = j.account {
        records(
            def,
            app,
            command,
            &address,
            &[("JOURNEY_PASSWORD", secret_env("PASSWORD"))],
        );
    }
    let vars = journey_vars(def, &app.url, &address);
    let outcome = |status: &str, message: String| Outcome {
        journey: j.id(),
        kind,
        status: status.to_string(),
        failed_step: None,
        step_type: None,
        error_kind: None,
        message: Some(message),
        took: Duration::ZERO,
        warnings: Vec::new(),
        evidence: Evidence {
            reached: false,
            seen: "not run".to_string(),
        },
        last_steps: String::new(),
    };
    let plan = match plan::parse_and_validate(text, &Limits::default(), &vars) {
        Ok(plan) => plan,
        Err(e) => return outcome("invalid", e.to_string()),
    };
    let spec = RunSpec::new(plan)
        .named(j.id())
        .run_id(run_id.clone())
        .vars(vars)
        .secrets(Secrets::none().with_given(secrets.clone()))
        .inbox(None, mail().clone())
        .allow_host("127.0.0.1");
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs_f64();
    let inviter = std::thread::scope(|scope| {
        let mut listener = SendsAtStart {
            events: Recorder::default(),
            send: j.sent_by_another.then(|| {
                let address = address.clone();
                Box::new(move || {
                    scope.spawn(move || records(def, app, "send", &address, &[]));
                }) as Box<dyn FnOnce() + Send + '_>
            }),
        };
        util::rt().block_on(async {
            let run = spec.lock().await?;
            let browser = util::browser().expect("browser");
            Ok::<_, runner::SpecError>(
                runner::run(browser, run, &mut listener, CancellationToken::new()).await,
            )
        })
    });
    let result = match inviter {
        Ok(result) => result,
        Err(e) => return outcome("refused", e.to_string()),
    };
    let passwords = serde_json::to_string(&secrets).expect("JSON");
    let facts = records(
        def,
        app,
        "show",
        &address,
        &[("JOURNEY_PASSWORDS", passwords)],
    );
    let evidence = judge(j.proofs, &facts, since);
    let json = serde_json::to_value(&result).expect("a result is JSON");
    let text = |v: &Value| v.as_str().map(str::to_string);
    Outcome {
        journey: j.id(),
        kind,
        status: text(&json["status"]).unwrap_or_default(),
        failed_step: result.failed_step,
        step_type: result
            .failed_step
            .and_then(|i| text(&json["steps"][i]["type"])),
        error_kind: text(&json["error"]["kind"]),
        message: text(&json["error"]["message"]),
        took: Duration::from_millis(result.duration_ms),
        warnings: json["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|w| {
                let step = w["step"].as_u64().map_or(0, |i| i + 1);
                format!(
                    "step {step}: {}",
                    w["error"]["message"].as_str().unwrap_or("")
                )
            })
            .collect(),
        evidence,
        last_steps: last_steps(&json),
    }
}

/// The last three steps of a result's event log, up to the failed one, as pretty JSON.
fn last_steps(result: &Value) -> String {
    let steps = result["steps"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let end = result["failed_step"]
        .as_u64()
        .map_or(steps.len(), |i| (i as usize + 1).min(steps.len()));
    let last = &steps[end.saturating_sub(3)..end];
    serde_json::to_string_pretty(last).expect("JSON")
}

// ---- The table ----

pub(crate) const TABLE_HEAD: &str = "| journey | plan | outcome | took | failure / warning | app's records |\n\
                                     |---|---|---|---|---|---|";

pub(crate) fn row(o: &Outcome) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let cut = |s: String, n: usize| {
        if s.chars().count() > n {
            format!("{}…", s.chars().take(n).collect::<String>())
        } else {
            s
        }
    };
    let mut outcome = o.verdict().to_string();
    if !o.warnings.is_empty() {
        let _ = write!(outcome, ", {} warning(s)", o.warnings.len());
    }
    format!(
        "| {} | {} | {} | {:.1} s | {} | {} |",
        o.journey,
        o.kind.suffix(),
        outcome,
        o.took.as_secs_f64(),
        cell(&cut(o.sentence(), 240)),
        cell(&cut(o.evidence.seen.clone(), 200)),
    )
}

// ---- The tests ----

pub(crate) fn ready() -> bool {
    util::browser().is_some() && installed()
}

/// [`ready`], and the app's PostgreSQL there when it needs one (outside CI a missing one
/// skips its journeys; in CI it fails them).
pub(crate) fn ready_for(def: &AppDef) -> bool {
    ready() && (!def.postgres || util::postgres::server().is_some())
}

/// A hand plan reaches its goal: the run succeeds and the app records it.
fn hand(app: &str, name: &str) {
    let j = journey(app, name);
    if !ready_for(j.def()) {
        return;
    }
    let o = run_journey(j, PlanKind::Hand).expect("every journey has a hand plan");
    eprintln!("{}", row(&o));
    assert!(
        !o.false_success(),
        "FALSE SUCCESS: {} reported succeeded, but {}",
        j.id(),
        o.evidence.seen
    );
    assert!(
        o.status == "succeeded" && o.evidence.reached,
        "the hand plan of {} did not reach its goal:\n{TABLE_HEAD}\n{}\nerror: {}\nwarnings: {:?}\n{}\nthe last steps:\n{}",
        j.id(),
        row(&o),
        o.message.as_deref().unwrap_or("none"),
        o.warnings,
        o.evidence.seen,
        o.last_steps
    );
}

/// A blind or agent plan runs as written: a failure is recorded (the table), a false success
/// fails.
fn as_written(app: &str, name: &str, kind: PlanKind) {
    let j = journey(app, name);
    if !ready_for(j.def()) {
        return;
    }
    let Some(o) = run_journey(j, kind) else {
        eprintln!("{}: no {} plan yet", j.id(), kind.suffix());
        return;
    };
    eprintln!("{}", row(&o));
    assert!(
        !o.false_success(),
        "FALSE SUCCESS: the {} plan of {} reported succeeded, but {}",
        kind.suffix(),
        j.id(),
        o.evidence.seen
    );
}

macro_rules! journey_tests {
    ($($test:ident: $app:literal / $name:literal $(, #[$hand_attr:meta])?;)*) => {
        /// Every journey, each with a test of its own: (test, app, journey).
        const TESTED: &[(&str, &str)] = &[$(($app, $name)),*];
        /// The hand plans: each must reach its goal.
        mod hand {
            $(
                #[test]
                $(#[$hand_attr])?
                fn $test() {
                    super::hand($app, $name);
                }
            )*
        }
        /// The blind plans, as written: none may succeed without its goal.
        mod blind {
            $(
                #[test]
                fn $test() {
                    super::as_written($app, $name, super::PlanKind::Blind);
                }
            )*
        }
        /// The agent's plans, as kept: none may succeed without its goal.
        mod agent {
            $(
                #[test]
                fn $test() {
                    super::as_written($app, $name, super::PlanKind::Agent);
                }
            )*
        }
    };
}

journey_tests! {
    allauth_signup_confirm_login: "allauth" / "signup-confirm-login";
    allauth_reset_password: "allauth" / "reset-password";
    allauth_login_by_code: "allauth" / "login-by-code";
    allauth_signup_code_login: "allauth-code" / "signup-code-login";
    allauth_reset_password_by_code: "allauth-code" / "reset-password-by-code";
    redux_register_activate_login: "redux" / "register-activate-login";
    redux_reset_password: "redux" / "reset-password";
    trac_register_verify_login: "trac" / "register-verify-login";
    twofactor_login_email_code: "twofactor" / "login-email-code";
    twofactor_setup_email_factor: "twofactor" / "setup-email-factor";
    magiclink_login: "magiclink" / "login";
    invitations_accept_invitation: "invitations" / "accept-invitation";
    appbuilder_register_activate_login: "appbuilder" / "register-activate-login";
    roundup_register_confirm_login: "roundup" / "register-confirm-login";
    roundup_reset_password: "roundup" / "reset-password";
    security_register_confirm_login: "security" / "register-confirm-login";
    security_reset_password: "security" / "reset-password";
    security_two_factor_email: "security" / "two-factor-email";
    security_unified_signin_code: "security" / "unified-signin-code";
    wagtail_reset_password: "wagtail" / "reset-password";
    misago_register_activate_login: "misago" / "register-activate-login",
        #[ignore = "after the sign-in Misago's own reload does not show Start thread (FINDINGS.md 6)"];
    misago_reset_password: "misago" / "reset-password",
        #[ignore = "after the sign-in Misago's own reload does not show Start thread (FINDINGS.md 6)"];
    plone_register_set_password_login: "plone" / "register-set-password-login";
    plone_reset_password: "plone" / "reset-password";
}

/// Every journey has a test, a hand plan that validates, and its app; every plan on disk
/// belongs to a journey.
#[test]
fn every_journey_has_its_test_and_plans() {
    let tested: Vec<(&str, &str)> = TESTED.to_vec();
    for j in JOURNEYS {
        assert!(
            tested.contains(&(j.app, j.name)),
            "{} has no test in journey_tests!",
            j.id()
        );
        let vars = journey_vars(j.def(), "http://127.0.0.1:1", "run-x@journeys.example");
        for kind in PlanKind::ALL {
            let path = j.file(kind);
            let Ok(text) = std::fs::read_to_string(&path) else {
                assert_ne!(kind, PlanKind::Hand, "{}: missing", path.display());
                continue;
            };
            if kind == PlanKind::Hand {
                plan::parse_and_validate(&text, &Limits::default(), &vars)
                    .unwrap_or_else(|e| panic!("{} is invalid: {e}", path.display()));
            }
        }
    }
    for &(app, name) in TESTED {
        journey(app, name);
    }
    for j in JOURNEYS {
        let goal = j.goal();
        assert!(
            goal.contains(&format!("{{{{{}}}}}", j.def().var)),
            "{}: the goal names its start page by {{{{{}}}}}",
            j.id(),
            j.def().var
        );
        let request = std::fs::read_to_string(j.request_file()).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (cargo test --test it -- --ignored --exact journeys::write_blind_requests)",
                j.request_file().display()
            )
        });
        let sent: Value = serde_json::from_str(&request).expect("a request is JSON");
        let message = sent["body"]["messages"][0]["content"]
            .as_str()
            .unwrap_or_default();
        assert!(
            message.contains(&format!("Goal: {goal}\n")),
            "{}: the request is not for today's goal (write it again)",
            j.id()
        );
        assert!(
            message.contains("<page-outline-"),
            "{}: the request carries no look at the start page",
            j.id()
        );
    }
    for def in APPS {
        for entry in std::fs::read_dir(journeys_dir().join(def.dir)).expect("the app's folder") {
            let file = entry.unwrap().file_name().to_string_lossy().into_owned();
            if let Some(stem) = file
                .strip_suffix(".hand.json")
                .or_else(|| file.strip_suffix(".blind.json"))
                .or_else(|| file.strip_suffix(".agent.json"))
            {
                assert!(
                    JOURNEYS
                        .iter()
                        .any(|j| j.def().dir == def.dir && j.name == stem),
                    "{}/{file} belongs to no journey",
                    def.dir
                );
            }
        }
    }
}

/// The judge can say no: an account that nobody acted on proves none of the journeys.
#[test]
fn an_account_nobody_used_proves_nothing() {
    if !ready() {
        return;
    }
    // One untouched account per app and way of making it, judged by every journey that
    // starts from such an account.
    let mut untouched: BTreeMap<(&str, &str), (Value, f64)> = BTreeMap::new();
    for j in JOURNEYS.iter().filter(|j| ready_for(j.def())) {
        let seed = match j.account {
            Account::New => None,
            Account::Seeded(command) => Some(command),
        };
        let (facts, since) = untouched
            .entry((j.app, seed.unwrap_or("new")))
            .or_insert_with(|| {
                let (def, app) = (j.def(), running(j.app));
                let address = mail().run_address(&runner::new_run_id());
                let password = fresh_password();
                if let Some(command) = seed {
                    records(
                        def,
                        app,
                        command,
                        &address,
                        &[("JOURNEY_PASSWORD", password.clone())],
                    );
                }
                let since = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .unwrap()
                    .as_secs_f64();
                let passwords =
                    json!({"PASSWORD": password, "NEW_PASSWORD": fresh_password()}).to_string();
                let facts = records(
                    def,
                    app,
                    "show",
                    &address,
                    &[("JOURNEY_PASSWORDS", passwords)],
                );
                (facts, since)
            });
        let evidence = judge(j.proofs, facts, *since);
        assert!(!evidence.reached, "{}: {}", j.id(), evidence.seen);
    }
}

/// An account made once the run has started, which nobody signed in to, shows no sign-in
/// during the run, in every app that seeds accounts: an app that writes something else into
/// the field its records read as the last sign-in (Misago writes an account's creation time
/// into `last_login`) must not prove a sign-in that never happened.
#[test]
fn an_account_made_during_the_run_shows_no_sign_in() {
    for def in APPS.iter().filter(|def| ready_for(def)) {
        let Some(seed) = JOURNEYS.iter().find_map(|j| match j.account {
            Account::Seeded(command) if j.app == def.key => Some(command),
            _ => None,
        }) else {
            continue;
        };
        let app = running(def.key);
        let address = mail().run_address(&runner::new_run_id());
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        let password = fresh_password();
        records(
            def,
            app,
            seed,
            &address,
            &[("JOURNEY_PASSWORD", password.clone())],
        );
        let facts = records(
            def,
            app,
            "show",
            &address,
            &[(
                "JOURNEY_PASSWORDS",
                json!({ "PASSWORD": password }).to_string(),
            )],
        );
        let made = judge(&[Exists, Password("PASSWORD")], &facts, since);
        assert!(
            made.reached,
            "{}: `{seed}` made no account: {}",
            def.key, made.seen
        );
        let signed_in = judge(&[SignedInDuringRun], &facts, since);
        assert!(!signed_in.reached, "{}: {}", def.key, signed_in.seen);
    }
}

/// Writes each journey's missing `.request.txt`: exactly what `planlock plan GOAL --dry-run`
/// prints with the app running, the request a blind writer gets and nothing else. A request
/// that exists is never rewritten: a blind plan may have been written from it (delete it
/// first, for a journey that has no blind plan yet, to write it anew).
#[test]
#[ignore = "writes the blind writers' missing requests: run it after adding a journey"]
fn write_blind_requests() {
    if !ready() {
        return;
    }
    for j in JOURNEYS
        .iter()
        .filter(|j| !j.request_file().exists() && ready_for(j.def()))
    {
        let app = running(j.app);
        let goal = j.goal();
        let mut plan = util::planlock();
        plan.args(["plan", &goal, "--dry-run", "--look=required"])
            .args(["--var", &format!("{}={}", j.def().var, app.url)]);
        if goal.contains("{{username}}") {
            let username = j.def().username.of(&format!("run-x@{MAIL_DOMAIN}"));
            plan.args(["--var", &format!("username={username}")]);
        }
        let out = plan
            .args(["--inbox-address", &format!("run@{MAIL_DOMAIN}")])
            .env_remove("PLANLOCK_MODEL")
            .output()
            .expect("run planlock plan --dry-run");
        assert!(
            out.status.success(),
            "{}: {}",
            j.id(),
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::write(j.request_file(), &out.stdout).expect("write the request");
        eprintln!("{}: {}", j.id(), j.request_file().display());
    }
}

/// Every journey's hand, blind and agent plan, one after another, as one table
/// (`scripts/bench --journeys`); fails after printing it when a run was a false success.
#[test]
#[ignore = "the whole table, one journey after another: scripts/bench --journeys"]
fn journeys_table() {
    if !ready() {
        return;
    }
    let mut outcomes = Vec::new();
    for j in JOURNEYS.iter().filter(|j| ready_for(j.def())) {
        for kind in PlanKind::ALL {
            if let Some(o) = run_journey(j, kind) {
                eprintln!("{}", row(&o));
                outcomes.push(o);
            }
        }
    }
    println!("\n{TABLE_HEAD}");
    for o in &outcomes {
        println!("{}", row(o));
    }
    println!();
    for def in APPS.iter().filter(|def| ready_for(def)) {
        {
            let app = running(def.key);
            println!(
                "{} ({}) started in {:.1} s",
                def.key,
                def.what,
                app.started_in.as_secs_f64()
            );
        }
    }
    let reached = |kind| {
        let of: Vec<&Outcome> = outcomes.iter().filter(|o| o.kind == kind).collect();
        let hit = of
            .iter()
            .filter(|o| o.status == "succeeded" && o.evidence.reached)
            .count();
        format!("{hit} of {}", of.len())
    };
    let mut times: Vec<f64> = outcomes.iter().map(|o| o.took.as_secs_f64()).collect();
    times.sort_by(f64::total_cmp);
    let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
    let worst = times.last().copied().unwrap_or(0.0);
    let false_successes: Vec<&Outcome> = outcomes.iter().filter(|o| o.false_success()).collect();
    println!(
        "goals reached: hand {}, blind {}, agent {}; median {median:.1} s, worst {worst:.1} s",
        reached(PlanKind::Hand),
        reached(PlanKind::Blind),
        reached(PlanKind::Agent)
    );
    println!("FALSE SUCCESSES: {}", false_successes.len());
    for o in &false_successes {
        println!("  {} ({}): {}", o.journey, o.kind.suffix(), o.evidence.seen);
    }
    assert!(
        false_successes.is_empty(),
        "{} false successes",
        false_successes.len()
    );
}

#[test]
fn a_sign_in_in_the_runs_first_second_counts_when_the_app_keeps_whole_seconds() {
    let at = |t: f64| judge(&[SignedInDuringRun], &json!({ "last_login": t }), 1000.7).reached;
    assert!(at(1000.0), "whole seconds: the start's second is the run's");
    assert!(at(1001.0) && at(1000.9));
    assert!(
        !at(1000.5),
        "a finer time before the start is not the run's"
    );
    assert!(!at(999.0), "nor a second before the start's");
}
