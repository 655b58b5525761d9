//! The receiver's mail, held in memory for the runs whose mailbox is open, under a cap on
//! bytes: what is taken, what is let go, and when.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use chrono::Utc;
use tokio::sync::watch;

use super::MAX_STORED_MESSAGES;
use crate::inbox::Message;
use crate::inbox::message::parse_message;

/// Mail for open runs, oldest first. Mail is taken only for a run whose mailbox is open, its
/// bytes are let go once every open recipient consumed it, and it is dropped when none of
/// its recipients is open any more.
pub(super) struct HeldMail {
    /// Lower-cased; recipients elsewhere are refused.
    pub(super) domain: String,
    /// Lower-cased: the one address every run receives at, when the receiver was bound to
    /// one; other addresses in the domain are refused.
    pub(super) address: Option<String>,
    max_held_bytes: usize,
    state: Mutex<StoreState>,
    /// The sequence number of the latest delivery; waiters watch it.
    pub(super) delivered: watch::Sender<u64>,
}

#[derive(Default)]
pub(super) struct StoreState {
    next_seq: u64,
    /// Addresses of open run mailboxes (the same run id may be opened twice).
    open: HashMap<String, usize>,
    pub(super) messages: VecDeque<Held>,
    /// Bytes of the messages held.
    pub(super) held_bytes: usize,
    /// Bytes of messages still being received.
    pub(super) reserved_bytes: usize,
}

pub(super) struct Held {
    pub(super) seq: u64,
    pub(super) message: Message,
    /// Open recipients that have not consumed it; its bytes go when the last one has.
    unread_by: Vec<String>,
}

/// Whether a recipient is taken.
pub(super) enum Recipient {
    Open,
    OutsideDomain,
    /// In the domain, but not the one address the receiver takes mail for.
    NotTheAddress,
    NoRun,
}

impl HeldMail {
    pub(super) fn new(domain: &str, address: Option<String>, max_held_bytes: usize) -> HeldMail {
        HeldMail {
            domain: domain.trim().to_lowercase(),
            address: address.map(|a| a.trim().to_lowercase()),
            max_held_bytes,
            state: Mutex::new(StoreState::default()),
            delivered: watch::Sender::new(0),
        }
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, StoreState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn recipient(&self, address: &str) -> Recipient {
        let in_domain = address
            .rsplit_once('@')
            .is_some_and(|(_, domain)| domain.eq_ignore_ascii_case(&self.domain));
        if !in_domain {
            Recipient::OutsideDomain
        } else if self
            .address
            .as_ref()
            .is_some_and(|a| !a.eq_ignore_ascii_case(address))
        {
            Recipient::NotTheAddress
        } else if self.lock().open.contains_key(&address.to_lowercase()) {
            Recipient::Open
        } else {
            Recipient::NoRun
        }
    }

    /// Bytes that may still be taken before the cap.
    pub(super) fn room(&self) -> usize {
        let state = self.lock();
        self.max_held_bytes
            .saturating_sub(state.held_bytes + state.reserved_bytes)
    }

    /// The 452 reply when the cap is reached.
    pub(super) fn full_reply(&self) -> String {
        let state = self.lock();
        format!(
            "452 4.3.1 this receiver already holds {} of mail for runs that have not read it, \
             and holds at most {}: try again once they have (mail is let go when a run reads \
             it or closes its mailbox)",
            mib(state.held_bytes + state.reserved_bytes),
            mib(self.max_held_bytes)
        )
    }

    /// Registers an open run mailbox; returns the sequence number mail must exceed to be new.
    pub(super) fn open(&self, address: &str) -> u64 {
        let mut state = self.lock();
        *state.open.entry(address.to_string()).or_default() += 1;
        state.next_seq
    }

    pub(super) fn close(&self, address: &str) {
        let mut state = self.lock();
        let state = &mut *state;
        match state.open.get_mut(address) {
            Some(n) if *n > 1 => {
                *n -= 1;
                return;
            }
            Some(_) => {
                state.open.remove(address);
            }
            None => return,
        }
        for held in &mut state.messages {
            held.unread_by.retain(|a| a != address);
            if held.unread_by.is_empty() {
                state.held_bytes -= std::mem::take(&mut held.message.raw).len();
            }
        }
        let open = &state.open;
        state
            .messages
            .retain(|held| held.message.to.iter().any(|a| open.contains_key(a)));
    }

    /// A run consumed message `seq`: when no open recipient still needs it, its bytes go. A
    /// stub (sender, subject, recipients) stays while a recipient is open, so a later wait can
    /// still say that the message was already used. While another run has the same address
    /// open (a fixed address), the bytes stay for it until it consumes them or closes.
    pub(super) fn consumed(&self, address: &str, seq: u64) {
        let mut state = self.lock();
        let state = &mut *state;
        if state.open.get(address).is_some_and(|&n| n > 1) {
            return;
        }
        if let Some(held) = state.messages.iter_mut().find(|h| h.seq == seq) {
            held.unread_by.retain(|a| a != address);
            if held.unread_by.is_empty() {
                state.held_bytes -= std::mem::take(&mut held.message.raw).len();
            }
        }
    }

    /// Stores a received message for its open recipients. Returns its sequence number, or
    /// `None` when none of them is open any more (their runs closed during the transfer).
    pub(super) fn deliver(
        &self,
        raw: Vec<u8>,
        recipients: &[String],
        reserved: &mut Reservation,
    ) -> Option<u64> {
        let seq = {
            let mut state = self.lock();
            let state = &mut *state;
            let message = parse_message(
                (state.next_seq + 1).to_string(),
                raw,
                Utc::now(),
                recipients,
            );
            let unread_by: Vec<String> = message
                .to
                .iter()
                .filter(|a| state.open.contains_key(*a))
                .cloned()
                .collect();
            if unread_by.is_empty() {
                return None;
            }
            state.next_seq += 1;
            let seq = state.next_seq;
            // The reservation becomes held bytes.
            state.reserved_bytes -= reserved.bytes;
            reserved.bytes = 0;
            state.held_bytes += message.raw.len();
            state.messages.push_back(Held {
                seq,
                message,
                unread_by,
            });
            while state.messages.len() > MAX_STORED_MESSAGES {
                if let Some(old) = state.messages.pop_front() {
                    state.held_bytes -= old.message.raw.len();
                }
            }
            seq
        };
        self.delivered.send_replace(seq);
        Some(seq)
    }
}

/// Bytes of a message being received, counted against the cap until it is stored or
/// refused.
pub(super) struct Reservation<'a> {
    store: &'a HeldMail,
    bytes: usize,
}

impl<'a> Reservation<'a> {
    pub(super) fn new(store: &'a HeldMail) -> Self {
        Reservation { store, bytes: 0 }
    }

    /// Counts `n` more bytes, unless that would pass the cap.
    pub(super) fn grow(&mut self, n: usize) -> bool {
        let mut state = self.store.lock();
        if state.held_bytes + state.reserved_bytes + n > self.store.max_held_bytes {
            return false;
        }
        state.reserved_bytes += n;
        self.bytes += n;
        true
    }

    pub(super) fn release(&mut self) {
        if self.bytes > 0 {
            self.store.lock().reserved_bytes -= self.bytes;
            self.bytes = 0;
        }
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.release();
    }
}

/// `47 MiB`, `1.5 MiB`, `300 KiB`.
fn mib(bytes: usize) -> String {
    if bytes >= 10 << 20 || (bytes > 0 && bytes.is_multiple_of(1 << 20)) {
        format!("{} MiB", (bytes + (1 << 19)) >> 20)
    } else if bytes >= 1 << 20 {
        format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
    } else {
        format!("{} KiB", bytes.div_ceil(1 << 10))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(mib(64 << 20), "64 MiB");
        assert_eq!(mib(47_000_000), "45 MiB");
        assert_eq!(mib(1_572_864), "1.5 MiB");
        assert_eq!(mib(300_000), "293 KiB");
        assert_eq!(mib(0), "0 KiB");
    }
}
