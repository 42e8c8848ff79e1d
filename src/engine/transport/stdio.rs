//! The stdio transport (MCP "Transports", stdio): newline-delimited
//! messages on any [`BufRead`] in, whole lines on any [`Write`] out.
//!
//! Two plain threads stand between the blocking streams and the engine:
//! the reader frames the input with [`LineReader`] (a line over the bound
//! is discarded as it streams in) and hands frames over a channel of
//! [`MAX_PENDING_FRAMES`]; the writer writes each message's line whole,
//! whatever its [`Route`](super::Route) (stdio is one stream), until
//! [`Outgoing::End`], and flushes whenever no further message is waiting
//! (so a burst of answers costs one flush, a lone answer is flushed at
//! once).

use std::io::{self, BufRead, Write};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::framing::{Frame, LineReader};
use super::{Outgoing, Transport, MAX_PENDING_LINES};
use crate::engine::{Engine, EngineConfig, Service};

/// Most frames read ahead of the engine (each at most the line bound).
pub const MAX_PENDING_FRAMES: usize = 4;

/// The threads behind a stdio [`Transport`].
#[derive(Debug)]
pub struct StdioThreads<W> {
    writer: JoinHandle<io::Result<W>>,
    input: mpsc::Sender<Frame>,
}

/// How often [`StdioThreads::finish_within`] looks at the writer.
const FINISH_POLL: Duration = Duration::from_millis(5);

impl<W> StdioThreads<W> {
    /// Waits until every line the engine produced is written and flushed;
    /// returns the output.
    ///
    /// # Errors
    /// The first write error (a closed output ends the session early).
    pub fn finish(self) -> io::Result<W> {
        self.writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the output thread panicked")))
    }

    /// [`finish`](Self::finish), waiting at most `within`: `None` when the
    /// writer is still blocked then (an output nobody reads must not hold
    /// the process; the thread is left in its write).
    pub fn finish_within(self, within: Duration) -> Option<io::Result<W>> {
        let until = Instant::now() + within;
        while !self.writer.is_finished() {
            if Instant::now() >= until {
                return None;
            }
            std::thread::sleep(FINISH_POLL);
        }
        Some(self.finish())
    }

    /// The way frames reach the engine, beside the reader: sending
    /// [`Frame::Eof`] ends the session's input early (a gateway whose
    /// server has gone does).
    pub fn input(&self) -> mpsc::Sender<Frame> {
        self.input.clone()
    }
}

/// A transport over `input` and `output`.
///
/// # Errors
/// When a thread cannot be started.
pub fn transport<R, W>(
    input: R,
    output: W,
    max_line_bytes: usize,
) -> io::Result<(Transport, StdioThreads<W>)>
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let (frame_tx, frames) = mpsc::channel(MAX_PENDING_FRAMES);
    let frame_tx_input = frame_tx.clone();
    let (outgoing, rx) = mpsc::channel::<Outgoing>(MAX_PENDING_LINES);
    // The reader is not joined: on a terminal or a pipe it may sit in
    // `read` until the process exits, which is harmless.
    std::thread::Builder::new()
        .name("engine-stdin".into())
        .spawn(move || read_frames(input, max_line_bytes, &frame_tx))?;
    let writer = std::thread::Builder::new()
        .name("engine-stdout".into())
        .spawn(move || write_lines(output, rx))?;
    Ok((
        Transport { frames, outgoing },
        StdioThreads {
            writer,
            input: frame_tx_input,
        },
    ))
}

fn read_frames<R: BufRead>(input: R, max_line_bytes: usize, tx: &mpsc::Sender<Frame>) {
    // The ends of an oversized line are kept to answer it by its id.
    let mut reader =
        LineReader::with_prefix(input, max_line_bytes, super::super::MAX_ID_SCAN_BYTES);
    loop {
        let frame = match reader.next_frame() {
            Ok(f) => f,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read input; stopping");
                Frame::Eof
            }
        };
        let eof = frame == Frame::Eof;
        if tx.blocking_send(frame).is_err() || eof {
            return;
        }
    }
}

fn write_lines<W: Write>(mut output: W, mut rx: mpsc::Receiver<Outgoing>) -> io::Result<W> {
    while let Some(message) = rx.blocking_recv() {
        let Some(line) = message.line() else {
            break;
        };
        output.write_all(line)?;
        let mut end = false;
        while let Ok(message) = rx.try_recv() {
            let Some(line) = message.line() else {
                end = true;
                break;
            };
            output.write_all(line)?;
        }
        output.flush()?;
        if end {
            break;
        }
    }
    output.flush()?;
    Ok(output)
}

/// Serves `service` on `input`/`output` until `input` ends and every call
/// has been answered, on a runtime of its own; returns the service and the
/// output.
///
/// # Errors
/// When the runtime or a thread cannot start, or writing fails.
pub fn serve<S, R, W>(service: S, config: EngineConfig, input: R, output: W) -> io::Result<(S, W)>
where
    S: Service,
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (transport, threads) = transport(input, output, config.max_line_bytes)?;
    let service = runtime.block_on(Engine::new(service, config).run(transport));
    // The engine sent its end marker: the writer drains and ends.
    let output = threads.finish()?;
    Ok((service, output))
}
