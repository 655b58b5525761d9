//! The shared queue in PostgreSQL: a queued run is a row with no owner; replicas claim rows
//! with `FOR UPDATE SKIP LOCKED` in the order they were accepted, and hear of new rows,
//! cancels, events and ends through `LISTEN` (the database sends them from triggers).
//!
//! Plain SQL rather than a queue crate: the run table already holds every run's state, and a
//! queue library would keep a second table of jobs beside it to be kept in step.

use sqlx::Row;
use sqlx::postgres::PgListener;

use super::{NEW_RUN_COLUMNS, NEW_RUN_VALUES, NewRun, Result, Store, StoreError, now_ms};
use crate::runner::{Event, RunResult};

/// Any number, the same on every replica: the advisory lock that makes counting and
/// inserting one step, so two replicas never both admit a caller's last place.
const ADMISSION_LOCK: i64 = 0x706c_616e_6c6f_636b;

/// What a new run is admitted against, across every replica.
pub struct Admission<'a> {
    /// The caller's key (its token, or its address).
    pub caller: &'a str,
    /// Runs one caller may hold queued and running.
    pub per_caller: usize,
    /// Runs that may wait in the shared queue.
    pub queue: usize,
    /// This replica's free slots: a run it can start at once is never refused.
    pub free_slots: usize,
}

/// Why a run was not admitted, with the counts that said so.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The caller holds its share already.
    Caller,
    /// The shared queue is full.
    Queue,
}

/// A run this replica has just claimed.
pub struct Claimed {
    pub id: String,
    /// What the replica that accepted it kept to run it (JSON).
    pub request: Option<String>,
}

/// A notification: which channel, about which run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// A run was queued: idle replicas may claim it.
    Queued,
    /// Someone asked to cancel this run.
    Cancel(String),
    /// This run has a new event.
    Event(String),
    /// This run has ended.
    Ended(String),
    /// The connection was lost and made again: notices may have been missed.
    Missed,
}

const CHANNELS: [&str; 4] = [
    "planlock_queued",
    "planlock_cancel",
    "planlock_event",
    "planlock_ended",
];

/// The store's notifications, on a connection of their own.
pub struct Notices(PgListener);

impl Notices {
    /// The next notice. A lost connection is made again and said as [`Notice::Missed`].
    pub async fn next(&mut self) -> Result<Notice> {
        match self.0.try_recv().await {
            Ok(Some(n)) => {
                let id = n.payload().to_string();
                Ok(match n.channel() {
                    "planlock_cancel" => Notice::Cancel(id),
                    "planlock_event" => Notice::Event(id),
                    "planlock_ended" => Notice::Ended(id),
                    _ => Notice::Queued,
                })
            }
            Ok(None) => Ok(Notice::Missed),
            Err(e) => Err(StoreError::db("hear from the store", e)),
        }
    }
}

impl Store {
    /// Whether runs wait in the store for any replica (PostgreSQL), rather than in this
    /// server's memory (SQLite).
    pub fn is_shared_queue(&self) -> bool {
        self.url.is_some()
    }

    /// Listens for queued runs, cancels, events and ends.
    pub async fn notices(&self) -> Result<Notices> {
        let url = self
            .url
            .as_deref()
            .ok_or_else(|| StoreError("only a PostgreSQL store sends notices".into()))?;
        let mut listener = PgListener::connect(url)
            .await
            .map_err(|e| StoreError::db("listen for notices", e))?;
        listener
            .listen_all(CHANNELS)
            .await
            .map_err(|e| StoreError::db("listen for notices", e))?;
        Ok(Notices(listener))
    }

    /// Records a run as queued for any replica, unless the caller holds its share or the
    /// shared queue is full: counted and inserted under one lock, so replicas agree.
    pub async fn enqueue(
        &self,
        run: &NewRun<'_>,
        request: &str,
        admission: &Admission<'_>,
    ) -> Result<std::result::Result<(), Refusal>> {
        let fail = |e| StoreError::db("queue a run", e);
        let mut tx = self.pool.begin().await.map_err(fail)?;
        sqlx::query("SELECT 1 FROM (SELECT pg_advisory_xact_lock($1)) AS locked")
            .bind(ADMISSION_LOCK)
            .execute(&mut *tx)
            .await
            .map_err(fail)?;
        let counts = sqlx::query(
            "SELECT count(*) FILTER (WHERE status = 'queued' AND owner = '') AS waiting, \
             count(*) FILTER (WHERE caller = $1) AS held \
             FROM runs WHERE status IN ('queued', 'running')",
        )
        .bind(admission.caller)
        .fetch_one(&mut *tx)
        .await
        .map_err(fail)?;
        let waiting: i64 = counts.try_get("waiting").map_err(fail)?;
        let held: i64 = counts.try_get("held").map_err(fail)?;
        if held as usize >= admission.per_caller {
            return Ok(Err(Refusal::Caller));
        }
        if waiting as usize >= admission.queue && admission.free_slots == 0 {
            return Ok(Err(Refusal::Queue));
        }
        let sql = format!(
            "INSERT INTO runs ({NEW_RUN_COLUMNS}, status, owner, request, caller) \
             VALUES ({NEW_RUN_VALUES}, 'queued', '', $10, $11)"
        );
        run.bind(sqlx::query(&sql), now_ms())
            .bind(request)
            .bind(admission.caller)
            .execute(&mut *tx)
            .await
            .map_err(fail)?;
        tx.commit().await.map_err(fail)?;
        Ok(Ok(()))
    }

    /// Claims up to `n` queued runs for `owner`, oldest first; rows another replica is
    /// claiming are skipped, not waited for. They are `running` from here on, and their
    /// request leaves the store.
    pub async fn claim(&self, owner: &str, n: usize) -> Result<Vec<Claimed>> {
        let rows = sqlx::query(
            "WITH picked AS (SELECT id, request, accepted_seq FROM runs \
             WHERE status = 'queued' AND owner = '' AND cancel_requested = 0 \
             ORDER BY accepted_seq LIMIT $2 FOR UPDATE SKIP LOCKED) \
             UPDATE runs SET status = 'running', owner = $1, started_ms = $3, \
             heartbeat_ms = $3, request = NULL FROM picked WHERE runs.id = picked.id \
             RETURNING runs.id, picked.request, picked.accepted_seq",
        )
        .bind(owner)
        .bind(n as i64)
        .bind(now_ms())
        .fetch_all(&self.pool)
        .await
        .map_err(|e| StoreError::db("claim queued runs", e))?;
        let mut claimed = rows
            .iter()
            .map(|r| {
                let read = |e| StoreError::db("claim queued runs", e);
                Ok((
                    r.try_get::<i64, _>("accepted_seq").map_err(read)?,
                    Claimed {
                        id: r.try_get("id").map_err(read)?,
                        request: r.try_get("request").map_err(read)?,
                    },
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        claimed.sort_by_key(|(seq, _)| *seq);
        Ok(claimed.into_iter().map(|(_, c)| c).collect())
    }

    /// Runs waiting in the shared queue, on every replica's behalf.
    pub async fn queue_depth(&self) -> Result<usize> {
        let row =
            sqlx::query("SELECT count(*) AS n FROM runs WHERE status = 'queued' AND owner = ''")
                .fetch_one(&self.pool)
                .await
                .map_err(|e| StoreError::db("count queued runs", e))?;
        let n: i64 = row
            .try_get("n")
            .map_err(|e| StoreError::db("count queued runs", e))?;
        Ok(n as usize)
    }

    /// Ends a run still waiting in the shared queue with `result` (cancelled before it
    /// started). False when a replica has claimed it, or it has ended.
    pub async fn cancel_queued(&self, result: &RunResult) -> Result<bool> {
        let text = serde_json::to_string(result)
            .map_err(|e| StoreError(format!("a result is not JSON: {e}")))?;
        let statement = sqlx::query(
            "UPDATE runs SET status = 'cancelled', summary = $2, result = $3, finished_ms = $4, \
             request = NULL WHERE id = $1 AND status = 'queued' AND owner = ''",
        )
        .bind(&result.run_id)
        .bind(&result.summary)
        .bind(text)
        .bind(now_ms());
        Ok(self.execute(statement, "cancel a queued run").await? == 1)
    }

    /// Whether someone asked to cancel the run.
    pub async fn cancel_asked(&self, id: &str) -> Result<bool> {
        let row = sqlx::query("SELECT cancel_requested FROM runs WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| StoreError::db("read a cancellation request", e))?;
        Ok(row
            .and_then(|r| r.try_get::<i64, _>("cancel_requested").ok())
            .is_some_and(|n| n != 0))
    }

    /// The run's events from `from` (its sequence number) on, in order.
    pub async fn events_from(&self, id: &str, from: i64) -> Result<Vec<Event>> {
        let rows = sqlx::query(
            "SELECT event FROM run_events WHERE run_id = $1 AND seq >= $2 ORDER BY seq",
        )
        .bind(id)
        .bind(from)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| StoreError::db("read a run's events", e))?;
        rows.iter()
            .map(|r| {
                let text: String = r.try_get("event").map_err(|e| StoreError::db("read", e))?;
                serde_json::from_str(&text)
                    .map_err(|e| StoreError(format!("a stored event cannot be read: {e}")))
            })
            .collect()
    }
}
