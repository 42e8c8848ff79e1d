//! The parent's side: start a worker (or take the one started ahead of
//! need), send it the job, relay its progress, enforce the wall-clock
//! timeout, and kill it at once when the caller aborts.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::super::error::PdfError;
use super::super::limits::{Limit, Limits};
use super::failed;
use super::protocol::{parse_progress, MAX_PROGRESS_LINE};
use super::{Isolation, MAX_STDERR_TAIL};

/// What the waiting parent hears about one worker run.
#[derive(Debug)]
pub(super) enum Event {
    /// Pages done and total pages.
    Progress(u32, u32),
    /// The worker's stdout up to its end: the answer line.
    Answer(std::io::Result<Vec<u8>>),
    /// The caller gave up: kill the worker.
    Abort,
}

/// Stops one isolated call from any thread: the worker is killed at once
/// and the call returns `worker_failed` ("aborted"). Aborting a call that
/// has finished does nothing.
#[derive(Debug, Clone)]
pub struct Abort {
    tx: mpsc::Sender<Event>,
}

impl Abort {
    /// Kills the call's worker.
    pub fn abort(&self) {
        let _ = self.tx.send(Event::Abort);
    }
}

/// The caller's side of one isolated call: its progress callback and the
/// channel an [`Abort`] uses.
pub struct Watch {
    tx: mpsc::Sender<Event>,
    rx: mpsc::Receiver<Event>,
    progress: Box<dyn FnMut(u32, u32) + Send>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watch(..)")
    }
}

impl Default for Watch {
    fn default() -> Self {
        Self::new(|_, _| {})
    }
}

impl Watch {
    /// A watch calling `progress(done, total)` as the worker reports pages
    /// (extraction only).
    pub fn new(progress: impl FnMut(u32, u32) + Send + 'static) -> Self {
        let (tx, rx) = mpsc::channel();
        Self {
            tx,
            rx,
            progress: Box::new(progress),
        }
    }

    /// A handle that aborts the call this watch is given to.
    pub fn abort_handle(&self) -> Abort {
        Abort {
            tx: self.tx.clone(),
        }
    }
}

/// One worker process started ahead of need, so a call does not wait for
/// a process start. Isolation is unchanged: each call takes the spare (or
/// starts its own when none is ready) and a fresh spare is started behind
/// it; no process ever serves two calls. Dropping the pool kills the spare.
#[derive(Debug)]
pub struct Prestarted {
    isolation: Isolation,
    slot: Arc<Mutex<Slot>>,
}

#[derive(Debug, Default)]
struct Slot {
    spare: Option<Child>,
    starting: bool,
    closed: bool,
}

fn lock(m: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Prestarted {
    /// A pool for `isolation`, starting its first spare now (in the
    /// background).
    pub fn new(isolation: Isolation) -> Self {
        let pool = Self {
            isolation,
            slot: Arc::new(Mutex::new(Slot::default())),
        };
        pool.refill();
        pool
    }

    /// The isolation every worker of this pool runs under.
    pub fn isolation(&self) -> &Isolation {
        &self.isolation
    }

    /// Whether a spare worker is waiting now.
    pub fn is_ready(&self) -> bool {
        lock(&self.slot).spare.is_some()
    }

    /// The spare when it is alive (a fresh spare is started behind it),
    /// else a worker started now.
    fn take(&self) -> Result<Child, PdfError> {
        let spare = lock(&self.slot).spare.take();
        self.refill();
        if let Some(mut child) = spare {
            if matches!(child.try_wait(), Ok(None)) {
                return Ok(child);
            }
            let _ = child.wait();
        }
        spawn(&self.isolation)
    }

    fn refill(&self) {
        {
            let mut slot = lock(&self.slot);
            if slot.closed || slot.starting || slot.spare.is_some() {
                return;
            }
            slot.starting = true;
        }
        let slot = Arc::clone(&self.slot);
        let isolation = self.isolation.clone();
        let started = std::thread::Builder::new()
            .name("pdf-prestart".into())
            .spawn(move || {
                let child = spawn(&isolation);
                let mut s = lock(&slot);
                s.starting = false;
                match child {
                    Ok(mut c) if s.closed => {
                        let _ = c.kill();
                        let _ = c.wait();
                    }
                    Ok(c) => s.spare = Some(c),
                    Err(e) => tracing::warn!(error = %e, "cannot start a spare pdf worker"),
                }
            });
        if started.is_err() {
            lock(&self.slot).starting = false;
        }
    }
}

impl Drop for Prestarted {
    fn drop(&mut self) {
        let spare = {
            let mut slot = lock(&self.slot);
            slot.closed = true;
            slot.spare.take()
        };
        if let Some(mut child) = spare {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Starts a worker under `isolation`'s limits; it waits for its request.
pub(super) fn spawn(isolation: &Isolation) -> Result<Child, PdfError> {
    Command::new(&isolation.worker_exe)
        .arg("pdf-worker")
        .arg("--memory-bytes")
        .arg(isolation.memory.to_string())
        .arg("--cpu-seconds")
        .arg(isolation.cpu_seconds().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            failed(format!(
                "cannot start the worker {}: {e}",
                isolation.worker_exe.display()
            ))
        })
}

/// Runs a worker (the pool's spare when given) on `header` + `data`;
/// returns its stdout's answer line when it exited 0.
pub(super) fn run(
    header: &[u8],
    data: &[u8],
    limits: &Limits,
    isolation: &Isolation,
    pool: Option<&Prestarted>,
    watch: Watch,
) -> Result<Vec<u8>, PdfError> {
    let child = match pool {
        Some(p) => p.take()?,
        None => spawn(isolation)?,
    };
    wait(child, header, data, limits, isolation, watch)
}

fn wait(
    mut child: Child,
    header: &[u8],
    data: &[u8],
    limits: &Limits,
    isolation: &Isolation,
    mut watch: Watch,
) -> Result<Vec<u8>, PdfError> {
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(failed("the worker's pipes are missing"));
    };
    // JSON escapes at most 6 bytes per character of text, plus slack.
    let max_answer = limits
        .max_output_chars
        .saturating_mul(6)
        .saturating_add(16 << 20);
    let deadline = Instant::now() + isolation.timeout;
    std::thread::scope(|s| {
        // The writer hands stdin back instead of closing it: the worker reads
        // end-of-file on it as "the parent is gone" (see the module docs).
        let writer = s.spawn(move || {
            // A worker that dies early closes the pipe: the error is expected.
            let _ = stdin.write_all(header).and_then(|()| stdin.write_all(data));
            stdin
        });
        let tx = watch.tx.clone();
        s.spawn(move || read_answer(stdout, max_answer, &tx));
        let err_reader = s.spawn(move || {
            let mut buf = Vec::new();
            let _ = stderr.take(1 << 20).read_to_end(&mut buf);
            let from = buf.len().saturating_sub(MAX_STDERR_TAIL);
            String::from_utf8_lossy(buf.get(from..).unwrap_or_default()).into_owned()
        });
        let mut aborted = false;
        let answer = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match watch.rx.recv_timeout(left) {
                Ok(Event::Progress(done, total)) => (watch.progress)(done, total),
                Ok(Event::Answer(a)) => break Some(a),
                Ok(Event::Abort) => {
                    aborted = true;
                    break None;
                }
                Err(_) => break None,
            }
        };
        // stdout closed (or the deadline passed, or the caller aborted): the
        // worker is exiting or must be killed.
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if !aborted && Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_micros(200))
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
            }
        };
        // The worker has exited (or been killed and reaped): now its stdin may close.
        drop(writer.join());
        let tail = err_reader.join().unwrap_or_default();
        let tail = tail.trim();
        // The worker's stderr can hold a backtrace with build paths and
        // dependency versions: it goes to our log only, never into the error
        // (which reaches the agent).
        if !tail.is_empty() && !aborted {
            tracing::warn!(target: "toolgate::pdf::worker", stderr = %tail, "pdf worker stderr");
        }
        if aborted {
            return Err(failed("aborted by the caller; the worker was killed"));
        }
        let Some(status) = status else {
            return Err(failed(format!(
                "timed out after {} ms and was killed ({} limit)",
                isolation.timeout.as_millis(),
                Limit::WorkerTime
            )));
        };
        if !status.success() {
            return Err(failed(describe_exit(status, isolation)));
        }
        match answer {
            Some(Ok(buf)) if buf.len() <= max_answer => Ok(buf),
            Some(Ok(_)) => Err(failed("the worker's answer is larger than the output cap")),
            Some(Err(e)) => Err(failed(format!("cannot read the worker's answer: {e}"))),
            None => Err(failed("the worker exited without answering")),
        }
    })
}

/// Reads the worker's stdout: progress lines become events, the first
/// other line (with whatever follows it, at most `max_answer + 1` bytes in
/// all) is the answer.
fn read_answer(stdout: impl Read, max_answer: usize, tx: &mpsc::Sender<Event>) {
    let cap = u64::try_from(max_answer)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let mut reader = BufReader::new(stdout.take(cap));
    let mut buf = Vec::new();
    let answer = loop {
        buf.clear();
        let first = (&mut reader)
            .take(u64::try_from(MAX_PROGRESS_LINE).unwrap_or(u64::MAX))
            .read_until(b'\n', &mut buf);
        if let Err(e) = first {
            break Err(e);
        }
        match parse_progress(&buf) {
            Some((done, total)) => {
                let _ = tx.send(Event::Progress(done, total));
            }
            None => break reader.read_to_end(&mut buf).map(|_| buf),
        }
    };
    let _ = tx.send(Event::Answer(answer));
}

fn describe_exit(status: std::process::ExitStatus, isolation: &Isolation) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(6) => format!(
            "aborted (SIGABRT: an allocation past the {} MiB address-space limit, or a Rust abort)",
            isolation.memory >> 20
        ),
        Some(9) => "killed (SIGKILL: CPU hard limit or the system's OOM killer)".into(),
        Some(11) => "crashed (SIGSEGV: stack overflow or memory exhaustion)".into(),
        Some(24) => format!(
            "CPU time limit of {} s reached (SIGXCPU)",
            isolation.cpu_seconds()
        ),
        Some(sig) => format!("killed by signal {sig}"),
        None => format!("exited with {status}"),
    }
}
