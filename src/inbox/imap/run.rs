//! One run's view of a shared IMAP mailbox: its address, its watermark, and the cached
//! messages addressed to it. Dropping it unregisters the run; the connection stays.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::watch;
use tokio::time::{Instant, sleep_until};

use super::{Mailbox, OpenRun, Request};
use crate::inbox::message::is_addressed_to;
use crate::inbox::{InboxError, Message, RunMailbox};

pub(super) struct ImapRunMailbox {
    mailbox: Arc<Mailbox>,
    key: u64,
    address: String,
    /// How often the mailbox is polled while this run waits.
    poll: Duration,
    updates: watch::Receiver<u64>,
}

impl ImapRunMailbox {
    /// Registers a run (without a watermark yet) with the mailbox.
    pub(super) fn register(mailbox: Arc<Mailbox>, address: String, poll: Duration) -> Self {
        let key = mailbox.next_key();
        mailbox.lock().runs.insert(
            key,
            OpenRun {
                address: address.clone(),
                watermark: None,
            },
        );
        ImapRunMailbox {
            updates: mailbox.updates.subscribe(),
            mailbox,
            key,
            address,
            poll,
        }
    }

    pub(super) fn key(&self) -> u64 {
        self.key
    }
}

impl Drop for ImapRunMailbox {
    fn drop(&mut self) {
        let mut state = self.mailbox.lock();
        state.runs.remove(&self.key);
        state.prune();
        drop(state);
        self.mailbox.wake.notify_one();
    }
}

#[async_trait]
impl RunMailbox for ImapRunMailbox {
    fn address(&self) -> &str {
        &self.address
    }

    async fn arrived(&mut self) -> Result<Vec<Message>, InboxError> {
        // Mark as seen before reading: an update after this line makes `changed` return.
        self.updates.borrow_and_update();
        let fresh = {
            let state = self.mailbox.lock();
            state.error.is_none() && state.synced_at.is_some_and(|at| at.elapsed() < self.poll)
        };
        // A recent poll is as good as a new one: anything it missed bumps `updates` when the
        // next poll finds it, so the waiting loop's `changed` returns and it asks again.
        if !fresh {
            self.mailbox
                .request(|reply| Request::Sync { reply })
                .await?;
        }
        let state = self.mailbox.lock();
        let Some(watermark) = state.runs.get(&self.key).and_then(|run| run.watermark) else {
            return Ok(Vec::new());
        };
        Ok(state
            .messages
            .range(watermark..)
            .map(|(_, m)| m)
            .filter(|m| is_addressed_to(m, &self.address))
            .cloned()
            .collect())
    }

    async fn changed(&mut self, until: Instant) -> Result<(), InboxError> {
        let _waiting = Waiting::register(&self.mailbox, self.poll);
        tokio::select! {
            // The sender lives in the mailbox, which we hold, so this never reports closed.
            _ = self.updates.changed() => {}
            _ = sleep_until(until) => {}
        }
        Ok(())
    }
}

/// Counts a step as waiting (so the watcher polls at its cadence) for as long as it lives.
struct Waiting<'a> {
    mailbox: &'a Mailbox,
    poll: Duration,
}

impl<'a> Waiting<'a> {
    fn register(mailbox: &'a Mailbox, poll: Duration) -> Waiting<'a> {
        mailbox.lock().waiting.push(poll);
        mailbox.wake.notify_one();
        Waiting { mailbox, poll }
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let mut state = self.mailbox.lock();
        if let Some(i) = state.waiting.iter().position(|p| *p == self.poll) {
            state.waiting.swap_remove(i);
        }
        drop(state);
    }
}
