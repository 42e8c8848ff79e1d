//! The parent's side on a tokio runtime (the engine's): the call's own
//! task feeds the worker and reads its stdout through the runtime's
//! reactor, so no thread stands between the worker and the call. A call
//! on the pool's spare wakes nothing but the worker and the runtime; the
//! keeper thread reaps the worker behind it, as for a blocking call.
//!
//! Cancellation is dropping the future: the worker is killed at once and
//! handed to the keeper, which reaps it and starts the next spare.

use std::os::fd::OwnedFd;
use std::sync::mpsc;
use std::time::Instant;

use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;

use super::super::super::error::PdfError;
use super::super::super::limits::Limits;
use super::super::failed;
use super::super::protocol::parse_progress;
use super::{conclude, feed, max_answer_bytes, Answer, Exiting, Keep, Prestarted, Started, Watch};

/// Bytes read from a worker's stdout at a time: a pipe's buffer (64 KiB on
/// Linux), so a long answer wakes the call once per pipeful.
const READ_CHUNK: usize = 64 << 10;

/// Runs `header` + `data` on `pool`'s spare (or, when none is alive, a
/// worker taken on a blocking thread); returns the worker's answer line
/// once it is whole. Outside a tokio runtime: `worker_failed`.
pub(in super::super) async fn run(
    header: Vec<u8>,
    data: Vec<u8>,
    limits: &Limits,
    memory: u64,
    pool: &Prestarted,
    mut watch: Watch,
) -> Result<Vec<u8>, PdfError> {
    if tokio::runtime::Handle::try_current().is_err() {
        return Err(failed("an asynchronous worker call needs a tokio runtime"));
    }
    let started = match pool.try_take() {
        Some(started) => started,
        None => take_blocking(pool).await?,
    };
    let Started {
        mut child,
        stdin,
        stdout,
        err_reader,
    } = started;
    let isolation = pool.isolation();
    let max_answer = max_answer_bytes(limits);
    let deadline = Instant::now() + isolation.timeout;
    let stdout = pipe::Receiver::from_owned_fd(OwnedFd::from(stdout));
    // A job that fits a pipe's buffer is written here at once; a larger
    // one by a feeder thread.
    let fed = feed(stdin, (header, data));
    let (Ok(stdout), Ok(feed)) = (stdout, fed) else {
        // Its helper ends as its pipes close.
        drop(err_reader);
        let _ = child.kill();
        let _ = child.wait();
        pool.after(None);
        return Err(failed("cannot feed or read the worker"));
    };
    let mut running = Running {
        worker: Some(Exiting {
            child,
            feed,
            err_reader,
            deadline,
            killed: false,
        }),
        keeper: pool.keeper(),
        answered: false,
    };
    let reading = read_answer(stdout, max_answer, &mut *watch.progress);
    let answer = tokio::time::timeout_at(tokio::time::Instant::from_std(deadline), reading)
        .await
        .ok();
    let answer = match answer {
        // A whole answer line (the worker had read its whole job to write
        // it) is the call's result; the worker, which only exits from here
        // on, goes to the keeper now, to be reaped behind the call (and the
        // next spare started, ready for a call that follows at once).
        Some(Ok(Answer::Line(line))) if line.len() <= max_answer => {
            running.answered = true;
            drop(running);
            return Ok(line);
        }
        other => other,
    };
    let Some(worker) = running.worker.take() else {
        return Err(failed("the worker is gone"));
    };
    // No whole answer: the worker has exited, or is killed at its
    // deadline; its exit status is waited for on a blocking thread.
    let isolation = isolation.clone();
    let concluded = tokio::task::spawn_blocking(move || {
        conclude(answer, worker, false, max_answer, memory, &isolation)
    })
    .await;
    match concluded {
        Ok((result, exiting)) => {
            pool.after(exiting);
            result
        }
        Err(e) => {
            pool.after(None);
            Err(failed(format!("the worker's waiter ended abnormally: {e}")))
        }
    }
}

/// [`Prestarted::take`] on a blocking thread (it may wait for the spare
/// being started, or start a worker). A call dropped meanwhile leaves the
/// worker to that thread, which kills it.
async fn take_blocking(pool: &Prestarted) -> Result<Started, PdfError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let take = pool.taker();
    tokio::task::spawn_blocking(move || {
        if let Err(Ok(unwanted)) = tx.send(take()) {
            unwanted.discard();
        }
    });
    rx.await
        .unwrap_or_else(|_| Err(failed("the thread starting the worker ended abnormally")))
}

/// The call's worker, handed to the keeper (to be reaped, then the next
/// spare started) when this is dropped: killed at once first unless it
/// answered (a call dropped before it read the answer was cancelled, or
/// its session ended).
struct Running {
    worker: Option<Exiting>,
    keeper: mpsc::Sender<Keep>,
    answered: bool,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut worker) = self.worker.take() {
            if !self.answered {
                let _ = worker.child.kill();
                worker.killed = true;
            }
            if let Err(mpsc::SendError(Keep::Reap(worker))) = self.keeper.send(Keep::Reap(worker)) {
                worker.reap();
            }
        }
    }
}

/// Reads the worker's stdout as [`super::read_answer`] does: progress
/// lines go to `progress`; the first other line is the answer.
async fn read_answer(
    stdout: pipe::Receiver,
    max_answer: usize,
    progress: &mut (dyn FnMut(u32, u32) + Send),
) -> std::io::Result<Answer> {
    let cap = u64::try_from(max_answer)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let mut stdout = stdout.take(cap);
    let mut buf: Vec<u8> = Vec::new();
    // Bytes of `buf` known to hold no newline.
    let mut scanned = 0;
    loop {
        let newline = buf
            .get(scanned..)
            .and_then(|rest| rest.iter().position(|&b| b == b'\n'));
        if let Some(at) = newline {
            let end = scanned.saturating_add(at).saturating_add(1);
            let line = buf.get(..end).unwrap_or_default();
            if let Some((done, total)) = parse_progress(line) {
                progress(done, total);
                buf.drain(..end);
                scanned = 0;
                continue;
            }
            // The answer; the worker writes nothing after it.
            buf.truncate(end);
            return Ok(Answer::Line(buf));
        }
        scanned = buf.len();
        // Room for a pipe's worth, reserved, not written: a short answer
        // touches one page of it.
        buf.reserve(READ_CHUNK);
        if stdout.read_buf(&mut buf).await? == 0 {
            return Ok(Answer::Rest(buf));
        }
    }
}
