//! The worker's side: sets its own limits, waits for the request on stdin
//! (a worker started ahead of need waits here, costing no CPU time), does
//! the work under `catch_unwind`, reports progress and writes one answer.

use std::io::{BufRead, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::super::error::PdfError;
use super::super::{extract, metadata};
use super::failed;
use super::protocol::{progress_line, Op, Request, Response, MAX_REQUEST_LINE, ORPHAN_EXIT_CODE};

/// Shortest interval between two progress lines of the worker (the
/// engine rate-limits again toward the client).
pub const PROGRESS_LINE_INTERVAL: Duration = Duration::from_millis(10);

/// Runs the worker: returns the process exit code (0 when an answer was
/// written).
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
    if line.is_empty() {
        // A worker started ahead of need whose parent ended first.
        return u8::try_from(ORPHAN_EXIT_CODE).unwrap_or(u8::MAX);
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
        return u8::try_from(ORPHAN_EXIT_CODE).unwrap_or(u8::MAX);
    }
    // The watchdog reads stdin too: release our lock on it first.
    drop(input);
    watch_parent();
    let out = std::io::stdout();
    let mut out = out.lock();
    let written = match request.op {
        Op::Extract => {
            let mut last: Option<Instant> = None;
            let mut report = |done: u32, total: u32| {
                let now = Instant::now();
                if last.is_some_and(|t| now.duration_since(t) < PROGRESS_LINE_INTERVAL) {
                    return;
                }
                last = Some(now);
                // Progress is advisory: a failed write shows at the answer.
                let _ = out
                    .write_all(progress_line(done, total).as_bytes())
                    .and_then(|()| out.flush());
            };
            let outcome = catch(|| {
                extract::extract_with_progress(
                    &data,
                    request.pages,
                    request.password.as_deref(),
                    &request.limits,
                    &mut report,
                )
            });
            answer(&mut out, outcome)
        }
        Op::Metadata => {
            let outcome = catch(|| {
                metadata::metadata_from_bytes(&data, request.password.as_deref(), &request.limits)
            });
            answer(&mut out, outcome)
        }
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

/// Runs `job`, turning a panic into a `worker_failed` error.
fn catch<T>(job: impl FnOnce() -> Result<T, PdfError>) -> Result<T, PdfError> {
    catch_unwind(AssertUnwindSafe(job)).unwrap_or_else(|panic| {
        let msg = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(failed(format!("panicked: {msg}")))
    })
}

fn answer<T: Serialize>(out: &mut impl Write, outcome: Result<T, PdfError>) -> std::io::Result<()> {
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
