//! One engine per MCP session, and the table of sessions.
//!
//! A [`Session`] is an [`Engine`] serving one service, fed the vetted
//! messages of the POSTs that belong to it, and a router that hands each
//! outbound message to the POST waiting for it: a response to the POST
//! that sent its request (by id), a progress notification to the POST whose
//! request it reports on, a batch answer to the POST that sent the batch.
//! Two clients never share a session, so two clients using the same ids
//! each get only their own answers.
//!
//! The handshake era keeps a session from `initialize` on, named by an
//! unguessable `Mcp-Session-Id` and bound to the credential that created
//! it; a stateless (2026-07-28) request gets a session of its own that ends
//! with its answer.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::super::{Frame, Outgoing, Route, MAX_PENDING_LINES};
use crate::engine::wire::{Id, Vetted};
use crate::engine::{Engine, EngineConfig, Revision, Service, Transport};

/// Messages read ahead of one session's engine.
const MAX_SESSION_FRAMES: usize = 8;

/// Messages waiting for one POST's writer (progress, then the answer).
pub(super) const MAX_WAITING_DELIVERIES: usize = 8;

/// What the router hands a waiting POST.
#[derive(Debug)]
pub(super) enum Delivery {
    /// A notification about its request (progress); more follow.
    Progress(Vec<u8>),
    /// Its answer; nothing follows.
    Answer(Vec<u8>),
    /// No answer will come: the client cancelled the request
    /// (`notifications/cancelled`), and the engine sends nothing for it.
    Unanswered,
}

#[derive(Default)]
struct Waiters {
    by_id: HashMap<Id, mpsc::Sender<Delivery>>,
    batch: Option<mpsc::Sender<Delivery>>,
}

/// One running engine and the way to its POSTs.
pub(super) struct Session {
    frames: mpsc::Sender<Frame>,
    waiters: Arc<Mutex<Waiters>>,
    /// The credential that created it ([`super::guard::credential`]).
    pub(super) credential: [u8; 32],
    /// The revision its `initialize` agreed.
    revision: Mutex<Option<Revision>>,
    last_used: Mutex<Instant>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Session {
    /// Starts an engine serving `service`, on the current runtime.
    pub(super) fn start<S: Service>(
        service: S,
        config: EngineConfig,
        credential: [u8; 32],
    ) -> Self {
        let (frames, frame_rx) = mpsc::channel(MAX_SESSION_FRAMES);
        let (outgoing, out_rx) = mpsc::channel(MAX_PENDING_LINES);
        let waiters = Arc::new(Mutex::new(Waiters::default()));
        tokio::spawn(async move {
            let _service = Engine::new(service, config)
                .run(Transport {
                    frames: frame_rx,
                    outgoing,
                })
                .await;
        });
        tokio::spawn(route(out_rx, Arc::clone(&waiters)));
        Self {
            frames,
            waiters,
            credential,
            revision: Mutex::new(None),
            last_used: Mutex::new(Instant::now()),
        }
    }

    /// The revision agreed by its `initialize`, once answered.
    pub(super) fn revision(&self) -> Option<Revision> {
        *lock(&self.revision)
    }

    pub(super) fn set_revision(&self, r: Revision) {
        *lock(&self.revision) = Some(r);
    }

    fn touch(&self) {
        *lock(&self.last_used) = Instant::now();
    }

    fn idle_for(&self) -> Duration {
        lock(&self.last_used).elapsed()
    }

    /// Registers the POST waiting for `id`'s answer (`None`: a batch's).
    ///
    /// Returns `None` when one is already waiting for it.
    pub(super) fn wait_for(&self, id: Option<&Id>) -> Option<mpsc::Receiver<Delivery>> {
        let (tx, rx) = mpsc::channel(MAX_WAITING_DELIVERIES);
        let mut w = lock(&self.waiters);
        match id {
            Some(id) => {
                if w.by_id.contains_key(id) {
                    return None;
                }
                w.by_id.insert(id.clone(), tx);
            }
            None => {
                if w.batch.as_ref().is_some_and(|b| !b.is_closed()) {
                    return None;
                }
                w.batch = Some(tx);
            }
        }
        Some(rx)
    }

    /// The client cancelled request `id`: the POST waiting for its answer
    /// stops waiting (the engine drops the answer of a cancelled request).
    pub(super) fn cancelled(&self, id: &Id) {
        if let Some(tx) = lock(&self.waiters).by_id.remove(id) {
            let _ = tx.try_send(Delivery::Unanswered);
        }
    }

    /// Forgets the waiter for `id` (its POST has gone).
    pub(super) fn forget(&self, id: &Id) {
        lock(&self.waiters).by_id.remove(id);
    }

    /// Hands the engine one vetted message (waits while it is behind).
    ///
    /// # Errors
    /// When the engine has ended.
    pub(super) async fn send(&self, vetted: Vetted) -> Result<(), ()> {
        self.touch();
        self.frames
            .send(Frame::Vetted(vetted))
            .await
            .map_err(|_| ())
    }

    /// Hands the engine `line` without waiting (a cancellation from a
    /// POST that is being dropped); dropped when the engine is behind.
    pub(super) fn try_send_line(&self, line: Vec<u8>) {
        let _ = self.frames.try_send(Frame::Line(line));
    }
}

async fn route(mut rx: mpsc::Receiver<Outgoing>, waiters: Arc<Mutex<Waiters>>) {
    while let Some(message) = rx.recv().await {
        let Outgoing::Message {
            route,
            line,
            charge,
        } = message
        else {
            break;
        };
        let target = {
            let mut w = lock(&waiters);
            match route {
                Route::Response(Some(id)) => w.by_id.remove(&id).map(|tx| (tx, true)),
                Route::Request(id) => w.by_id.get(&id).cloned().map(|tx| (tx, false)),
                Route::Batch(_) => w.batch.take().map(|tx| (tx, true)),
                Route::Response(None) | Route::Session => None,
            }
        };
        match target {
            // The answer waits for room (the POST takes it next); progress
            // is dropped when the POST's writer is behind.
            Some((tx, true)) => {
                let _ = tx.send(Delivery::Answer(line)).await;
            }
            Some((tx, false)) => {
                let _ = tx.try_send(Delivery::Progress(line));
            }
            None => tracing::debug!("an outbound message no POST waits for was dropped"),
        }
        drop(charge);
    }
}

/// The sessions of the handshake era, by id.
pub(super) struct Sessions {
    table: Mutex<HashMap<String, Arc<Session>>>,
    max: usize,
    idle: Duration,
}

impl Sessions {
    /// At most `max` sessions; one idle for `idle` is ended to make room.
    pub(super) fn new(max: usize, idle: Duration) -> Self {
        Self {
            table: Mutex::new(HashMap::new()),
            max,
            idle,
        }
    }

    /// The session `id` if `credential` created it.
    pub(super) fn get(&self, id: &str, credential: &[u8; 32]) -> Option<Arc<Session>> {
        let t = lock(&self.table);
        let s = t.get(id)?;
        if s.idle_for() >= self.idle {
            return None;
        }
        (s.credential == *credential).then(|| Arc::clone(s))
    }

    /// Keeps `session` under a new id. A full table first ends the sessions
    /// idle past the timeout, then the least recently used one with no
    /// request in flight (its client gets 404 and initializes again);
    /// `None` when every session has a request in flight.
    pub(super) fn insert(&self, session: Arc<Session>) -> Option<String> {
        let mut t = lock(&self.table);
        if t.len() >= self.max {
            let idle = self.idle;
            t.retain(|_, s| s.idle_for() < idle);
        }
        if t.len() >= self.max {
            // Only the table holds an unused session.
            let oldest = t
                .iter()
                .filter(|(_, s)| Arc::strong_count(s) == 1)
                .max_by_key(|(_, s)| s.idle_for())
                .map(|(id, _)| id.clone());
            if let Some(id) = oldest {
                t.remove(&id);
            }
        }
        if t.len() >= self.max {
            return None;
        }
        let id = new_session_id()?;
        t.insert(id.clone(), session);
        Some(id)
    }

    /// Ends session `id` if `credential` created it; whether it did.
    pub(super) fn remove(&self, id: &str, credential: &[u8; 32]) -> bool {
        let mut t = lock(&self.table);
        if t.get(id).is_some_and(|s| s.credential == *credential) {
            t.remove(id);
            true
        } else {
            false
        }
    }
}

/// 128 random bits, as 32 lowercase hex digits (visible ASCII, as the
/// header requires); `None` when the OS gives no randomness.
fn new_session_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_32_hex_digits_and_differ() {
        let a = new_session_id().unwrap();
        let b = new_session_id().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
