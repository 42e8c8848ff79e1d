//! Process isolation: each call runs in `toolgate pdf-worker`, a subprocess of
//! the same binary that limits its own address space and CPU time (rlimit,
//! no `unsafe`), catches panics, and answers one JSON line. The parent enforces
//! a wall-clock timeout and kills the worker when it runs over, or at once
//! when the caller aborts ([`Abort`]).
//!
//! Split by job: [`protocol`] is the wire between the two ends (request
//! line and document on stdin, progress lines and one answer on stdout);
//! `parent` starts workers (one ahead of need: [`Prestarted`]), relays
//! progress and enforces the timeout, from the calling thread or (feature
//! `mcp`, [`extract_async`]) from a task on a tokio runtime that reads the
//! worker through the runtime's reactor; `child` is the worker itself.
//!
//! The parent keeps the worker's stdin open until it has collected the
//! worker's exit status. A worker whose stdin reaches end-of-file while it
//! is still working exits at once ([`ORPHAN_EXIT_CODE`]): its parent is
//! gone (killed, even by SIGKILL, which closes the parent's end of the
//! pipe) and nobody will read the answer. So a worker never outlives its
//! caller by more than a scheduling delay.

mod child;
mod parent;
pub mod protocol;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::error::PdfError;
use super::source::{read_bounded, Source};
use super::{Extraction, Metadata, Options, PageRange};
use protocol::{cut_password, Op, Request, Response};

pub use child::{peak_rss_kib, serve, PROGRESS_LINE_INTERVAL};
pub use parent::{Abort, Prestarted, Watch};
pub use protocol::{MAX_PASSWORD_BYTES, ORPHAN_EXIT_CODE};

/// Default wall-clock timeout of one worker call: 5 s. Every generated
/// hostile file finishes in well under 2 s in a release build (docs/pdf.md), and
/// the largest real file of the corpus in a fraction of a second; a server
/// should not hold a request longer. Debug builds (tests) pass a longer one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// Default address-space limit of the worker: 768 MiB of virtual memory
/// (resident memory stays far below: see the hostile-file table in docs/pdf.md).
pub const DEFAULT_WORKER_MEMORY: u64 = 768 << 20;
/// Address space a worker may use for a call whatever its input: 160 MiB
/// (the binary, its libraries, stacks and allocator come to about 20 MiB of
/// it). See [`worker_memory_for`].
pub const WORKER_MEMORY_BASE: u64 = 160 << 20;
/// Address space a worker may use per byte of its input, beyond
/// [`WORKER_MEMORY_BASE`]: 64 bytes. lopdf parses every object of the
/// file (object streams included) when it loads it, and each small
/// container costs it several hundred bytes; this bounds what a file of
/// tiny containers can make it hold.
pub const WORKER_MEMORY_PER_INPUT_BYTE: u64 = 64;

/// The address-space limit (`RLIMIT_AS`, bytes) of the worker that handles
/// an input of `input_bytes`: [`WORKER_MEMORY_BASE`] plus
/// [`WORKER_MEMORY_PER_INPUT_BYTE`] per input byte, never above `ceiling`
/// ([`Isolation::memory`]). Peak resident memory stays below it: under
/// 224 MiB for every input under 1 MiB. A call that needs more ends with
/// `limit_exceeded` (`worker_memory`, this value).
pub fn worker_memory_for(input_bytes: usize, ceiling: u64) -> u64 {
    let input = u64::try_from(input_bytes).unwrap_or(u64::MAX);
    WORKER_MEMORY_BASE
        .saturating_add(input.saturating_mul(WORKER_MEMORY_PER_INPUT_BYTE))
        .min(ceiling)
}

/// Most bytes of the worker's stderr kept for the error message.
pub const MAX_STDERR_TAIL: usize = 2048;
/// How to run the worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Isolation {
    /// The `toolgate` binary (its hidden `pdf-worker` subcommand is run). In
    /// integration tests: `env!("CARGO_BIN_EXE_toolgate")`.
    pub worker_exe: PathBuf,
    /// Wall-clock timeout; the worker's CPU limit is this rounded up, plus 1 s.
    pub timeout: Duration,
    /// Most address space a worker may use (`RLIMIT_AS`), in bytes: set
    /// when it starts, then lowered for its call to
    /// [`worker_memory_for`]`(input bytes, memory)`.
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
    let job = Job::new(Op::Extract, pages, options);
    run_job(source, job, isolation, None, Watch::default())
}

/// [`metadata_isolated`], also returning the worker's time and peak RSS.
pub fn metadata_isolated_with_stats(
    source: Source<'_>,
    options: &Options,
    isolation: &Isolation,
) -> (Result<Metadata, PdfError>, WorkerStats) {
    let job = Job::new(Op::Metadata, None, options);
    run_job(source, job, isolation, None, Watch::default())
}

/// [`extract_isolated`] on `pool`'s worker started ahead of need, reporting
/// pages done through `watch` and killed at once by its [`Abort`].
///
/// # Errors
/// As [`extract_isolated`]; `worker_failed` ("aborted") when aborted.
pub fn extract_watched(
    source: Source<'_>,
    pages: Option<PageRange>,
    options: &Options,
    pool: &Prestarted,
    watch: Watch,
) -> Result<Extraction, PdfError> {
    let job = Job::new(Op::Extract, pages, options);
    run_job(source, job, pool.isolation(), Some(pool), watch).0
}

/// [`metadata_isolated`] on `pool`'s worker started ahead of need, killed
/// at once by `watch`'s [`Abort`].
///
/// # Errors
/// As [`metadata_isolated`]; `worker_failed` ("aborted") when aborted.
pub fn metadata_watched(
    source: Source<'_>,
    options: &Options,
    pool: &Prestarted,
    watch: Watch,
) -> Result<Metadata, PdfError> {
    let job = Job::new(Op::Metadata, None, options);
    run_job(source, job, pool.isolation(), Some(pool), watch).0
}

fn failed(reason: impl Into<String>) -> PdfError {
    PdfError::WorkerFailed {
        reason: reason.into(),
    }
}

/// One job before its document is read.
struct Job<'a> {
    op: Op,
    pages: Option<PageRange>,
    options: &'a Options,
}

impl<'a> Job<'a> {
    fn new(op: Op, pages: Option<PageRange>, options: &'a Options) -> Self {
        Self { op, pages, options }
    }
}

/// The request line of `job` on a document of `data_len` bytes, and the
/// worker's address-space limit for it.
fn header(
    job: &Job<'_>,
    data_len: usize,
    watch: &Watch,
    isolation: &Isolation,
) -> Result<(Vec<u8>, u64), PdfError> {
    let request = Request {
        op: job.op,
        pages: job.pages,
        password: job.options.password.as_deref().map(cut_password),
        limits: job.options.limits,
        data_len,
        progress: watch.wants_progress(),
        memory: worker_memory_for(data_len, isolation.memory),
    };
    let mut header = serde_json::to_vec(&request)
        .map_err(|e| failed(format!("cannot encode the request: {e}")))?;
    header.push(b'\n');
    Ok((header, request.memory))
}

/// The worker's answer line decoded: its outcome and its peak RSS.
fn decode<T: DeserializeOwned>(line: &[u8]) -> (Result<T, PdfError>, Option<u64>) {
    match serde_json::from_slice::<Response<T>>(line) {
        Ok(r) => (r.outcome.map_err(PdfError::bounded), r.max_rss_kib),
        Err(e) => (
            Err(failed(format!("unreadable answer from the worker: {e}")).bounded()),
            None,
        ),
    }
}

fn run_job<T: DeserializeOwned>(
    source: Source<'_>,
    job: Job<'_>,
    isolation: &Isolation,
    pool: Option<&Prestarted>,
    watch: Watch,
) -> (Result<T, PdfError>, WorkerStats) {
    let mut stats = WorkerStats::default();
    let limits = &job.options.limits;
    let data = match read_bounded(source, limits.max_input_bytes) {
        Ok(d) => d,
        Err(e) => return (Err(e.bounded()), stats),
    };
    let (header, memory) = match header(&job, data.len(), &watch, isolation) {
        Ok(h) => h,
        Err(e) => return (Err(e), stats),
    };
    let start = Instant::now();
    let outcome = parent::run(
        header,
        data.into_owned(),
        limits,
        memory,
        isolation,
        pool,
        watch,
    );
    stats.elapsed_us = u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX);
    match outcome {
        Ok(line) => {
            let (result, rss) = decode(&line);
            stats.max_rss_kib = rss;
            (result, stats)
        }
        Err(e) => (Err(e.bounded()), stats),
    }
}

/// Largest worker answer decoded on the async caller's thread (the
/// engine's runtime), in bytes: a one-page answer is a few KiB. A larger
/// one is decoded on a blocking thread, so the runtime goes on answering
/// (`ping`, cancellations) meanwhile.
#[cfg(feature = "mcp")]
pub const INLINE_ANSWER_BYTES: usize = 64 << 10;

/// [`extract_watched`] as a future on a tokio runtime: the pool's spare
/// is fed and read by the caller's own task (no thread between the worker
/// and the call). Dropping the future kills the worker at once (the
/// watch's [`Abort`] is not needed and does nothing here).
///
/// # Errors
/// As [`extract_watched`]; `worker_failed` outside a tokio runtime.
#[cfg(feature = "mcp")]
pub async fn extract_async(
    data: Vec<u8>,
    pages: Option<PageRange>,
    options: &Options,
    pool: &Prestarted,
    watch: Watch,
) -> Result<Extraction, PdfError> {
    let job = Job::new(Op::Extract, pages, options);
    run_job_async(data, job, pool, watch).await
}

/// [`metadata_watched`] as a future on a tokio runtime (see
/// [`extract_async`]).
///
/// # Errors
/// As [`metadata_watched`]; `worker_failed` outside a tokio runtime.
#[cfg(feature = "mcp")]
pub async fn metadata_async(
    data: Vec<u8>,
    options: &Options,
    pool: &Prestarted,
    watch: Watch,
) -> Result<Metadata, PdfError> {
    let job = Job::new(Op::Metadata, None, options);
    run_job_async(data, job, pool, watch).await
}

#[cfg(feature = "mcp")]
async fn run_job_async<T: DeserializeOwned + Send + 'static>(
    data: Vec<u8>,
    job: Job<'_>,
    pool: &Prestarted,
    watch: Watch,
) -> Result<T, PdfError> {
    let limits = job.options.limits;
    read_bounded(Source::Bytes(&data), limits.max_input_bytes).map_err(PdfError::bounded)?;
    let (header, memory) = header(&job, data.len(), &watch, pool.isolation())?;
    let line = parent::pipes::run(header, data, &limits, memory, pool, watch)
        .await
        .map_err(PdfError::bounded)?;
    if line.len() <= INLINE_ANSWER_BYTES {
        return decode(&line).0;
    }
    tokio::task::spawn_blocking(move || decode(&line).0)
        .await
        .unwrap_or_else(|e| {
            Err(failed(format!(
                "the answer's decoder ended abnormally: {e}"
            )))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_memory_is_a_function_of_the_input_size() {
        const MIB: u64 = 1 << 20;
        assert_eq!(
            worker_memory_for(0, DEFAULT_WORKER_MEMORY),
            WORKER_MEMORY_BASE
        );
        assert_eq!(
            worker_memory_for(1000, DEFAULT_WORKER_MEMORY),
            WORKER_MEMORY_BASE + 64_000
        );
        // Every input under 1 MiB: under 256 MiB (issue #22), 224 MiB at most.
        assert_eq!(worker_memory_for(1 << 20, DEFAULT_WORKER_MEMORY), 224 * MIB);
        assert!(worker_memory_for((1 << 20) - 1, DEFAULT_WORKER_MEMORY) < 224 * MIB);
        // Never above the ceiling (the configured worker memory), however large.
        assert_eq!(
            worker_memory_for(64 << 20, DEFAULT_WORKER_MEMORY),
            DEFAULT_WORKER_MEMORY
        );
        assert_eq!(worker_memory_for(usize::MAX, 300 * MIB), 300 * MIB);
        assert_eq!(worker_memory_for(0, 100 * MIB), 100 * MIB);
    }

    #[test]
    fn the_answer_cap_holds_the_largest_metadata_answer() {
        use crate::pdf::limits::{MAX_INFO_ENTRIES, MAX_INFO_VALUE_CHARS, MAX_XMP_BYTES};
        use crate::pdf::Limits;
        let limits = Limits::default();
        let most_chars =
            (MAX_INFO_ENTRIES * MAX_INFO_VALUE_CHARS + MAX_XMP_BYTES).max(limits.max_output_chars);
        assert_eq!(
            parent::max_answer_bytes(&limits),
            most_chars * 6 + (16 << 20)
        );
        let small = Limits {
            max_output_chars: 1,
            ..Limits::default()
        };
        assert!(parent::max_answer_bytes(&small) > MAX_INFO_ENTRIES * MAX_INFO_VALUE_CHARS * 6);
    }

    #[test]
    fn an_allocation_failure_is_recognised_in_the_stderr_tail() {
        assert!(parent::out_of_memory(
            "memory allocation of 123456 bytes failed\n"
        ));
        assert!(!parent::out_of_memory(
            "thread 'main' panicked at src/x.rs:1:1"
        ));
        assert!(!parent::out_of_memory(""));
    }
}
