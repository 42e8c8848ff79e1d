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
/// written). A worker started ahead of need passes `warm`: it extracts a
/// small built-in document before it waits for its request, so the call
/// does not pay for first-touch page faults of the extractor's code and
/// heap (the result is thrown away; the process still serves one call).
pub fn serve(memory_bytes: u64, cpu_seconds: u64, warm: bool) -> u8 {
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
    if warm {
        warm_up();
    }
    // Started before the request is read (for a worker started ahead of
    // need: before the call), it waits for the sender to be dropped.
    let (watchdog, go) = std::sync::mpsc::channel::<()>();
    watch_parent(go);
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
    // The document is read: from here on the call's own limit holds, a
    // function of the document's size (never above the one set at start).
    let memory = request.memory.min(memory_bytes);
    if let Err(e) = rlimit::setrlimit(rlimit::Resource::AS, memory, memory) {
        eprintln!("pdf-worker: cannot set the call's address-space limit: {e}");
        return 3;
    }
    // The watchdog reads stdin too: release our lock on it first.
    drop(input);
    // From here on the watchdog may read stdin.
    drop(watchdog);
    let out = std::io::stdout();
    let mut out = out.lock();
    let written = match request.op {
        Op::Extract => {
            let mut last: Option<Instant> = None;
            let wanted = request.progress;
            let mut report = |done: u32, total: u32| {
                if !wanted {
                    return;
                }
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
    // Answered: what is left is the exit, whose teardown should not take
    // the CPU from the parent sending the answer on.
    lower_priority();
    match written {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("pdf-worker: cannot write the answer: {e}");
            3
        }
    }
}

/// Runs the extractor once on [`warm_up_pdf`] and encodes its answer to
/// nowhere, touching the code and heap a real call will use.
fn warm_up() {
    let limits = super::super::Limits::default();
    let outcome = catch(|| {
        extract::extract_with_progress(&warm_up_pdf(), None, None, &limits, &mut |_, _| {})
    });
    let _ = answer(&mut std::io::sink(), outcome);
}

/// A one-page PDF with a Flate-compressed content stream showing a line
/// of text in a standard font, with a correct cross-reference table.
fn warm_up_pdf() -> Vec<u8> {
    use flate2::write::ZlibEncoder;
    let content = b"BT /F1 12 Tf 72 712 Td (Warm up: the quick brown fox) Tj ET";
    let mut z = ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    let packed = z
        .write_all(content)
        .and_then(|()| z.finish())
        .unwrap_or_default();
    let mut stream = format!(
        "<< /Length {} /Filter /FlateDecode >>\nstream\n",
        packed.len()
    )
    .into_bytes();
    stream.extend_from_slice(&packed);
    stream.extend_from_slice(b"\nendstream");
    let objects: [&[u8]; 5] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        &stream,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ];
    let mut pdf = b"%PDF-1.7\n".to_vec();
    let mut offsets = Vec::with_capacity(objects.len());
    for (n, body) in (1..).zip(objects) {
        offsets.push(pdf.len());
        pdf.extend_from_slice(format!("{n} 0 obj\n").as_bytes());
        pdf.extend_from_slice(body);
        pdf.extend_from_slice(b"\nendobj\n");
    }
    let xref = pdf.len();
    pdf.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", offsets.len() + 1).as_bytes(),
    );
    for off in offsets {
        pdf.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    pdf.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    pdf
}

/// Starts the orphan watchdog: a thread that, once `go` is closed (the
/// request has been read), blocks reading stdin (past the request, the
/// parent sends nothing more) and ends the process when it reaches
/// end-of-file or fails, i.e. when the parent has closed its end or died.
/// Extra bytes a confused parent might send are read and dropped.
fn watch_parent(go: std::sync::mpsc::Receiver<()>) {
    let spawned = std::thread::Builder::new()
        .name("parent-watchdog".into())
        .stack_size(64 << 10)
        .spawn(move || {
            lower_priority();
            // Closed, never sent on: the request has been read.
            let _ = go.recv();
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

/// Lowers the calling thread's scheduling priority to the least (nice
/// 19; always allowed). Advisory: a failure changes nothing else.
fn lower_priority() {
    let _ = rustix::process::setpriority_process(None, 19);
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
    // Streamed through a buffer the size of a pipe (never rendered whole:
    // an answer of escaped metadata may be larger than the worker's memory
    // bound allows twice), so an answer that fits the pipe is one write and
    // the parent's reader wakes once for it, not once per KiB of stdout's
    // own buffer.
    let mut w = std::io::BufWriter::with_capacity(ANSWER_WRITE_BYTES, &mut *out);
    serde_json::to_writer(&mut w, &response).map_err(std::io::Error::other)?;
    w.write_all(b"\n")?;
    w.flush()?;
    drop(w);
    out.flush()
}

/// Bytes of the worker's answer written at once: a Linux pipe's default
/// capacity.
const ANSWER_WRITE_BYTES: usize = 64 << 10;

/// This process's peak resident set size (`VmHWM` in `/proc/self/status`), in KiB.
pub fn peak_rss_kib() -> Option<u64> {
    // Read at once (the file is about 1.5 KB): fewer system calls than
    // `fs::read_to_string`'s growing reads of a file without a size.
    let mut status = String::with_capacity(4096);
    std::fs::File::open("/proc/self/status")
        .and_then(|mut f| f.read_to_string(&mut status))
        .ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warm_up_document_extracts_cleanly() {
        let limits = super::super::super::Limits::default();
        let x = extract::extract_with_progress(&warm_up_pdf(), None, None, &limits, &mut |_, _| {})
            .unwrap();
        assert_eq!(x.page_count, 1);
        assert!(x.warnings.is_empty(), "{:?}", x.warnings);
        assert!(
            x.pages[0].text.contains("the quick brown fox"),
            "{:?}",
            x.pages[0].text
        );
    }
}
