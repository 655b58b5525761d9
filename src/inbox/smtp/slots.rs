//! Connection slots of the receiver: bounded in all and per peer address, and a connection
//! that has sat idle a moment gives its slot to a new one, so idle connections, from one
//! peer or many, cannot keep a run's mail out.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// Simultaneous client connections.
pub(super) const MAX_CONNECTIONS: usize = 128;
/// Simultaneous connections from one peer address. A mailer sends over one or a few.
pub(super) const MAX_PER_PEER: usize = 16;
/// A connection that has waited this long for its next command may be closed to make room.
/// A mailer in the middle of its conversation answers within milliseconds.
pub(super) const YIELD_AFTER_IDLE: Duration = Duration::from_secs(1);

/// Every open connection, with when it began to wait for a command.
pub(super) struct Slots {
    state: Mutex<State>,
    yield_after_idle: Duration,
}

#[derive(Default)]
struct State {
    open: HashMap<u64, Entry>,
    next_id: u64,
}

struct Entry {
    peer: IpAddr,
    /// Since when it waits for a command; `None` while a command or DATA is being handled.
    idle_since: Option<Instant>,
    /// Told when its slot is taken back.
    evicted: Arc<Notify>,
}

/// A connection's slot; dropping it frees the slot.
pub(super) struct Slot {
    slots: Arc<Slots>,
    id: u64,
    /// Notified when the slot was given to a newer connection: the session says so and ends.
    pub(super) evicted: Arc<Notify>,
}

impl Default for Slots {
    fn default() -> Self {
        Slots::new(YIELD_AFTER_IDLE)
    }
}

impl Slots {
    fn new(yield_after_idle: Duration) -> Slots {
        Slots {
            state: Mutex::default(),
            yield_after_idle,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A slot for a new connection from `peer`: a free one, or one taken back from the
    /// connection idle the longest (of this peer when the peer is at its bound, of any peer
    /// when all are taken) once it has been idle a moment ([`YIELD_AFTER_IDLE`]). `None`: every
    /// connection in the way is busy.
    pub(super) fn admit(self: &Arc<Self>, peer: IpAddr) -> Option<Slot> {
        let mut state = self.lock();
        let now = Instant::now();
        let from_peer = state.open.values().filter(|e| e.peer == peer).count();
        // Whose connection gives way: this peer's when it is at its bound, anyone's when
        // every slot is taken.
        let gives_way: Option<Option<IpAddr>> = if from_peer >= MAX_PER_PEER {
            Some(Some(peer))
        } else if state.open.len() >= MAX_CONNECTIONS {
            Some(None)
        } else {
            None
        };
        if let Some(among) = gives_way {
            let longest_idle = state
                .open
                .iter()
                .filter(|(_, e)| among.is_none_or(|p| e.peer == p))
                .filter_map(|(id, e)| e.idle_since.map(|since| (*id, since)))
                .filter(|(_, since)| now.duration_since(*since) >= self.yield_after_idle)
                .min_by_key(|(_, since)| *since)
                .map(|(id, _)| id)?;
            if let Some(entry) = state.open.remove(&longest_idle) {
                entry.evicted.notify_one();
            }
        }
        state.next_id += 1;
        let id = state.next_id;
        let evicted = Arc::new(Notify::new());
        state.open.insert(
            id,
            Entry {
                peer,
                idle_since: Some(now),
                evicted: evicted.clone(),
            },
        );
        Some(Slot {
            slots: self.clone(),
            id,
            evicted,
        })
    }
}

impl Slot {
    /// The connection waits for its next command from now on.
    pub(super) fn idle(&self) {
        if let Some(entry) = self.slots.lock().open.get_mut(&self.id) {
            entry.idle_since = Some(Instant::now());
        }
    }

    /// The connection is handling a command (or DATA): its slot is not taken back.
    pub(super) fn busy(&self) {
        if let Some(entry) = self.slots.lock().open.get_mut(&self.id) {
            entry.idle_since = None;
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.slots.lock().open.remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOMENT: Duration = Duration::from_millis(50);

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[tokio::test]
    async fn a_peer_at_its_bound_yields_its_longest_idle_connection_only() {
        let slots = Arc::new(Slots::new(MOMENT));
        let held: Vec<Slot> = (0..MAX_PER_PEER)
            .map(|_| slots.admit(ip("127.0.0.1")).expect("free"))
            .collect();
        assert!(
            slots.admit(ip("127.0.0.1")).is_none(),
            "none idle long enough"
        );
        let other = slots.admit(ip("127.0.0.2")).expect("another peer has room");
        tokio::time::sleep(MOMENT).await;
        held[3].busy();
        let newcomer = slots.admit(ip("127.0.0.1")).expect("an idle one yields");
        assert_eq!(slots.lock().open.len(), MAX_PER_PEER + 1);
        assert!(
            slots.lock().open.contains_key(&held[3].id),
            "a busy one never yields"
        );
        assert!(
            !slots.lock().open.contains_key(&held[0].id),
            "the longest idle yields"
        );
        drop((held, other, newcomer));
        assert!(slots.lock().open.is_empty());
    }

    #[tokio::test]
    async fn when_every_slot_is_taken_any_peers_idle_connection_yields() {
        let slots = Arc::new(Slots::new(MOMENT));
        let held: Vec<Slot> = (0..MAX_CONNECTIONS)
            .map(|i| {
                slots
                    .admit(IpAddr::from([127, 0, 1, i as u8]))
                    .expect("free")
            })
            .collect();
        assert!(slots.admit(ip("127.0.0.1")).is_none());
        tokio::time::sleep(MOMENT).await;
        assert!(slots.admit(ip("127.0.0.1")).is_some());
        drop(held);
    }
}
