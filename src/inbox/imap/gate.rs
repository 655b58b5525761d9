//! The bound on connections to one IMAP account (server and user): servers count connections
//! per user and address (Dovecot: 10, Gmail: 15), so every mailbox of an account draws from
//! one small allowance, and waits in line when it is spent.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use tokio::sync::{Notify, watch};
use tokio::time::{Instant, sleep_until};

use crate::inbox::ImapUrl;

/// Connections in use against an account, and who waits for one.
pub(super) struct Gate {
    account: String,
    state: Mutex<GateState>,
    /// Signalled when a connection is given back.
    freed: Notify,
    /// How many are waiting for a connection. A watcher that keeps an unused connection
    /// gives it up as soon as this is non-zero.
    queue: watch::Sender<usize>,
}

struct GateState {
    limit: usize,
    in_use: usize,
}

/// One connection's share of the allowance, given back on drop.
pub(super) struct Permit {
    gate: Arc<Gate>,
}

impl Gate {
    /// The gate of `url`'s account, shared by every mailbox of it in this process. When URLs
    /// for one account ask for different bounds, the smallest applies.
    pub(super) fn of(url: &ImapUrl) -> Arc<Gate> {
        type Key = (bool, String, u16, String);
        static GATES: OnceLock<Mutex<HashMap<Key, Weak<Gate>>>> = OnceLock::new();
        let key = (url.tls, url.host.clone(), url.port, url.user.clone());
        let mut gates = GATES
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(gate) = gates.get(&key).and_then(Weak::upgrade) {
            let mut state = gate.lock();
            state.limit = state.limit.min(url.max_connections);
            drop(state);
            return gate;
        }
        gates.retain(|_, gate| gate.strong_count() > 0);
        let gate = Arc::new(Gate {
            account: url.server(),
            state: Mutex::new(GateState {
                limit: url.max_connections,
                in_use: 0,
            }),
            freed: Notify::new(),
            queue: watch::Sender::new(0),
        });
        gates.insert(key, Arc::downgrade(&gate));
        gate
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn limit(&self) -> usize {
        self.lock().limit
    }

    /// Watches the number of tasks waiting for a connection.
    pub(super) fn queue(&self) -> watch::Receiver<usize> {
        self.queue.subscribe()
    }

    /// A connection's share, waiting in line until one is free or `until` passes. The
    /// error is a sentence for whoever needed the connection.
    pub(super) async fn enter(self: &Arc<Self>, until: Instant) -> Result<Permit, String> {
        let mut queued: Option<Queued<'_>> = None;
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            // Registered before the check, so a release in between is not missed.
            freed.as_mut().enable();
            {
                let mut state = self.lock();
                if state.in_use < state.limit {
                    state.in_use += 1;
                    return Ok(Permit { gate: self.clone() });
                }
            }
            if queued.is_none() {
                queued = Some(Queued::join(self));
            }
            tokio::select! {
                _ = freed => {}
                _ = sleep_until(until) => {
                    let limit = self.limit();
                    let account = &self.account;
                    return Err(if limit == 1 {
                        format!(
                            "the one connection to {account} (max_connections=1) stayed in use \
                             by another mailbox of this account"
                        )
                    } else {
                        format!(
                            "all {limit} connections to {account} (max_connections={limit}) \
                             stayed in use by other mailboxes of this account"
                        )
                    });
                }
            }
        }
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.gate.lock().in_use -= 1;
        self.gate.freed.notify_one();
    }
}

/// Counts one waiter in [`Gate::queue`] for as long as it lives.
struct Queued<'a>(&'a Gate);

impl<'a> Queued<'a> {
    fn join(gate: &'a Gate) -> Queued<'a> {
        gate.queue.send_modify(|n| *n += 1);
        Queued(gate)
    }
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.0.queue.send_modify(|n| *n -= 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn url(user: &str, max: usize) -> ImapUrl {
        let s = format!("imap://{user}:pw@127.0.0.1:9/?address=a@b.test&max_connections={max}");
        match crate::inbox::parse_url(&s).unwrap() {
            crate::inbox::InboxUrl::Imap(u) => u,
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn waits_in_line_and_gets_the_next_free_connection() {
        let gate = Gate::of(&url("gate-line", 2));
        let soon = || Instant::now() + Duration::from_secs(5);
        let a = gate.enter(soon()).await.unwrap();
        let _b = gate.enter(soon()).await.unwrap();
        let mut queue = gate.queue();
        let waiting = tokio::spawn({
            let gate = gate.clone();
            async move { gate.enter(Instant::now() + Duration::from_secs(5)).await }
        });
        queue.wait_for(|n| *n == 1).await.unwrap();
        assert!(!waiting.is_finished());
        drop(a);
        assert!(waiting.await.unwrap().is_ok());
        assert_eq!(*gate.queue().borrow(), 0);
    }

    #[tokio::test]
    async fn a_full_gate_refuses_with_a_sentence_at_the_deadline() {
        let gate = Gate::of(&url("gate-full", 1));
        let _held = gate.enter(Instant::now()).await.unwrap();
        let e = match gate.enter(Instant::now() + Duration::from_millis(50)).await {
            Err(e) => e,
            Ok(_) => panic!("the only connection is taken"),
        };
        assert_eq!(
            e,
            "the one connection to imap://gate-full@127.0.0.1:9 (max_connections=1) stayed in \
             use by another mailbox of this account"
        );
    }

    #[test]
    fn one_account_one_gate_and_the_smallest_bound_wins() {
        let a = Gate::of(&url("gate-shared", 4));
        let b = Gate::of(&url("gate-shared", 2));
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(a.limit(), 2);
        let other = Gate::of(&url("gate-other", 3));
        assert!(!Arc::ptr_eq(&a, &other));
    }
}
