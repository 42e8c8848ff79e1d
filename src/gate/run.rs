//! `toolgate gate`'s process plumbing: the child, the threads feeding it
//! and reading it, signals, the session's end, and the exit status.
//!
//! * The child's stdin is written by one thread from a queue of at most
//!   [`MAX_TO_SERVER_BYTES`] (a slow child makes the gateway stop reading
//!   the client, never refuse or buffer without bound); its stdout is read
//!   by another through the bounded framing.
//! * The child exits (its output ends): waiting requests get
//!   `tool.server_exited`, the session's input ends, and the gateway exits
//!   with the child's status.
//! * The client closes stdin, with calls in flight or not: the child's
//!   stdin is closed, the child gets [`GRACE`] to exit, then its process
//!   group gets SIGTERM and, [`TERM_GRACE`] later, SIGKILL; whatever still
//!   waits for it gets `tool.server_exited`; exit 0.
//! * Either way, once the child is stopped the session has [`GRACE`] to
//!   write its last answers (a client that no longer reads cannot hold the
//!   gateway), and the gateway returns from [`run`] with no task left: the
//!   engine, the supervision and the writer are all awaited, within
//!   `3 × GRACE + 2 × TERM_GRACE` of the end.
//! * SIGTERM and SIGINT are passed on to the child's process group.

use std::ffi::OsString;
use std::io::{self, BufReader, Write};
use std::time::Duration;

use rustix::process::Signal;
use tokio::sync::mpsc;

use super::child::{child_env, ChildProcess, ProcessGroup};
use super::proxy::{GateConfig, GateService, MAX_TO_SERVER_BYTES};
use crate::engine::transport::{stdio, Frame, LineReader};
use crate::engine::{ByteBudget, Charge, Engine, EngineConfig};

/// How long the child may take to exit after its stdin is closed, and how
/// long the session may take to write its last answers once the child is
/// stopped.
pub const GRACE: Duration = Duration::from_secs(2);

/// How long the child's process group has between SIGTERM and SIGKILL.
pub const TERM_GRACE: Duration = Duration::from_secs(1);

/// Runs the gateway in front of `cmd args` on this process's stdin/stdout
/// until the client or the child ends; returns the exit code.
///
/// # Errors
/// When the child cannot be started, or a thread or runtime cannot.
pub fn run(
    config: GateConfig,
    cmd: &OsString,
    args: &[OsString],
    env_extra: &[String],
) -> io::Result<i32> {
    let max_response = config.max_response_bytes;
    let env = child_env(std::env::vars_os(), env_extra);
    let (child, stdin, stdout) = ChildProcess::spawn(cmd, args, &env)?;
    let (tx, rx) = mpsc::unbounded_channel::<(Vec<u8>, Charge)>();
    std::thread::Builder::new()
        .name("gate-child-stdin".into())
        .spawn(move || write_child(stdin, rx))?;
    let max_line = crate::json::MAX_PAYLOAD_BYTES;
    let budget = ByteBudget::new(MAX_TO_SERVER_BYTES);
    let service = GateService::new(config, tx, budget, max_line);
    let reader = service.clone();
    std::thread::Builder::new()
        .name("gate-child-stdout".into())
        .spawn(move || read_child(&reader, stdout, max_response))?;
    let group = child.group();
    std::thread::Builder::new()
        .name("gate-signals".into())
        .spawn(move || pass_signals(group))?;
    let engine = EngineConfig {
        max_line_bytes: max_line,
        max_response_bytes: max_response,
        ..EngineConfig::default()
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let input = BufReader::new(io::stdin());
    let (transport, threads) = stdio::transport(input, io::stdout(), engine.max_line_bytes)?;
    let end_input = threads.input();
    let status = runtime.block_on(async {
        let (stopped_tx, mut stopped) = tokio::sync::watch::channel(false);
        let session = async {
            tokio::select! {
                _ = Engine::new(service.clone(), engine).run(transport) => {}
                () = async {
                    let _ = stopped.wait_for(|s| *s).await;
                    tokio::time::sleep(GRACE).await;
                } => tracing::warn!("the client does not read the last answers; leaving them"),
            }
            // However it ended (the client's EOF, the child gone, the
            // client's output closed), the session is over: the child is
            // stopped.
            crate::engine::Service::closed(&mut service.clone());
        };
        let supervise = async {
            let status = supervise(&service, child, &end_input).await;
            stopped_tx.send_replace(true);
            status
        };
        tokio::join!(session, supervise).1
    });
    // A `--resolve` lookup past its deadline may still hold a thread (the
    // system resolver cannot be interrupted): the session does not wait
    // for it.
    runtime.shutdown_background();
    // The engine sent its end marker (or was left): the writer drains.
    match threads.finish_within(GRACE) {
        Some(Err(e)) if e.kind() != io::ErrorKind::BrokenPipe => return Err(e),
        Some(_) => {}
        None => tracing::warn!("the output is not being read; leaving it"),
    }
    Ok(status)
}

/// Most lines written to the child with one flush (those already queued
/// when the first is taken); their charges come back after the flush.
pub const WRITE_BATCH_LINES: usize = 64;

/// Writes the queued lines to the child's stdin, a burst at a time, until
/// every sender is gone (the child's stdin closes then) or a write fails.
fn write_child(
    stdin: std::process::ChildStdin,
    mut rx: mpsc::UnboundedReceiver<(Vec<u8>, Charge)>,
) {
    let mut out = io::BufWriter::new(stdin);
    let mut charges = Vec::with_capacity(WRITE_BATCH_LINES);
    while let Some(first) = rx.blocking_recv() {
        let mut next = Some(first);
        while let Some((line, charge)) = next.take() {
            if out
                .write_all(&line)
                .and_then(|()| out.write_all(b"\n"))
                .is_err()
            {
                return;
            }
            charges.push(charge);
            if charges.len() < WRITE_BATCH_LINES {
                next = rx.try_recv().ok();
            }
        }
        if out.flush().is_err() {
            return;
        }
        charges.clear();
    }
}

/// Waits for the session's end from either side, then stops the child.
/// Returns the exit code: the child's status when it ended first, 0 when
/// the client closed its input first.
async fn supervise(
    service: &GateService,
    mut child: ChildProcess,
    end_input: &mpsc::Sender<Frame>,
) -> i32 {
    let server_first = tokio::select! {
        biased;
        () = service.until_client_closed() => false,
        () = service.until_server_gone() => true,
    };
    if server_first {
        // Its waiting requests have their errors; the session reads no
        // more input (a full input queue must not hold this up).
        let _ = tokio::time::timeout(GRACE, end_input.send(Frame::Eof)).await;
        let code = child.stop(GRACE, TERM_GRACE).await;
        tracing::info!(code, "the server exited");
        return code;
    }
    // The client closed: the service has closed the child's stdin.
    let code = child.stop(GRACE, TERM_GRACE).await;
    tracing::info!(code, "the server was stopped after the client closed");
    // The child's output ends once every process holding it is gone; one
    // that left the group must not hold the session either.
    let _ = tokio::time::timeout(GRACE, service.until_server_gone()).await;
    service.child_gone();
    0
}

/// Reads the child's output, `stdout`, a line at a time (at most
/// `max_response` bytes each; a longer one as its kept start and end,
/// [`GateService::child_oversized`]) until it ends or fails; then tells
/// the service the child is gone. The gateway's one reader of a server's
/// lines, also the `gate_session` harness's.
pub(crate) fn read_child(service: &GateService, stdout: impl io::Read, max_response: usize) {
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        service.child_gone();
        return;
    };
    let handle = rt.handle().clone();
    let mut reader = LineReader::with_prefix(
        BufReader::new(stdout),
        max_response,
        crate::engine::MAX_ID_SCAN_BYTES,
    );
    loop {
        match reader.next_frame() {
            Ok(Frame::Line(l)) => {
                // Waits while the server's earlier lines fill the budget
                // (the client reads slowly): the server then waits too.
                let charge = rt.block_on(service.from_server().take(GateService::weigh(&l)));
                service.child_line(&l, &handle, charge.unwrap_or_default());
            }
            Ok(Frame::Oversized { len, .. }) => {
                service.child_oversized(reader.oversized_prefix(), reader.oversized_suffix(), len)
            }
            // A line reader yields no vetted message.
            Ok(Frame::Eof | Frame::Vetted(_)) | Err(_) => break,
        }
    }
    service.child_gone();
}

fn pass_signals(group: ProcessGroup) {
    use tokio::signal::unix::{signal, SignalKind};
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    rt.block_on(async {
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            return;
        };
        loop {
            let sig = tokio::select! {
                _ = term.recv() => Signal::TERM,
                _ = int.recv() => Signal::INT,
            };
            group.signal(sig);
        }
    });
}
