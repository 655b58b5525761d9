//! Where the service keeps runs: their state, events as they happen, results and failure
//! screenshots, in SQLite (one server) or PostgreSQL (replicas sharing runs). The same
//! queries serve both; the schema lives in `migrations/`.

use std::path::PathBuf;
use std::time::Duration;

use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::any::{AnyArguments, AnyPoolOptions, AnyRow};
use sqlx::migrate::Migrator;
use sqlx::query::Query;
use sqlx::{Any, AnyPool, Row};

use crate::runner::{Event, RunResult, RunStatus, StepRef};

mod queue;
pub use queue::{Admission, Notice, Refusal};

/// Why the store cannot be used, as a sentence.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(String);

impl From<String> for StoreError {
    fn from(sentence: String) -> StoreError {
        StoreError(sentence)
    }
}

impl StoreError {
    fn db(what: &str, e: sqlx::Error) -> StoreError {
        StoreError(format!("the run store could not {what}: {e}"))
    }
}

type Result<T> = std::result::Result<T, StoreError>;

/// Which database the store is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// The run store. Cheap to clone (a connection pool).
#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    /// Where it is, for logs (no password).
    place: String,
    /// The PostgreSQL URL, for the connection that listens for notifications.
    url: Option<String>,
}

/// Where a run stands: waiting for a slot, running, or ended as its result says. The store
/// keeps it as its word (`queued`, `running`, `succeeded`, `failed`, `cancelled`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantNames,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum RunState {
    Queued,
    Running,
    Succeeded,
    Failed,
    Cancelled,
}

impl RunState {
    /// The word the store and the API use.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl From<RunStatus> for RunState {
    fn from(status: RunStatus) -> RunState {
        match status {
            RunStatus::Succeeded => RunState::Succeeded,
            RunStatus::Failed => RunState::Failed,
            RunStatus::Cancelled => RunState::Cancelled,
        }
    }
}

/// A run as the store knows it.
#[derive(Debug, Clone)]
pub struct StoredRun {
    pub id: String,
    pub status: RunState,
    pub owner: String,
    pub times: RunTimes,
    pub plan: StoredPlan,
    pub summary: Option<String>,
    pub result: Option<RunResult>,
    /// The webhook, when the run has a `callback_url`.
    pub webhook: Option<StoredWebhook>,
}

impl StoredRun {
    /// Where its webhook delivery stands, when it has one.
    pub fn callback(&self) -> Option<CallbackState> {
        self.webhook.as_ref().map(|w| w.delivery.clone())
    }
}

/// When a run was recorded, started and ended, in milliseconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunTimes {
    pub created_ms: i64,
    pub started_ms: Option<i64>,
    pub finished_ms: Option<i64>,
}

/// What a run runs: its plan and the sites its lock allowed.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredPlan {
    pub name: Option<String>,
    pub steps_total: i64,
    /// The plan's steps; empty for runs recorded before the store kept them.
    pub steps: Vec<StepRef>,
    pub allowed_hosts: Vec<String>,
}

/// A run's webhook: where its delivery stands, and the hosts its receiver is judged by.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredWebhook {
    pub delivery: CallbackState,
    /// The hosts the request allowed; empty for runs recorded before the store kept them.
    pub hosts: Vec<String>,
}

/// Where a run's webhook delivery stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CallbackState {
    pub url: String,
    /// `pending`, `delivered` or `failed` (every attempt used, or the address refused).
    pub status: Option<String>,
    pub attempts: i64,
    pub last_error: Option<String>,
}

/// What a new run is recorded with.
pub struct NewRun<'a> {
    pub id: &'a str,
    pub owner: &'a str,
    pub steps: &'a [StepRef],
    pub plan_name: Option<&'a str>,
    pub allowed_hosts: &'a [String],
    pub callback_url: Option<&'a str>,
    pub callback_hosts: &'a [String],
}

/// The columns every new run is recorded with, as [`NewRun::bind`] binds them: `$1` to `$9`
/// (the creation time is also the first heartbeat). A statement adds its own after them.
const NEW_RUN_COLUMNS: &str = "id, created_ms, heartbeat_ms, steps_total, plan_name, \
                               allowed_hosts, callback_url, callback_status, steps, \
                               callback_hosts";
const NEW_RUN_VALUES: &str = "$1, $2, $2, $3, $4, $5, $6, $7, $8, $9";

impl NewRun<'_> {
    /// Binds this run's [`NEW_RUN_COLUMNS`], recorded at `now`, to `statement`.
    fn bind<'q>(
        &self,
        statement: Query<'q, Any, AnyArguments<'q>>,
        now: i64,
    ) -> Query<'q, Any, AnyArguments<'q>> {
        statement
            .bind(self.id.to_string())
            .bind(now)
            .bind(self.steps.len() as i64)
            .bind(self.plan_name.map(str::to_string))
            .bind(json!(self.allowed_hosts).to_string())
            .bind(self.callback_url.map(str::to_string))
            .bind(self.callback_url.map(|_| "pending".to_string()))
            .bind(json!(self.steps).to_string())
            .bind(json!(self.callback_hosts).to_string())
    }
}

/// One page of `GET /v1/runs`.
pub struct Page {
    pub runs: Vec<StoredRun>,
    /// Where the next page starts, when there is one.
    pub next: Option<String>,
}

/// Milliseconds since the Unix epoch, the store's clock.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// RFC 3339 with milliseconds, as events have them.
pub fn timestamp(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The migrations of `migrations/BACKEND/`, compiled in (`NNNN_words.sql`: version NNNN,
/// description "words", as the stores made before used).
static SQLITE_MIGRATIONS: Migrator = sqlx::migrate!("migrations/sqlite");
static POSTGRES_MIGRATIONS: Migrator = sqlx::migrate!("migrations/postgres");

const COLUMNS: &str = "id, status, owner, created_ms, started_ms, finished_ms, steps_total, \
                       plan_name, allowed_hosts, summary, result, callback_url, \
                       callback_status, callback_attempts, callback_error, steps, callback_hosts";

/// Where runs go by default: `$XDG_DATA_HOME/planlock/runs.sqlite3`, else
/// `~/.local/share/planlock/runs.sqlite3`, else the temp dir.
pub fn default_sqlite_path() -> PathBuf {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".local/share"))
        })
        .unwrap_or_else(std::env::temp_dir);
    data.join("planlock").join("runs.sqlite3")
}

impl Store {
    /// Opens `sqlite:PATH` (created when missing) or `postgres://…`, and brings its schema up
    /// to date.
    pub async fn open(spec: &str) -> Result<Store> {
        sqlx::any::install_default_drivers();
        let spec = spec.trim();
        let (backend, url, place) = if let Some(path) = spec.strip_prefix("sqlite:") {
            let path = path.trim_start_matches("//");
            if path.is_empty() {
                return Err(StoreError(
                    "`sqlite:` names no file: give sqlite:PATH, e.g. \
                     sqlite:/var/lib/planlock/runs.sqlite3"
                        .into(),
                ));
            }
            if let Some(dir) = std::path::Path::new(path).parent()
                && !dir.as_os_str().is_empty()
            {
                std::fs::create_dir_all(dir).map_err(|e| {
                    StoreError(format!(
                        "cannot create {} for the run store: {e}",
                        dir.display()
                    ))
                })?;
            }
            (
                Backend::Sqlite,
                format!("sqlite://{path}?mode=rwc"),
                path.to_string(),
            )
        } else if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
            (Backend::Postgres, spec.to_string(), redact(spec))
        } else {
            return Err(StoreError(format!(
                "`{}` is not a store: give sqlite:PATH or postgres://USER:PASS@HOST/DB",
                redact(spec)
            )));
        };
        let options = AnyPoolOptions::new()
            .max_connections(match backend {
                // One writer at a time either way; a few readers beside it.
                Backend::Sqlite => 4,
                Backend::Postgres => 8,
            })
            .acquire_timeout(Duration::from_secs(10));
        let options = if backend == Backend::Sqlite {
            options.after_connect(|conn, _| {
                Box::pin(async move {
                    // Readers never wait for the writer; writers wait for each other a while.
                    sqlx::query("PRAGMA journal_mode = WAL")
                        .execute(&mut *conn)
                        .await?;
                    sqlx::query("PRAGMA busy_timeout = 10000")
                        .execute(&mut *conn)
                        .await?;
                    sqlx::query("PRAGMA synchronous = NORMAL")
                        .execute(&mut *conn)
                        .await?;
                    Ok(())
                })
            })
        } else {
            options
        };
        let pool = options
            .connect(&url)
            .await
            .map_err(|e| StoreError(format!("cannot open the run store {place}: {e}")))?;
        let migrator = match backend {
            Backend::Sqlite => &SQLITE_MIGRATIONS,
            Backend::Postgres => &POSTGRES_MIGRATIONS,
        };
        migrator.run(&pool).await.map_err(|e| {
            StoreError(format!(
                "cannot bring the run store {place} up to date: {e}"
            ))
        })?;
        Ok(Store {
            pool,
            url: (backend == Backend::Postgres).then_some(url),
            backend,
            place,
        })
    }

    /// Runs one statement and says how many rows it changed; `what` completes "the run store
    /// could not …" when it fails.
    async fn execute<'q>(
        &self,
        statement: Query<'q, Any, AnyArguments<'q>>,
        what: &str,
    ) -> Result<u64> {
        let done = statement
            .execute(&self.pool)
            .await
            .map_err(|e| StoreError::db(what, e))?;
        Ok(done.rows_affected())
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Where the store is (no password), for logs.
    pub fn place(&self) -> &str {
        &self.place
    }

    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// Records a run as queued, owned by `run.owner`.
    pub async fn create(&self, run: &NewRun<'_>) -> Result<()> {
        let sql = format!(
            "INSERT INTO runs ({NEW_RUN_COLUMNS}, status, owner) \
             VALUES ({NEW_RUN_VALUES}, 'queued', $10)"
        );
        let statement = run.bind(sqlx::query(&sql), now_ms()).bind(run.owner);
        self.execute(statement, "record a new run").await?;
        Ok(())
    }

    /// A queued run starts.
    pub async fn set_running(&self, id: &str) -> Result<()> {
        let now = now_ms();
        let statement = sqlx::query(
            "UPDATE runs SET status = 'running', started_ms = $2, heartbeat_ms = $2 \
             WHERE id = $1 AND status = 'queued'",
        )
        .bind(id)
        .bind(now);
        self.execute(statement, "mark a run as started").await?;
        Ok(())
    }

    pub async fn append_event(&self, id: &str, seq: i64, event: &Event) -> Result<()> {
        let line = serde_json::to_string(event)
            .map_err(|e| StoreError(format!("an event is not JSON: {e}")))?;
        let statement =
            sqlx::query("INSERT INTO run_events (run_id, seq, event) VALUES ($1, $2, $3)")
                .bind(id)
                .bind(seq)
                .bind(line);
        self.execute(statement, "record an event").await?;
        Ok(())
    }

    pub async fn put_screenshot(&self, id: &str, file: &str, png: Vec<u8>) -> Result<()> {
        let statement = sqlx::query(
            "INSERT INTO screenshots (run_id, file, png) VALUES ($1, $2, $3) \
             ON CONFLICT (run_id, file) DO NOTHING",
        )
        .bind(id)
        .bind(file)
        .bind(png);
        self.execute(statement, "keep a screenshot").await?;
        Ok(())
    }

    /// Records the result of a run that has not ended yet (an ended one keeps its own).
    /// Returns whether this call ended it.
    pub async fn finish(&self, result: &RunResult) -> Result<bool> {
        let text = serde_json::to_string(result)
            .map_err(|e| StoreError(format!("a result is not JSON: {e}")))?;
        let statement = sqlx::query(
            "UPDATE runs SET status = $2, summary = $3, result = $4, finished_ms = $5, \
             request = NULL WHERE id = $1 AND status IN ('queued', 'running')",
        )
        .bind(&result.run_id)
        .bind(RunState::from(result.status).as_str())
        .bind(&result.summary)
        .bind(text)
        .bind(now_ms());
        let done = self.execute(statement, "record a result").await?;
        Ok(done == 1)
    }

    pub async fn get(&self, id: &str) -> Result<Option<StoredRun>> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM runs WHERE id = $1"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| StoreError::db("read a run", e))?;
        row.map(|r| stored_run(&r)).transpose()
    }

    /// The run's events, in order.
    pub async fn events(&self, id: &str) -> Result<Vec<Event>> {
        // Sequence numbers start at 0.
        self.events_from(id, 0).await
    }

    pub async fn screenshot(&self, id: &str, file: &str) -> Result<Option<Vec<u8>>> {
        let row = sqlx::query("SELECT png FROM screenshots WHERE run_id = $1 AND file = $2")
            .bind(id)
            .bind(file)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| StoreError::db("read a screenshot", e))?;
        row.map(|r| r.try_get::<Vec<u8>, _>("png"))
            .transpose()
            .map_err(|e| StoreError::db("read a screenshot", e))
    }

    /// Asks the run's owner to cancel it. False when the run has already ended.
    pub async fn request_cancel(&self, id: &str) -> Result<bool> {
        let statement = sqlx::query(
            "UPDATE runs SET cancel_requested = 1 WHERE id = $1 AND status IN ('queued', 'running')",
        )
        .bind(id);
        let done = self
            .execute(statement, "ask for a run's cancellation")
            .await?;
        Ok(done == 1)
    }

    /// The live runs of `owner` someone asked to cancel.
    pub async fn cancel_requests(&self, owner: &str) -> Result<Vec<String>> {
        let rows = sqlx::query(
            "SELECT id FROM runs WHERE owner = $1 AND cancel_requested = 1 \
             AND status IN ('queued', 'running')",
        )
        .bind(owner)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| StoreError::db("read cancellation requests", e))?;
        rows.iter()
            .map(|r| r.try_get("id").map_err(|e| StoreError::db("read", e)))
            .collect()
    }

    /// `owner` is alive: its live runs' lease is renewed.
    pub async fn heartbeat(&self, owner: &str) -> Result<()> {
        let statement = sqlx::query(
            "UPDATE runs SET heartbeat_ms = $2 WHERE owner = $1 AND status IN ('queued', 'running')",
        )
        .bind(owner)
        .bind(now_ms());
        self.execute(statement, "renew its runs' lease").await?;
        Ok(())
    }

    /// Live runs whose owner is gone: those of `owner` (this replica's earlier life), or
    /// any whose lease ran out before `stale_before_ms`. A run waiting in the shared queue
    /// has no owner yet and is never one of them.
    pub async fn orphans(
        &self,
        owner: Option<&str>,
        stale_before_ms: i64,
    ) -> Result<Vec<StoredRun>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM runs WHERE status IN ('queued', 'running') \
             AND owner <> '' AND (owner = $1 OR heartbeat_ms < $2)"
        ))
        .bind(owner.unwrap_or(""))
        .bind(stale_before_ms)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| StoreError::db("look for interrupted runs", e))?;
        rows.iter().map(stored_run).collect()
    }

    /// Runs newest first, `status` only when given, from `cursor` on.
    pub async fn list(
        &self,
        status: Option<&str>,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page> {
        let after = match cursor {
            Some(c) => Some(
                decode_cursor(c)
                    .ok_or_else(|| StoreError(format!("`{c}` is not a cursor this server gave")))?,
            ),
            None => None,
        };
        let mut conditions = Vec::new();
        let mut n = 1;
        if after.is_some() {
            conditions.push("(created_ms < $1 OR (created_ms = $1 AND id < $2))".to_string());
            n = 3;
        }
        if status.is_some() {
            conditions.push(format!("status = ${n}"));
            n += 1;
        }
        let filter = if conditions.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", conditions.join(" AND "))
        };
        let sql = format!(
            "SELECT {COLUMNS} FROM runs {filter} ORDER BY created_ms DESC, id DESC LIMIT ${n}"
        );
        let mut query = sqlx::query(&sql);
        if let Some((ms, id)) = after {
            query = query.bind(ms).bind(id);
        }
        if let Some(s) = status {
            query = query.bind(s.to_string());
        }
        let query = query.bind(limit as i64 + 1);
        let rows = query
            .fetch_all(&self.pool)
            .await
            .map_err(|e| StoreError::db("list runs", e))?;
        let mut runs: Vec<StoredRun> = rows.iter().map(stored_run).collect::<Result<_>>()?;
        let next = if runs.len() > limit {
            runs.truncate(limit);
            runs.last()
                .map(|r| encode_cursor(r.times.created_ms, &r.id))
        } else {
            None
        };
        Ok(Page { runs, next })
    }

    /// Forgets runs that ended before `before_ms`, with their events and screenshots.
    /// Returns how many.
    pub async fn forget_finished_before(&self, before_ms: i64) -> Result<u64> {
        let mut tx = self
            .pool
            .begin()
            .await
            .map_err(|e| StoreError::db("forget old runs", e))?;
        let old = "SELECT id FROM runs WHERE finished_ms IS NOT NULL AND finished_ms < $1";
        for table in ["run_events", "screenshots"] {
            sqlx::query(&format!("DELETE FROM {table} WHERE run_id IN ({old})"))
                .bind(before_ms)
                .execute(&mut *tx)
                .await
                .map_err(|e| StoreError::db("forget old runs", e))?;
        }
        let done =
            sqlx::query("DELETE FROM runs WHERE finished_ms IS NOT NULL AND finished_ms < $1")
                .bind(before_ms)
                .execute(&mut *tx)
                .await
                .map_err(|e| StoreError::db("forget old runs", e))?;
        tx.commit()
            .await
            .map_err(|e| StoreError::db("forget old runs", e))?;
        Ok(done.rows_affected())
    }

    /// Where a run's webhook delivery stands.
    pub async fn set_callback(
        &self,
        id: &str,
        status: &str,
        attempts: u32,
        error: Option<&str>,
    ) -> Result<()> {
        let statement = sqlx::query(
            "UPDATE runs SET callback_status = $2, callback_attempts = $3, callback_error = $4 \
             WHERE id = $1",
        )
        .bind(id)
        .bind(status)
        .bind(attempts as i64)
        .bind(error.map(str::to_string));
        self.execute(statement, "record a webhook delivery").await?;
        Ok(())
    }
}

fn stored_run(r: &AnyRow) -> Result<StoredRun> {
    let get_err = |e| StoreError::db("read a run", e);
    let text = |col: &str| -> Result<Option<String>> { r.try_get(col).map_err(get_err) };
    let webhook = match text("callback_url")? {
        Some(url) => Some(StoredWebhook {
            delivery: CallbackState {
                url,
                status: text("callback_status")?,
                attempts: r.try_get::<i64, _>("callback_attempts").map_err(get_err)?,
                last_error: text("callback_error")?,
            },
            hosts: read_json(text("callback_hosts")?)?.unwrap_or_default(),
        }),
        None => None,
    };
    Ok(StoredRun {
        id: r.try_get("id").map_err(get_err)?,
        status: {
            let word: String = r.try_get("status").map_err(get_err)?;
            word.parse()
                .map_err(|_| StoreError(format!("a run has the unknown status `{word}`")))?
        },
        owner: r.try_get("owner").map_err(get_err)?,
        times: RunTimes {
            created_ms: r.try_get("created_ms").map_err(get_err)?,
            started_ms: r.try_get("started_ms").map_err(get_err)?,
            finished_ms: r.try_get("finished_ms").map_err(get_err)?,
        },
        plan: StoredPlan {
            name: text("plan_name")?,
            steps_total: r.try_get("steps_total").map_err(get_err)?,
            steps: read_json(text("steps")?)?.unwrap_or_default(),
            allowed_hosts: read_json(text("allowed_hosts")?)?.unwrap_or_default(),
        },
        summary: text("summary")?,
        result: read_json(text("result")?)?,
        webhook,
    })
}

/// A column of JSON this store wrote; an unreadable one is reported, not guessed at.
fn read_json<T: serde::de::DeserializeOwned>(text: Option<String>) -> Result<Option<T>> {
    text.map(|t| serde_json::from_str(&t))
        .transpose()
        .map_err(|e| StoreError(format!("a stored run cannot be read: {e}")))
}

fn encode_cursor(created_ms: i64, id: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{created_ms}:{id}"))
}

/// The place a cursor marks: creation time and id.
pub fn decode_cursor(cursor: &str) -> Option<(i64, String)> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let (ms, id) = text.split_once(':')?;
    Some((ms.parse().ok()?, id.to_string()))
}

/// A database URL as it may be shown: its password hidden.
pub fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("••••"));
            u.to_string()
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_garbage_is_refused() {
        let c = encode_cursor(1_700_000_000_123, "abc23xyz");
        assert_eq!(
            decode_cursor(&c),
            Some((1_700_000_000_123, "abc23xyz".into()))
        );
        assert_eq!(decode_cursor("not a cursor!"), None);
    }

    #[test]
    fn passwords_are_hidden() {
        assert_eq!(
            redact("postgres://planlock:s3cret@db:5432/planlock"),
            "postgres://planlock:%E2%80%A2%E2%80%A2%E2%80%A2%E2%80%A2@db:5432/planlock"
        );
    }

    #[test]
    fn a_sqlite_store_keeps_runs_events_and_pages() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        rt.block_on(async {
            let spec = format!("sqlite:{}", dir.path().join("runs.sqlite3").display());
            let store = Store::open(&spec).await.unwrap();
            let steps = vec![StepRef {
                index: 0,
                step_type: crate::plan::StepType::Done,
                describe: "ok".into(),
            }];
            let started = Event::RunStarted {
                run_id: "run1".into(),
                ts: "2026-12-02T19:56:09.138Z".into(),
                detail: crate::runner::RunStarted {
                    plan: None,
                    steps: 1,
                    inbox_address: None,
                    allowed_hosts: vec!["shop.example".into()],
                    inboxes: Vec::new(),
                },
            };
            let result = |status| RunResult {
                run_id: "run1".into(),
                status,
                summary: "ok".into(),
                failed_step: None,
                error: None,
                steps: Vec::new(),
                extracted: Vec::new(),
                inbox_address: None,
                duration_ms: 1,
                allowed_hosts: vec!["shop.example".into()],
                refused: 0,
                plan: None,
                warnings: Vec::new(),
            };
            for i in 0..5 {
                let id = format!("run{i}");
                store
                    .create(&NewRun {
                        id: &id,
                        owner: "a",
                        steps: &steps,
                        plan_name: None,
                        allowed_hosts: &["shop.example".into()],
                        callback_url: None,
                        callback_hosts: &[],
                    })
                    .await
                    .unwrap();
            }
            store.set_running("run1").await.unwrap();
            store.append_event("run1", 0, &started).await.unwrap();
            use crate::runner::RunStatus;
            assert!(store.finish(&result(RunStatus::Succeeded)).await.unwrap());
            assert!(!store.finish(&result(RunStatus::Failed)).await.unwrap());
            let run = store.get("run1").await.unwrap().unwrap();
            assert_eq!(run.status, RunState::Succeeded);
            assert_eq!(run.plan.allowed_hosts, ["shop.example"]);
            assert_eq!(run.plan.steps, steps);
            assert_eq!(run.result, Some(result(RunStatus::Succeeded)));
            assert_eq!(store.events("run1").await.unwrap(), vec![started]);
            let mut seen = Vec::new();
            let mut cursor = None;
            loop {
                let page = store.list(None, 2, cursor.as_deref()).await.unwrap();
                seen.extend(page.runs.iter().map(|r| r.id.clone()));
                match page.next {
                    Some(n) => cursor = Some(n),
                    None => break,
                }
            }
            seen.sort();
            assert_eq!(seen, ["run0", "run1", "run2", "run3", "run4"]);
            let queued = store.list(Some("queued"), 10, None).await.unwrap();
            assert_eq!(queued.runs.len(), 4);
            // Reopening keeps everything (and the migrations are not run twice).
            store.close().await;
            let store = Store::open(&spec).await.unwrap();
            assert!(store.get("run3").await.unwrap().is_some());
            assert_eq!(store.forget_finished_before(now_ms() + 1).await.unwrap(), 1);
            assert!(store.get("run1").await.unwrap().is_none());
        });
    }
}
