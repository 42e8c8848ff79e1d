//! Process isolation: each call runs in `toolgate pdf-worker`, a subprocess of
//! the same binary that limits its own address space and CPU time (rlimit,
//! no `unsafe`), catches panics, and answers one JSON line. The parent enforces
//! a wall-clock timeout and kills the worker when it runs over.
//!
//! Protocol (private to this module, both ends are the same binary):
//! * stdin: one JSON [`Request`] line, then exactly `data_len` bytes of PDF.
//!   The password travels on stdin, never on the command line.
//! * stdout: one JSON [`Response`] line; exit status 0.
//! * stderr: free text (panic messages), of which the parent keeps a tail.
//! * The parent keeps the worker's stdin open until it has collected the
//!   worker's exit status. A worker whose stdin reaches end-of-file while it
//!   is still working exits at once ([`ORPHAN_EXIT_CODE`]): its parent is
//!   gone (killed, even by SIGKILL, which closes the parent's end of the
//!   pipe) and nobody will read the answer. So a worker never outlives its
//!   caller by more than a scheduling delay.

use std::io::{BufRead, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::error::PdfError;
use super::limits::{Limit, Limits};
use super::source::{read_bounded, Source};
use super::{extract, metadata, Extraction, Metadata, Options, PageRange};

/// Default wall-clock timeout of one worker call: 5 s. Every generated
/// hostile file finishes in well under 2 s in a release build (docs/pdf.md), and
/// the largest real file of the corpus in a fraction of a second; a server
/// should not hold a request longer. Debug builds (tests) pass a longer one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// Default address-space limit of the worker: 768 MiB of virtual memory
/// (resident memory stays far below: see the hostile-file table in docs/pdf.md).
pub const DEFAULT_WORKER_MEMORY: u64 = 768 << 20;
/// Most bytes of the worker's stderr kept for the error message.
pub const MAX_STDERR_TAIL: usize = 2048;
/// Longest request header line, in bytes.
const MAX_REQUEST_LINE: u64 = 64 << 10;
/// Longest password passed to the worker, in bytes. The Standard security
/// handler reads at most the first 32 bytes (revisions 2-4) or 127 bytes
/// (revision 6) of a password (ISO 32000-2 §7.6.4.3.2, §7.6.4.3.3), so a
/// longer one is cut here (on a character boundary) without changing its
/// meaning, and can never overflow the request line.
pub const MAX_PASSWORD_BYTES: usize = 1024;
/// Exit code of a worker that found its parent gone (stdin closed early).
pub const ORPHAN_EXIT_CODE: i32 = 4;

/// How to run the worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Isolation {
    /// The `toolgate` binary (its hidden `pdf-worker` subcommand is run). In
    /// integration tests: `env!("CARGO_BIN_EXE_toolgate")`.
    pub worker_exe: PathBuf,
    /// Wall-clock timeout; the worker's CPU limit is this rounded up, plus 1 s.
    pub timeout: Duration,
    /// Address-space limit of the worker (`RLIMIT_AS`), in bytes.
    pub memory: u64,
}

impl Isolation {
    /// Isolation through `worker_exe` with [`DEFAULT_TIMEOUT`] and
    /// [`DEFAULT_WORKER_MEMORY`].
    pub fn new(worker_exe: impl Into<PathBuf>) -> Self {
        Self {
            worker_exe: worker_exe.into(),
            timeout: DEFAULT_TIMEOUT,
            memory: DEFAULT_WORKER_MEMORY,
        }
    }

    /// Isolation through the running executable (which must be `toolgate`).
    ///
    /// # Errors
    /// `io` when the executable's path cannot be found.
    pub fn current_exe() -> Result<Self, PdfError> {
        std::env::current_exe()
            .map(Self::new)
            .map_err(|e| PdfError::Io {
                detail: format!("cannot locate the worker executable: {e}"),
            })
    }

    fn cpu_seconds(&self) -> u64 {
        self.timeout.as_secs().saturating_add(2)
    }
}

/// What the parent measured about one worker run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerStats {
    /// Wall-clock time from spawn to exit, in microseconds.
    pub elapsed_us: u64,
    /// The worker's peak resident set size (`VmHWM`) in KiB, as it reported
    /// before exiting; `None` when it died first.
    pub max_rss_kib: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Op {
    Extract,
    Metadata,
}

#[derive(Debug, Serialize, Deserialize)]
struct Request {
    op: Op,
    pages: Option<PageRange>,
    password: Option<String>,
    limits: Limits,
    data_len: usize,
}

#[derive(Debug, Serialize, Deserialize)]
struct Response<T> {
    outcome: Result<T, PdfError>,
    max_rss_kib: Option<u64>,
}

/// Extracts text in a worker process.
///
/// # Errors
/// Every error of [`super::extract_in_process`], plus `worker_failed` when the
/// worker crashed, was killed, timed out or answered garbage.
pub fn extract_isolated(
    source: Source<'_>,
    pages: Option<PageRange>,
    options: &Options,
    isolation: &Isolation,
) -> Result<Extraction, PdfError> {
    extract_isolated_with_stats(source, pages, options, isolation).0
}

/// Reads metadata in a worker process.
///
/// # Errors
/// As [`extract_isolated`], without `page_out_of_range`.
pub fn metadata_isolated(
    source: Source<'_>,
    options: &Options,
    isolation: &Isolation,
) -> Result<Metadata, PdfError> {
    metadata_isolated_with_stats(source, options, isolation).0
}

/// [`extract_isolated`], also returning the worker's time and peak RSS.
pub fn extract_isolated_with_stats(
    source: Source<'_>,
    pages: Option<PageRange>,
    options: &Options,
    isolation: &Isolation,
) -> (Result<Extraction, PdfError>, WorkerStats) {
    run_job(source, Op::Extract, pages, options, isolation)
}

/// [`metadata_isolated`], also returning the worker's time and peak RSS.
pub fn metadata_isolated_with_stats(
    source: Source<'_>,
    options: &Options,
    isolation: &Isolation,
) -> (Result<Metadata, PdfError>, WorkerStats) {
    run_job(source, Op::Metadata, None, options, isolation)
}

/// At most [`MAX_PASSWORD_BYTES`] of `p`, cut on a character boundary.
fn cut_password(p: &str) -> String {
    let mut end = p.len().min(MAX_PASSWORD_BYTES);
    while !p.is_char_boundary(end) {
        end = end.saturating_sub(1);
    }
    p.get(..end).unwrap_or_default().to_owned()
}

fn failed(reason: impl Into<String>) -> PdfError {
    PdfError::WorkerFailed {
        reason: reason.into(),
    }
}

fn run_job<T: DeserializeOwned>(
    source: Source<'_>,
    op: Op,
    pages: Option<PageRange>,
    options: &Options,
    isolation: &Isolation,
) -> (Result<T, PdfError>, WorkerStats) {
    let mut stats = WorkerStats::default();
    let data = match read_bounded(source, options.limits.max_input_bytes) {
        Ok(d) => d,
        Err(e) => return (Err(e), stats),
    };
    let request = Request {
        op,
        pages,
        password: options.password.as_deref().map(cut_password),
        limits: options.limits,
        data_len: data.len(),
    };
    let mut header = match serde_json::to_vec(&request) {
        Ok(h) => h,
        Err(e) => {
            return (
                Err(failed(format!("cannot encode the request: {e}"))),
                stats,
            )
        }
    };
    header.push(b'\n');
    let start = Instant::now();
    let outcome = spawn_and_wait(&header, &data, &options.limits, isolation);
    stats.elapsed_us = u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX);
    let result = outcome.and_then(|stdout| {
        serde_json::from_slice::<Response<T>>(&stdout)
            .map_err(|e| failed(format!("unreadable answer from the worker: {e}")))
            .map(|r| {
                stats.max_rss_kib = r.max_rss_kib;
                r.outcome
            })
    });
    (result.and_then(|r| r), stats)
}

/// Runs the worker on `header` + `data`; returns its stdout when it exited 0.
fn spawn_and_wait(
    header: &[u8],
    data: &[u8],
    limits: &Limits,
    isolation: &Isolation,
) -> Result<Vec<u8>, PdfError> {
    let mut child = Command::new(&isolation.worker_exe)
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
        })?;
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
        let (tx, rx) = mpsc::channel();
        s.spawn(move || {
            let mut buf = Vec::new();
            let r = stdout
                .take(
                    u64::try_from(max_answer)
                        .unwrap_or(u64::MAX)
                        .saturating_add(1),
                )
                .read_to_end(&mut buf);
            let _ = tx.send(r.map(|_| buf));
        });
        let err_reader = s.spawn(move || {
            let mut buf = Vec::new();
            let _ = stderr.take(1 << 20).read_to_end(&mut buf);
            let from = buf.len().saturating_sub(MAX_STDERR_TAIL);
            String::from_utf8_lossy(buf.get(from..).unwrap_or_default()).into_owned()
        });
        let answer = rx.recv_timeout(deadline.saturating_duration_since(Instant::now()));
        // stdout closed (or the deadline passed): the worker is exiting or must be killed.
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => {
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
        if !tail.is_empty() {
            tracing::warn!(target: "toolgate::pdf::worker", stderr = %tail, "pdf worker stderr");
        }
        let with_tail = failed;
        let Some(status) = status else {
            return Err(PdfError::WorkerFailed {
                reason: format!(
                    "timed out after {} ms and was killed ({} limit)",
                    isolation.timeout.as_millis(),
                    Limit::WorkerTime
                ),
            });
        };
        if !status.success() {
            return Err(with_tail(describe_exit(status, isolation)));
        }
        match answer {
            Ok(Ok(buf)) if buf.len() <= max_answer => Ok(buf),
            Ok(Ok(_)) => Err(failed("the worker's answer is larger than the output cap")),
            Ok(Err(e)) => Err(failed(format!("cannot read the worker's answer: {e}"))),
            Err(_) => Err(with_tail("the worker exited without answering".into())),
        }
    })
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

/// The worker's side: sets its own limits, reads the request from stdin,
/// does the work under `catch_unwind`, and writes one JSON line to stdout.
/// Returns the process exit code (0 when an answer was written).
pub fn serve(memory_bytes: u64, cpu_seconds: u64) -> u8 {
    // Limits first, before touching the input. A failure to set one is fatal:
    // running unconfined is not an option.
    let limits = [
        (rlimit::Resource::AS, memory_bytes, memory_bytes),
        (
            rlimit::Resource::CPU,
            cpu_seconds,
            cpu_seconds.saturating_add(1),
        ),
        (rlimit::Resource::CORE, 0, 0),
    ];
    for (resource, soft, hard) in limits {
        if let Err(e) = rlimit::setrlimit(resource, soft, hard) {
            eprintln!("pdf-worker: cannot set {resource:?}: {e}");
            return 3;
        }
    }
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut line = Vec::new();
    if let Err(e) = (&mut input)
        .take(MAX_REQUEST_LINE)
        .read_until(b'\n', &mut line)
    {
        eprintln!("pdf-worker: cannot read the request: {e}");
        return 3;
    }
    let request: Request = match serde_json::from_slice(&line) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("pdf-worker: malformed request: {e}");
            return 3;
        }
    };
    let cap = request.data_len.min(request.limits.max_input_bytes);
    let mut data = Vec::with_capacity(cap);
    if let Err(e) = (&mut input)
        .take(u64::try_from(cap).unwrap_or(u64::MAX))
        .read_to_end(&mut data)
    {
        eprintln!("pdf-worker: cannot read the document: {e}");
        return 3;
    }
    if data.len() < request.data_len {
        // The parent stopped sending: it is gone.
        eprintln!("pdf-worker: the document ended early; the parent is gone");
        return 4;
    }
    // The watchdog reads stdin too: release our lock on it first.
    drop(input);
    watch_parent();
    let out = std::io::stdout();
    let mut out = out.lock();
    let written = match request.op {
        Op::Extract => answer(&mut out, || {
            extract::extract_from_bytes(
                &data,
                request.pages,
                request.password.as_deref(),
                &request.limits,
            )
        }),
        Op::Metadata => answer(&mut out, || {
            metadata::metadata_from_bytes(&data, request.password.as_deref(), &request.limits)
        }),
    };
    match written {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("pdf-worker: cannot write the answer: {e}");
            3
        }
    }
}

/// Starts the orphan watchdog: a thread that blocks reading stdin (past the
/// request, the parent sends nothing more) and ends the process when it
/// reaches end-of-file or fails, i.e. when the parent has closed its end or
/// died. Extra bytes a confused parent might send are read and dropped.
fn watch_parent() {
    let spawned = std::thread::Builder::new()
        .name("parent-watchdog".into())
        .spawn(|| {
            let mut stdin = std::io::stdin();
            let mut buf = [0u8; 512];
            loop {
                match stdin.read(&mut buf) {
                    Ok(0) | Err(_) => std::process::exit(ORPHAN_EXIT_CODE),
                    Ok(_) => {}
                }
            }
        });
    if let Err(e) = spawned {
        // Without a watchdog the worker still ends at its CPU limit, or on
        // SIGPIPE when it writes its answer to a dead parent.
        eprintln!("pdf-worker: cannot start the parent watchdog: {e}");
    }
}

fn answer<T: Serialize>(
    out: &mut impl Write,
    job: impl FnOnce() -> Result<T, PdfError>,
) -> std::io::Result<()> {
    let outcome = catch_unwind(AssertUnwindSafe(job)).unwrap_or_else(|panic| {
        let msg = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(failed(format!("panicked: {msg}")))
    });
    let response = Response {
        outcome,
        max_rss_kib: peak_rss_kib(),
    };
    serde_json::to_writer(&mut *out, &response).map_err(std::io::Error::other)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// This process's peak resident set size (`VmHWM` in `/proc/self/status`), in KiB.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
