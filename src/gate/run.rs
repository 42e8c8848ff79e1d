//! `toolgate gate`'s process plumbing: the child, the threads feeding it
//! and reading it, signals, and the exit status.
//!
//! * The child's stdin is written by one thread from a bounded queue of
//!   [`MAX_PENDING_REQUESTS`](super::proxy::MAX_PENDING_REQUESTS) lines (a
//!   slow child makes the gateway answer `tool.busy`, never buffer without
//!   bound); its stdout is read by another through the bounded framing.
//! * The child exits: waiting requests get `tool.server_exited`, and the
//!   gateway exits with the child's status.
//! * The client closes stdin: the child's stdin is closed, the child gets
//!   [`GRACE`] to exit, then its process group is killed; exit 0.
//! * SIGTERM and SIGINT are passed on to the child's process group.

use std::ffi::OsString;
use std::io::{self, BufReader, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustix::process::Signal;

use super::child::{child_env, ChildProcess};
use super::proxy::{GateConfig, GateService, MAX_PENDING_REQUESTS};
use crate::engine::transport::{stdio, Frame, LineReader};
use crate::engine::EngineConfig;

/// How long the child may take to exit after its stdin is closed.
pub const GRACE: Duration = Duration::from_secs(2);

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
    let (child, mut stdin, stdout) = ChildProcess::spawn(cmd, args, &env)?;
    let child = Arc::new(Mutex::new(child));
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(MAX_PENDING_REQUESTS);
    std::thread::Builder::new()
        .name("gate-child-stdin".into())
        .spawn(move || {
            for mut line in rx {
                line.push(b'\n');
                if stdin.write_all(&line).and_then(|()| stdin.flush()).is_err() {
                    return;
                }
            }
            // Every sender gone: the child's stdin closes here.
        })?;
    let service = GateService::new(config, tx);
    let reader = service.clone();
    let reader_child = Arc::clone(&child);
    std::thread::Builder::new()
        .name("gate-child-stdout".into())
        .spawn(move || read_child(reader, stdout, max_response, &reader_child))?;
    let signal_child = Arc::clone(&child);
    std::thread::Builder::new()
        .name("gate-signals".into())
        .spawn(move || pass_signals(&signal_child))?;
    let engine = EngineConfig {
        max_line_bytes: crate::json::MAX_PAYLOAD_BYTES,
        max_response_bytes: max_response,
        ..EngineConfig::default()
    };
    let input = BufReader::new(io::stdin());
    let result = stdio::serve(service, engine, input, io::stdout());
    let code = child.lock().map_or(0, |mut c| {
        c.stop(GRACE);
        0
    });
    result.map(|_| code)
}

fn lock_pid(child: &Mutex<ChildProcess>) -> std::sync::MutexGuard<'_, ChildProcess> {
    child
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn read_child(
    service: GateService,
    stdout: std::process::ChildStdout,
    max_response: usize,
    child: &Mutex<ChildProcess>,
) {
    let Ok(rt) = tokio::runtime::Builder::new_current_thread().build() else {
        return;
    };
    let handle = rt.handle().clone();
    let mut reader = LineReader::with_prefix(
        BufReader::new(stdout),
        max_response,
        super::recover::MAX_ID_SCAN_BYTES,
    );
    loop {
        match reader.next_frame() {
            Ok(Frame::Line(l)) => service.child_line(&l, &handle),
            Ok(Frame::Oversized { .. }) => {
                service.child_oversized(reader.oversized_prefix(), reader.oversized_suffix())
            }
            Ok(Frame::Eof) | Err(_) => break,
        }
    }
    service.child_gone();
    if service.client_closed() {
        return;
    }
    // The child ended on its own: its waiting requests have their errors;
    // give the writer a moment to put them out, then leave with its status.
    let code = lock_pid(child).stop(Duration::from_millis(500));
    tracing::info!(code, "the server exited");
    std::thread::sleep(Duration::from_millis(200));
    let _ = io::stdout().flush();
    std::process::exit(code);
}

fn pass_signals(child: &Mutex<ChildProcess>) {
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
            lock_pid(child).signal(sig);
        }
    });
}
