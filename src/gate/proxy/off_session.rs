//! What the child sent, screened and shaped away from the session: on the
//! runtime's blocking pool, under the request's deadline.
//!
//! Screening an answer may cost up to
//! [`MAX_SCREEN_WORK_FACTOR`](crate::gate::poison::MAX_SCREEN_WORK_FACTOR)
//! times its text (seconds for a large one). Done on the task that carries
//! the session, it held every other message and every timer meanwhile, so
//! `--call-timeout` did not fire (attack s68, DoS F4). Here the session goes
//! on, the deadline is kept, and a screening nobody waits for any more (past
//! its deadline, or its call cancelled) stops at its next text.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::engine::ByteBudget;
use crate::gate::poison::screen_until;

/// Why [`off_session`] has no result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NotScreened {
    /// The deadline passed first.
    Late,
    /// The work did not finish (the runtime is shutting down).
    Failed,
}

/// Sets its flag when dropped: the awaiting future is gone (finished,
/// timed out or cancelled), and the work may stop.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Counts one running work in a [`Running`] count until dropped.
struct Counted(Arc<Running>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// How many works [`off_session`] is running (each until it returns, also
/// past its deadline), so a deterministic driver (the `gate_session`
/// harness) can wait until none is.
type Running = tokio::sync::watch::Sender<usize>;

/// The session's screenings away from it: how many run, and the room
/// they share ([`MAX_SCREENING_BYTES`](crate::gate::MAX_SCREENING_BYTES)).
#[derive(Debug)]
pub(super) struct Screenings {
    running: Arc<Running>,
    room: ByteBudget,
}

impl Screenings {
    /// None running, and `room` bytes of messages screened at once.
    pub(super) fn new(room: usize) -> Self {
        Self {
            running: Arc::new(Running::new(0)),
            room: ByteBudget::new(room),
        }
    }

    /// Returns once no work runs (also none past its deadline).
    #[cfg(any(test, feature = "harness"))]
    pub(super) async fn until_none(&self) {
        let mut rx = self.running.subscribe();
        let _ = rx.wait_for(|n| *n == 0).await;
    }
}

/// Runs `work` (screening and shaping what the child sent, a message of
/// `weight` bytes) on the blocking pool until `by` (`None`: no deadline),
/// counted in `screenings` while it runs. It starts once `weight` fits
/// their room, and holds it until it returns (also past `by`): screening
/// a message holds several times its text (each reading of each layer),
/// so the messages screened at once are bounded in bytes, and one larger
/// than the room is screened alone (attack s70-A, N5: four answers of
/// 15 MB screened at once took the gateway to 516 MB).
///
/// # Errors
/// [`NotScreened::Late`] once `by` passes first, while it waits for room
/// or works (the work then stops at its next text: [`screen_until`]);
/// [`NotScreened::Failed`] when the work did not finish.
pub(super) async fn off_session<T: Send + 'static>(
    screenings: &Screenings,
    weight: usize,
    by: Option<tokio::time::Instant>,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, NotScreened> {
    let room = screenings.room.take(weight);
    let room = match by {
        Some(by) => tokio::time::timeout_at(by, room)
            .await
            .map_err(|_| NotScreened::Late)?,
        None => room.await,
    }
    .map_err(|_| NotScreened::Failed)?;
    let stop = Arc::new(AtomicBool::new(false));
    let _given_up = StopOnDrop(Arc::clone(&stop));
    let running = &screenings.running;
    running.send_modify(|n| *n = n.saturating_add(1));
    let counted = Counted(Arc::clone(running));
    let job = tokio::task::spawn_blocking(move || {
        let _counted = counted;
        let _room = room;
        screen_until(stop, work)
    });
    let joined = match by {
        Some(by) => tokio::time::timeout_at(by, job)
            .await
            .map_err(|_| NotScreened::Late)?,
        None => job.await,
    };
    joined.map_err(|_| NotScreened::Failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::poison::clean_value;
    use serde_json::json;
    use std::time::Duration;

    /// The work runs off the calling task, and past its deadline is given
    /// up on: the screening it was doing fails closed from then on.
    #[test]
    fn work_past_its_deadline_is_late_and_stops() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let screenings = Screenings::new(1 << 20);
            let running = Arc::clone(&screenings.running);
            let on = std::thread::current().id();
            let done = off_session(&screenings, 10, None, move || {
                std::thread::current().id() != on
            })
            .await;
            assert_eq!(done, Ok(true));
            assert_eq!(*running.borrow(), 0);
            let (tx, rx) = std::sync::mpsc::channel();
            let (go_tx, go) = std::sync::mpsc::channel::<()>();
            let by = tokio::time::Instant::now() + Duration::from_millis(50);
            let late = off_session(&screenings, 10, Some(by), move || {
                // Waits until the caller has given up, then screens.
                let _ = go.recv();
                let found = clean_value(&mut json!({"t": "a\u{200b}"}), false);
                let _ = tx.send(found);
            })
            .await;
            assert_eq!(late, Err(NotScreened::Late));
            // Still running, given up on.
            assert_eq!(*running.borrow(), 1);
            go_tx.send(()).unwrap();
            let found = rx.recv_timeout(Duration::from_secs(20)).unwrap();
            // The key and its text.
            assert_eq!((found.too_costly, found.invisible), (2, 0), "{found:?}");
            screenings.until_none().await;
        });
    }

    /// The messages screened at once fit the room: one as large as the
    /// room waits until the one before it has returned (also one past its
    /// deadline), and one that waits past its own deadline never runs.
    #[test]
    fn screenings_share_their_room() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let screenings = Arc::new(Screenings::new(100));
            let (go_tx, go) = std::sync::mpsc::channel::<()>();
            let first = {
                let s = Arc::clone(&screenings);
                tokio::spawn(async move {
                    off_session(&s, 100, None, move || {
                        let _ = go.recv();
                        1
                    })
                    .await
                })
            };
            while *screenings.running.borrow() == 0 {
                tokio::task::yield_now().await;
            }
            // No room: the second waits past its deadline and never runs.
            let by = tokio::time::Instant::now() + Duration::from_millis(50);
            let ran = Arc::new(AtomicBool::new(false));
            let flag = Arc::clone(&ran);
            let late = off_session(&screenings, 1, Some(by), move || {
                flag.store(true, Ordering::Relaxed);
            })
            .await;
            assert_eq!(late, Err(NotScreened::Late));
            // Larger than the room: charged the whole room, so it waits for
            // the first, then runs alone.
            let third = {
                let s = Arc::clone(&screenings);
                tokio::spawn(async move { off_session(&s, 1000, None, || 3).await })
            };
            tokio::time::sleep(Duration::from_millis(50)).await;
            assert!(!third.is_finished());
            assert_eq!(*screenings.running.borrow(), 1);
            go_tx.send(()).unwrap();
            assert_eq!(first.await.unwrap(), Ok(1));
            assert_eq!(third.await.unwrap(), Ok(3));
            assert!(!ran.load(Ordering::Relaxed));
            assert_eq!(screenings.room.used(), 0);
        });
    }
}
