//! The order of the server's lines toward the client, kept without holding
//! the reader (attack s69-A, P1-HOL).
//!
//! Each line the child writes gets a sequence number when it is read
//! ([`LineOrder::open`]); its charge carries a [`Ticket`] whose drop (once
//! what the line carries is queued toward the client, or dropped) closes
//! it. A notification or request of the server's ([`LineOrder::pass`])
//! goes now when no earlier line is open; otherwise it is held, with its
//! charge, until every earlier line is closed, and then released to the
//! session's sender in sequence order. The reader goes on meanwhile: the
//! answers that follow are screened and sent as they come, and only what
//! the server wrote after a held message waits behind it. What is held
//! stays charged on the from-server budget, which bounds it.

use std::collections::{BTreeSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use tokio::sync::mpsc;

use crate::engine::Charge;

/// A server message waiting for the lines written before it.
#[derive(Debug)]
pub(crate) struct Held<T> {
    /// The sequence number of the line it came in (a batch's elements
    /// share their line's).
    pub(crate) seq: u64,
    /// What is sent ([`super::GateService`]'s sender reads it).
    pub(crate) message: T,
    /// The line's charge, carrying its [`Ticket`].
    pub(crate) charge: Charge,
}

/// The order of one session's server lines; see the module docs.
#[derive(Debug)]
pub(crate) struct LineOrder<T> {
    state: Mutex<State<T>>,
}

#[derive(Debug)]
struct State<T> {
    /// The next line's sequence number.
    next: u64,
    /// Lines read whose tickets are alive.
    open: BTreeSet<u64>,
    /// Held messages, in sequence order (lines are read one at a time).
    held: VecDeque<Held<T>>,
    /// A thread is releasing held messages (the others leave it to it).
    releasing: bool,
    /// Where released messages go; without it they are dropped.
    out: Option<mpsc::UnboundedSender<Held<T>>>,
}

/// A line's place in the order, closed when dropped (with the last clone
/// of the charge carrying it).
#[derive(Debug)]
pub(crate) struct Ticket<T: Send + 'static> {
    seq: u64,
    order: Weak<LineOrder<T>>,
}

impl<T: Send + 'static> Drop for Ticket<T> {
    fn drop(&mut self) {
        if let Some(order) = self.order.upgrade() {
            order.close(self.seq);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl<T: Send + 'static> LineOrder<T> {
    /// An order with no line read and no sender yet.
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State {
                next: 0,
                open: BTreeSet::new(),
                held: VecDeque::new(),
                releasing: false,
                out: None,
            }),
        })
    }

    /// Where released messages go from now on (the session's sender).
    pub(crate) fn send_to(&self, out: mpsc::UnboundedSender<Held<T>>) {
        lock(&self.state).out = Some(out);
    }

    /// Opens the next line: `charge` now carries its ticket. Called by the
    /// one reader of the child, in the order the lines were written.
    pub(crate) fn open(self: &Arc<Self>, charge: Charge) -> (u64, Charge) {
        let seq = {
            let mut st = lock(&self.state);
            let seq = st.next;
            st.next = st.next.saturating_add(1);
            st.open.insert(seq);
            seq
        };
        let ticket: Arc<dyn std::any::Any + Send + Sync> = Arc::new(Ticket {
            seq,
            order: Arc::downgrade(self),
        });
        (seq, charge.with_receipt(ticket))
    }

    /// `held` may go now when no line before it is open and nothing is
    /// held: it is handed back (the caller sends it). Otherwise it is held
    /// until the lines before it are closed.
    pub(crate) fn pass(&self, held: Held<T>) -> Option<Held<T>> {
        let mut st = lock(&self.state);
        let first = st.open.first().copied();
        if st.held.is_empty() && first.is_none_or(|first| first >= held.seq) {
            return Some(held);
        }
        st.held.push_back(held);
        None
    }

    /// How many messages are held.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        lock(&self.state).held.len()
    }

    /// Closes line `seq`, then releases what it held back.
    fn close(&self, seq: u64) {
        let mut st = lock(&self.state);
        st.open.remove(&seq);
        if st.releasing {
            // The releasing thread looks again before it stops.
            return;
        }
        st.releasing = true;
        loop {
            let first = st.open.first().copied();
            let ready = st
                .held
                .front()
                .is_some_and(|h| first.is_none_or(|first| first >= h.seq));
            let next = if ready { st.held.pop_front() } else { None };
            let Some(next) = next else {
                break;
            };
            let out = st.out.clone();
            // Sent, or dropped, without the lock: dropping a charge closes
            // its line, which takes the lock.
            drop(st);
            match out {
                Some(out) => {
                    if let Err(unsent) = out.send(next) {
                        tracing::warn!("the session's sender has ended; a server message dropped");
                        drop(unsent);
                    }
                }
                None => {
                    tracing::warn!("no sender for a held server message; dropped");
                    drop(next);
                }
            }
            st = lock(&self.state);
        }
        st.releasing = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What a test line is: an answer (closed when the test says) or a
    /// notification (passed to the order).
    #[derive(Debug, Clone, Copy)]
    enum Line {
        Answer,
        Notification,
    }

    fn model() -> impl Strategy<Value = (Vec<Line>, Vec<usize>)> {
        proptest::collection::vec(
            prop_oneof![Just(Line::Answer), Just(Line::Notification)],
            1..24,
        )
        .prop_flat_map(|lines| {
            let n = lines.len();
            (
                Just(lines),
                proptest::collection::vec(0..n.max(1), 0..(n * 2)),
            )
        })
    }

    proptest! {
        /// Whatever order answers are finished in, the notifications reach
        /// the sender in the order they were written, each only once every
        /// line before it has closed, and every one of them does once all
        /// answers are finished; a notification with nothing open before
        /// it goes at once.
        #[test]
        fn notifications_follow_every_earlier_line((lines, finish) in model()) {
            let order = LineOrder::<u64>::new();
            let (tx, mut rx) = mpsc::unbounded_channel();
            order.send_to(tx);
            let mut answers: Vec<Option<(u64, Charge)>> = Vec::new();
            let mut direct = Vec::new();
            for line in &lines {
                let (seq, charge) = order.open(Charge::none());
                match line {
                    Line::Answer => answers.push(Some((seq, charge))),
                    Line::Notification => {
                        let earlier_open = answers.iter().flatten().any(|(s, _)| *s < seq);
                        let h = Held { seq, message: seq, charge };
                        match order.pass(h) {
                            Some(h) => {
                                prop_assert!(!earlier_open, "line {seq} went before an open line");
                                direct.push(h.message);
                                // Sent: its charge is dropped.
                            }
                            None => prop_assert!(earlier_open, "line {} held with no open answer before it", seq),
                        }
                    }
                }
                // Released ones are "sent": their charges dropped in order.
                while let Ok(h) = rx.try_recv() {
                    prop_assert!(
                        answers.iter().flatten().all(|(s, _)| *s > h.seq),
                        "line {} released before an earlier answer closed", h.seq
                    );
                    direct.push(h.message);
                }
            }
            for i in finish.iter().copied().chain(0..answers.len()).collect::<Vec<_>>() {
                if let Some(Some((_, charge))) = answers.get_mut(i).map(Option::take) {
                    drop(charge);
                }
                while let Ok(h) = rx.try_recv() {
                    prop_assert!(
                        answers.iter().flatten().all(|(s, _)| *s > h.seq),
                        "line {} released before an earlier answer closed", h.seq
                    );
                    direct.push(h.message);
                }
            }
            let written: Vec<u64> = lines
                .iter()
                .enumerate()
                .filter(|(_, l)| matches!(l, Line::Notification))
                .map(|(i, _)| i as u64)
                .collect();
            prop_assert_eq!(direct, written);
            prop_assert_eq!(order.held(), 0);
        }
    }

    #[test]
    fn a_notification_waits_only_for_the_lines_before_it() {
        let order = LineOrder::<&str>::new();
        let (tx, mut rx) = mpsc::unbounded_channel();
        order.send_to(tx);
        let (_, costly) = order.open(Charge::none());
        let (seq, charge) = order.open(Charge::none());
        assert!(order
            .pass(Held {
                seq,
                message: "log",
                charge
            })
            .is_none());
        // The answer after it is read and closed at once.
        let (_, later) = order.open(Charge::none());
        drop(later);
        assert!(rx.try_recv().is_err());
        drop(costly);
        let released = rx.try_recv().map(|h| h.message);
        assert_eq!(released, Ok("log"));
    }

    #[test]
    fn a_released_message_with_no_sender_is_dropped_and_closes_its_line() {
        let order = LineOrder::<&str>::new();
        let (_, first) = order.open(Charge::none());
        let (seq, charge) = order.open(Charge::none());
        assert!(order
            .pass(Held {
                seq,
                message: "a",
                charge
            })
            .is_none());
        let (seq, charge) = order.open(Charge::none());
        assert!(order
            .pass(Held {
                seq,
                message: "b",
                charge
            })
            .is_none());
        drop(first);
        assert_eq!(order.held(), 0);
        let (seq, charge) = order.open(Charge::none());
        assert!(order
            .pass(Held {
                seq,
                message: "c",
                charge
            })
            .is_some());
    }
}
