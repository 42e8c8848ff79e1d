//! The parent's side: start a worker (or take the one started ahead of
//! need), send it the job, relay its progress, enforce the wall-clock
//! timeout, and kill it at once when the caller aborts. A blocking call
//! reads the worker's stdout on a reader thread started with the call; an
//! asynchronous one reads it on its runtime ([`pipes`]).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::super::error::PdfError;
use super::super::limits::{Limit, Limits};
use super::failed;
use super::protocol::{parse_progress, MAX_PROGRESS_LINE};
use super::{Isolation, MAX_STDERR_TAIL};

#[cfg(feature = "mcp")]
pub(super) mod pipes;

/// What the waiting parent hears about one worker run.
#[derive(Debug)]
pub(super) enum Event {
    /// Pages done and total pages.
    Progress(u32, u32),
    /// The worker's answer.
    Answer(std::io::Result<Answer>),
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
    wants_progress: bool,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watch(..)")
    }
}

impl Default for Watch {
    /// A watch without progress (the worker then reports none).
    fn default() -> Self {
        let mut watch = Self::new(|_, _| {});
        watch.wants_progress = false;
        watch
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
            wants_progress: true,
        }
    }

    /// Whether this watch has a progress callback (the worker reports
    /// pages only then).
    pub(super) fn wants_progress(&self) -> bool {
        self.wants_progress
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
/// starts its own when none is ready) and no process ever serves two
/// calls. A keeper thread reaps each worker after its call has been
/// answered and then starts the next spare, so neither the reaping nor the
/// start (nor the start of a thread) is on a call's path, and a spare
/// never competes for the CPU with the call it follows. Dropping the pool
/// kills the spare.
#[derive(Debug)]
pub struct Prestarted {
    isolation: Isolation,
    slot: Arc<(Mutex<Slot>, Condvar)>,
    keeper: Mutex<mpsc::Sender<Keep>>,
}

#[derive(Debug, Default)]
struct Slot {
    spare: Option<Started>,
    starting: bool,
    closed: bool,
}

/// What the keeper thread is asked to do.
enum Keep {
    /// Reap a worker that answered, then start a spare.
    Reap(Exiting),
    /// Start a spare.
    Refill,
}

/// The longest a call waits for the spare being started before it starts
/// a worker of its own.
const SPARE_WAIT: Duration = Duration::from_secs(1);

fn lock(m: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Prestarted {
    /// A pool for `isolation`, starting its first spare now (in the
    /// background).
    pub fn new(isolation: Isolation) -> Self {
        let slot = Arc::new((Mutex::new(Slot::default()), Condvar::new()));
        let (keeper, rx) = mpsc::channel();
        let pool = Self {
            isolation: isolation.clone(),
            slot: Arc::clone(&slot),
            keeper: Mutex::new(keeper),
        };
        let spawned = helper("pdf-keeper", move || {
            refill(&slot, &isolation);
            while let Ok(keep) = rx.recv() {
                if let Keep::Reap(exiting) = keep {
                    exiting.reap();
                }
                refill(&slot, &isolation);
            }
        });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "cannot start the pdf worker keeper: no worker ahead of need");
        }
        pool
    }

    /// The isolation every worker of this pool runs under.
    pub fn isolation(&self) -> &Isolation {
        &self.isolation
    }

    /// Whether a spare worker is waiting now.
    pub fn is_ready(&self) -> bool {
        lock(&self.slot.0).spare.is_some()
    }

    /// The spare when one is alive (waiting for the one being started, at
    /// most [`SPARE_WAIT`]), else a worker started now.
    fn take(&self) -> Result<Started, PdfError> {
        take(&self.slot, &self.isolation)
    }

    /// The spare when one is alive now; never blocks.
    #[cfg(feature = "mcp")]
    fn try_take(&self) -> Option<Started> {
        let mut started = lock(&self.slot.0).spare.take()?;
        if matches!(started.child.try_wait(), Ok(None)) {
            return Some(started);
        }
        started.discard();
        None
    }

    /// [`Prestarted::take`] to run on another thread.
    #[cfg(feature = "mcp")]
    fn taker(&self) -> impl FnOnce() -> Result<Started, PdfError> + Send + 'static {
        let slot = Arc::clone(&self.slot);
        let isolation = self.isolation.clone();
        move || take(&slot, &isolation)
    }

    /// The way to the keeper thread, for a call that hands it its worker
    /// later.
    #[cfg(feature = "mcp")]
    fn keeper(&self) -> mpsc::Sender<Keep> {
        self.keeper
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// After a call: the keeper reaps its worker when it answered and is
    /// exiting, then starts the next spare.
    fn after(&self, exiting: Option<Exiting>) {
        self.keep(exiting.map_or(Keep::Refill, Keep::Reap));
    }

    /// Hands the keeper a worker that answered (or asks for a spare).
    fn keep(&self, keep: Keep) {
        let sent = self
            .keeper
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .send(keep);
        if let Err(mpsc::SendError(Keep::Reap(exiting))) = sent {
            exiting.reap();
        }
    }
}

/// The spare in `slot` when one is alive (waiting for the one being
/// started, at most [`SPARE_WAIT`]), else a worker started now.
fn take(slot: &(Mutex<Slot>, Condvar), isolation: &Isolation) -> Result<Started, PdfError> {
    let (m, ready) = slot;
    let mut slot = lock(m);
    let until = Instant::now() + SPARE_WAIT;
    while slot.spare.is_none() && slot.starting {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        slot = ready
            .wait_timeout(slot, left)
            .map(|(g, _)| g)
            .unwrap_or_else(|e| e.into_inner().0);
    }
    let spare = slot.spare.take();
    drop(slot);
    if let Some(mut started) = spare {
        if matches!(started.child.try_wait(), Ok(None)) {
            return Ok(started);
        }
        started.discard();
    }
    start(isolation, false)
}

/// Starts a spare into `slot` unless it holds one or is closed (the keeper
/// thread's job).
fn refill(slot: &(Mutex<Slot>, Condvar), isolation: &Isolation) {
    let (m, ready) = slot;
    {
        let mut s = lock(m);
        if s.closed || s.spare.is_some() {
            return;
        }
        s.starting = true;
    }
    let started = start(isolation, true);
    let mut s = lock(m);
    s.starting = false;
    match started {
        Ok(w) if s.closed => {
            drop(s);
            w.discard();
        }
        Ok(w) => s.spare = Some(w),
        Err(e) => tracing::warn!(error = %e, "cannot start a spare pdf worker"),
    }
    ready.notify_all();
}

impl Drop for Prestarted {
    fn drop(&mut self) {
        let spare = {
            let mut slot = lock(&self.slot.0);
            slot.closed = true;
            slot.spare.take()
        };
        if let Some(w) = spare {
            w.discard();
        }
        // Dropping `keeper` ends the keeper thread once its work is done.
    }
}

/// Stack of the threads that feed and read a worker (they hold a pipe and
/// a buffer on the heap).
const HELPER_STACK: usize = 256 << 10;

/// The job one worker is fed: the request line and the document.
type Feed = (Vec<u8>, Vec<u8>);

/// The largest job written to the worker from the call's own thread: it
/// fits in a fresh pipe's buffer (64 KiB on Linux), and the worker reads
/// its whole job first anyway. A larger one goes through a feeder thread,
/// so the call keeps watching its deadline.
const INLINE_FEED: usize = 60 << 10;

/// The worker's stdin, kept open until the parent has the worker's exit
/// (see the module docs): dropping it closes the pipe.
#[derive(Debug)]
enum Feeding {
    /// The job was written from the call's thread.
    Written(ChildStdin),
    /// A feeder thread writes the job and holds stdin until this is dropped.
    Feeder(mpsc::Sender<()>),
}

impl Feeding {
    /// Closes the worker's stdin (at once, or through its feeder).
    fn close(self) {
        match self {
            Self::Written(stdin) => drop(stdin),
            Self::Feeder(hold) => drop(hold),
        }
    }
}

/// Writes `job` to the worker's stdin (see [`INLINE_FEED`]).
fn feed(mut stdin: ChildStdin, job: Feed) -> std::io::Result<Feeding> {
    let (mut header, data) = job;
    if header.len().saturating_add(data.len()) <= INLINE_FEED {
        // One write, so the waiting worker wakes once for its whole job. A
        // worker that died early closes the pipe: the error shows at its exit.
        header.extend_from_slice(&data);
        let _ = stdin.write_all(&header);
        return Ok(Feeding::Written(stdin));
    }
    let (hold, held) = mpsc::channel::<()>();
    helper("pdf-worker-in", move || {
        let _ = stdin
            .write_all(&header)
            .and_then(|()| stdin.write_all(&data));
        // Closed, never sent on: the parent has the worker's exit.
        let _ = held.recv();
        drop(stdin);
    })?;
    Ok(Feeding::Feeder(hold))
}

/// A worker process with its stderr reader thread already running (it
/// keeps the tail); for a worker started ahead of need, everything here
/// happened before the call. Its stdout is read by the call: on the
/// engine's runtime ([`pipes`]), or by a reader thread started with the
/// call that relays progress and the answer ([`read_answer`]).
#[derive(Debug)]
struct Started {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    err_reader: JoinHandle<String>,
}

impl Started {
    /// Kills the worker and reaps it; its helpers end as its pipes close.
    fn discard(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn helper<T: Send + 'static>(
    name: &str,
    job: impl FnOnce() -> T + Send + 'static,
) -> std::io::Result<JoinHandle<T>> {
    std::thread::Builder::new()
        .name(name.into())
        .stack_size(HELPER_STACK)
        .spawn(job)
}

/// Starts a worker (see [`spawn`]) and its helper threads.
fn start(isolation: &Isolation, warm: bool) -> Result<Started, PdfError> {
    let mut child = spawn(isolation, warm)?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(failed("the worker's pipes are missing"));
    };
    match helper("pdf-worker-err", move || stderr_tail(stderr)) {
        Ok(err_reader) => Ok(Started {
            child,
            stdin,
            stdout,
            err_reader,
        }),
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(failed(
                "cannot start the threads that feed and read the worker",
            ))
        }
    }
}

/// Starts a worker under `isolation`'s limits; it waits for its request,
/// after warming its extractor up when `warm` (a worker started ahead of
/// need: the warm-up costs no call any time).
fn spawn(isolation: &Isolation, warm: bool) -> Result<Child, PdfError> {
    let mut command = Command::new(&isolation.worker_exe);
    command
        .arg("pdf-worker")
        .arg("--memory-bytes")
        .arg(isolation.memory.to_string())
        .arg("--cpu-seconds")
        .arg(isolation.cpu_seconds().to_string());
    if warm {
        command.arg("--warm");
    }
    command
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
/// returns its stdout's answer line once it is whole (the worker is then
/// reaped behind the call), or, without one, when the worker exited 0.
pub(super) fn run(
    header: Vec<u8>,
    data: Vec<u8>,
    limits: &Limits,
    memory: u64,
    isolation: &Isolation,
    pool: Option<&Prestarted>,
    watch: Watch,
) -> Result<Vec<u8>, PdfError> {
    let started = match pool {
        Some(p) => p.take()?,
        None => start(isolation, false)?,
    };
    let (result, exiting) = wait(started, (header, data), limits, memory, isolation, watch);
    match (pool, exiting) {
        (Some(p), exiting) => p.after(exiting),
        (None, Some(exiting)) => exiting.reap(),
        (None, None) => {}
    }
    result
}

/// The call's outcome, and the worker when it answered and is still
/// exiting (to be reaped behind the call).
fn wait(
    started: Started,
    job: Feed,
    limits: &Limits,
    memory: u64,
    isolation: &Isolation,
    mut watch: Watch,
) -> (Result<Vec<u8>, PdfError>, Option<Exiting>) {
    let Started {
        mut child,
        stdin,
        stdout,
        err_reader,
    } = started;
    let max_answer = max_answer_bytes(limits);
    let deadline = Instant::now() + isolation.timeout;
    let tx = watch.tx.clone();
    let reading = helper("pdf-worker-out", move || {
        read_answer(stdout, max_answer, &tx);
    });
    let fed = reading.ok().and_then(|_| feed(stdin, job).ok());
    let Some(feed) = fed else {
        let _ = child.kill();
        let _ = child.wait();
        let gone = failed("the threads that feed and read the worker are gone");
        return (Err(gone), None);
    };
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
    let worker = Exiting {
        child,
        feed,
        err_reader,
        deadline,
        killed: false,
    };
    conclude(answer, worker, aborted, max_answer, memory, isolation)
}

/// The call's outcome from what its worker's stdout gave (`None`: the
/// deadline passed or the caller aborted), and the worker when it
/// answered and is still exiting (to be reaped behind the call). Blocks
/// (waiting for the worker's exit, killing it at its deadline) unless the
/// answer is a whole line within `max_answer` bytes.
fn conclude(
    answer: Option<std::io::Result<Answer>>,
    worker: Exiting,
    aborted: bool,
    max_answer: usize,
    memory: u64,
    isolation: &Isolation,
) -> (Result<Vec<u8>, PdfError>, Option<Exiting>) {
    let Exiting {
        child,
        feed,
        err_reader,
        deadline,
        ..
    } = worker;
    // A whole answer line (the worker had read its whole job to write
    // it): the call is answered now, and the worker, which only exits from
    // here on, is reaped behind it.
    if let Some(Ok(Answer::Line(line))) = answer {
        if line.len() <= max_answer {
            let exiting = Exiting {
                child,
                feed,
                err_reader,
                deadline,
                killed: false,
            };
            return (Ok(line), Some(exiting));
        }
        let _ = settle(child, feed, err_reader, deadline, false).0;
        let large = failed("the worker's answer is larger than the output cap");
        return (Err(large), None);
    }
    // stdout closed (or the deadline passed, or the caller aborted): the
    // worker is exiting or must be killed.
    let (status, tail) = settle(child, feed, err_reader, deadline, aborted);
    let ran = Ran {
        status,
        aborted,
        out_of_memory: out_of_memory(&tail),
        memory,
    };
    (outcome(answer, ran, max_answer, isolation), None)
}

/// The longest answer line read from a worker: the most characters an
/// answer may carry (extracted text, or the metadata's Info values and XMP
/// packet), each escaped by JSON into at most 6 bytes, plus 16 MiB for the
/// rest. Past it the answer is refused, never held.
pub(super) fn max_answer_bytes(limits: &Limits) -> usize {
    use super::super::limits::{MAX_INFO_ENTRIES, MAX_INFO_VALUE_CHARS, MAX_XMP_BYTES};
    let metadata = MAX_INFO_ENTRIES
        .saturating_mul(MAX_INFO_VALUE_CHARS)
        .saturating_add(MAX_XMP_BYTES);
    limits
        .max_output_chars
        .max(metadata)
        .saturating_mul(6)
        .saturating_add(16 << 20)
}

/// How a worker that gave no whole answer line ended.
struct Ran {
    /// Its exit status (`Err` when it was killed at the deadline).
    status: Result<std::process::ExitStatus, PdfError>,
    /// The caller aborted the call.
    aborted: bool,
    /// Its stderr says an allocation failed ([`out_of_memory`]).
    out_of_memory: bool,
    /// Its address-space limit for this call ([`super::worker_memory_for`]).
    memory: u64,
}

/// Whether the worker's stderr tail is Rust's report of a failed
/// allocation (`memory allocation of N bytes failed`), which the
/// address-space limit causes.
pub(super) fn out_of_memory(tail: &str) -> bool {
    tail.contains("memory allocation of") && tail.contains("failed")
}

/// The outcome of a call whose worker has exited or been killed.
fn outcome(
    answer: Option<std::io::Result<Answer>>,
    ran: Ran,
    max_answer: usize,
    isolation: &Isolation,
) -> Result<Vec<u8>, PdfError> {
    if ran.aborted {
        return Err(failed("aborted by the caller; the worker was killed"));
    }
    let Ok(status) = ran.status else {
        // Killed at the deadline: the limit the call reached, typed.
        return Err(PdfError::LimitExceeded {
            limit: Limit::WorkerTime,
            max: u64::try_from(isolation.timeout.as_millis()).unwrap_or(u64::MAX),
        });
    };
    if let Some(Ok(Answer::Line(buf) | Answer::Rest(buf))) = &answer {
        // Checked before the exit status: a worker whose answer was not
        // read to its end fails its write and exits with an error.
        if buf.len() > max_answer {
            return Err(failed("the worker's answer is larger than the output cap"));
        }
    }
    if !status.success() {
        if ran.out_of_memory {
            return Err(PdfError::LimitExceeded {
                limit: Limit::WorkerMemory,
                max: ran.memory,
            });
        }
        return Err(failed(describe_exit(status, isolation)));
    }
    match answer {
        Some(Ok(Answer::Line(buf) | Answer::Rest(buf))) if buf.len() <= max_answer => Ok(buf),
        Some(Ok(_)) => Err(failed("the worker's answer is larger than the output cap")),
        Some(Err(e)) => Err(failed(format!("cannot read the worker's answer: {e}"))),
        None => Err(failed("the worker exited without answering")),
    }
}

/// Collects the worker's exit (see [`finish`]), then closes its stdin and
/// logs its stderr; the status is `Err` when it was killed. Also returns
/// the stderr tail.
fn settle(
    mut child: Child,
    feed: Feeding,
    err_reader: JoinHandle<String>,
    deadline: Instant,
    aborted: bool,
) -> (Result<std::process::ExitStatus, PdfError>, String) {
    let status = finish(&mut child, aborted, deadline);
    // The worker has exited (or been killed and reaped): now its stdin may close.
    feed.close();
    let tail = err_reader.join().unwrap_or_default();
    log_stderr(&tail, aborted);
    (status.ok_or_else(|| failed("killed")), tail)
}

/// Waits for the worker's exit until `deadline` (not at all when
/// `aborted`), killing it past that; `None` when it was killed.
fn finish(child: &mut Child, aborted: bool, deadline: Instant) -> Option<std::process::ExitStatus> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if !aborted && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_micros(200))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// A worker that has answered and is exiting: reaped behind the call (by
/// the pool's keeper), killed at the call's deadline if it lingers, its
/// stdin closed only after that, its stderr logged.
struct Exiting {
    child: Child,
    feed: Feeding,
    err_reader: JoinHandle<String>,
    deadline: Instant,
    /// Killed because its call was dropped (cancelled): nothing to log.
    killed: bool,
}

impl Exiting {
    /// Waits for the exit (killing the worker at the call's deadline),
    /// closes its stdin, logs its stderr.
    fn reap(self) {
        let killed = self.killed;
        let (status, _) = settle(
            self.child,
            self.feed,
            self.err_reader,
            self.deadline,
            killed,
        );
        if !killed && !status.as_ref().is_ok_and(std::process::ExitStatus::success) {
            tracing::warn!(target: "toolgate::pdf::worker", ?status, "pdf worker answered, then did not exit cleanly");
        }
    }
}

/// The last [`MAX_STDERR_TAIL`] bytes of the worker's stderr (it reads at
/// most 1 MiB).
fn stderr_tail(stderr: impl Read) -> String {
    let mut buf = Vec::new();
    let _ = stderr.take(1 << 20).read_to_end(&mut buf);
    let from = buf.len().saturating_sub(MAX_STDERR_TAIL);
    String::from_utf8_lossy(buf.get(from..).unwrap_or_default()).into_owned()
}

/// The worker's stderr can hold a backtrace with build paths and
/// dependency versions: it goes to our log only, never into the error
/// (which reaches the agent).
fn log_stderr(tail: &str, aborted: bool) {
    let tail = tail.trim();
    if !tail.is_empty() && !aborted {
        tracing::warn!(target: "toolgate::pdf::worker", stderr = %tail, "pdf worker stderr");
    }
}

/// The worker's answer as its stdout reader saw it.
#[derive(Debug)]
pub(super) enum Answer {
    /// A whole line, newline included: the worker has answered.
    Line(Vec<u8>),
    /// Everything up to end-of-file (or the cap) without a newline.
    Rest(Vec<u8>),
}

/// Reads the worker's stdout: progress lines become events; the first
/// other line is the answer ([`Answer::Line`]), or, without a newline,
/// whatever came before end-of-file, at most `max_answer + 1` bytes in
/// all ([`Answer::Rest`]).
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
            None if buf.ends_with(b"\n") => break Ok(Answer::Line(buf)),
            None => {
                break reader.read_until(b'\n', &mut buf).map(|_| {
                    if buf.ends_with(b"\n") {
                        Answer::Line(buf)
                    } else {
                        Answer::Rest(buf)
                    }
                })
            }
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
