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

/// Runs `work` (screening and shaping what the child sent) on the
/// blocking pool until `by` (`None`: no deadline).
///
/// # Errors
/// [`NotScreened::Late`] once `by` passes first (the work then stops at
/// its next text: [`screen_until`]); [`NotScreened::Failed`] when the work
/// did not finish.
pub(super) async fn off_session<T: Send + 'static>(
    by: Option<tokio::time::Instant>,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, NotScreened> {
    let stop = Arc::new(AtomicBool::new(false));
    let _given_up = StopOnDrop(Arc::clone(&stop));
    let job = tokio::task::spawn_blocking(move || screen_until(stop, work));
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
            let on = std::thread::current().id();
            let done = off_session(None, move || std::thread::current().id() != on).await;
            assert_eq!(done, Ok(true));
            let (tx, rx) = std::sync::mpsc::channel();
            let (go_tx, go) = std::sync::mpsc::channel::<()>();
            let by = tokio::time::Instant::now() + Duration::from_millis(50);
            let late = off_session(Some(by), move || {
                // Waits until the caller has given up, then screens.
                let _ = go.recv();
                let found = clean_value(&mut json!({"t": "a\u{200b}"}), false);
                let _ = tx.send(found);
            })
            .await;
            assert_eq!(late, Err(NotScreened::Late));
            go_tx.send(()).unwrap();
            let found = rx.recv_timeout(Duration::from_secs(20)).unwrap();
            // The key and its text.
            assert_eq!((found.too_costly, found.invisible), (2, 0), "{found:?}");
        });
    }
}
