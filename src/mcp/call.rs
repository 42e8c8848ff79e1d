//! `tools/call`: checked at once on the dispatch task (tool name,
//! arguments), then run as a bounded call: the file is read through the
//! root, the backend runs (on the call's own task when it is
//! [asynchronous](PdfBackend::asynchronous), reading a small file there
//! too; otherwise on a blocking thread), progress goes to the engine, and
//! a cancelled call's worker is killed when the engine drops its future.

use std::sync::Arc;

use serde_json::Value;

use super::backend::{refuse_url, Job, PdfBackend, PdfRequest, ToolFailure};
use super::bound;
use super::tools::{self, ToolCall};
use super::{Config, INLINE_READ_BYTES};
use crate::confine::{self, ConfineError, Root};
use crate::engine::wire::{self, Id, ProtocolError};
use crate::engine::{CallContext, Handled, Progress, Reply, Request, Response, Revision};

/// What every call of a session shares: the settings, the root, the
/// backend.
pub(super) struct Calls<B> {
    pub(super) config: Config,
    pub(super) root: Option<Root>,
    pub(super) backend: B,
}

/// How a call's result is written.
#[derive(Debug, Clone, Copy)]
pub(super) struct Answer {
    pub(super) rev: Revision,
    /// Whether the result carries `resultType` (2026-07-28).
    pub(super) result_type: bool,
}

/// Decides on a `tools/call`: a JSON-RPC error or a tool error the
/// arguments already show, answered at once; otherwise the work, to run on
/// a call slot.
pub(super) fn decide<B: PdfBackend>(
    calls: &Arc<Calls<B>>,
    request: &Request,
    answer: Answer,
    ctx: &CallContext,
) -> Handled {
    let now = |r: Response| Handled::Reply(Reply::Send(r));
    let vetted = match &request.call {
        Some(Ok(call)) => call,
        Some(Err(rejected)) => return now(wire::response_from_value(rejected.to_response())),
        None => {
            return now(ProtocolError::invalid_params(&request.id, "/params is missing").into())
        }
    };
    let name = vetted.name.as_str();
    if !tools::is_tool(name) {
        return now(ProtocolError::invalid_params(
            &request.id,
            &format!(
                "unknown tool {name:?}; tools: {}",
                tools::TOOL_NAMES.join(", ")
            ),
        )
        .into());
    }
    let id = request.id.clone();
    let call = match tools::validate(name, &vetted.arguments()) {
        Ok(call) => call,
        Err(f) => return Handled::Reply(reply(id, name, Err(f), answer)),
    };
    let calls = Arc::clone(calls);
    let name = name.to_owned();
    let ctx = ctx.clone();
    Handled::Call(Box::pin(async move {
        // The call's deadline covers it all: reading or downloading the
        // file, waiting for the worker, the extraction. Past it the work is
        // dropped (the download's connection closed, the worker killed).
        let limit = calls.config.call_timeout;
        let outcome = match tokio::time::timeout(limit, work(&calls, call, &ctx)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(ToolFailure::new(
                "limit_exceeded",
                format!(
                    "call_time: the call's deadline of {} ms passed (reading or downloading the file and extracting it)",
                    limit.as_millis()
                ),
            )),
        };
        reply(id, &name, outcome, answer)
    }))
}

/// One call's work: the file (fetched when it is a URL the server may
/// fetch), then the backend.
async fn work<B: PdfBackend>(
    calls: &Arc<Calls<B>>,
    call: ToolCall,
    ctx: &CallContext,
) -> Result<Value, ToolFailure> {
    // A URL is fetched here, on the engine's runtime, when the server
    // fetches remote files: a cancelled call drops this future, and with it
    // the connection.
    let remote = calls
        .fetch_remote(call.path(), ctx.progress.as_ref())
        .await?;
    let downloaded = remote.as_ref().map_or(0, |b| b.len());
    let job = job(ctx, u64::try_from(downloaded).unwrap_or(u64::MAX));
    if calls.backend.inline() {
        return calls.run(&call, remote, job);
    }
    if calls.backend.asynchronous() {
        let bytes = match remote {
            Some(bytes) => bytes,
            None => Calls::read_async(calls, call.path()).await?,
        };
        return calls.backend.run_async(pdf_request(call, bytes), job).await;
    }
    let mut abort = AbortOnDrop(Some(job.watch.abort_handle()));
    let owned = Arc::clone(calls);
    let outcome = tokio::task::spawn_blocking(move || owned.run(&call, remote, job))
        .await
        .unwrap_or_else(|e| {
            Err(ToolFailure::new(
                "worker_failed",
                format!("the call's thread ended abnormally: {e}"),
            ))
        });
    abort.disarm();
    outcome
}

/// The pdf job of one call: its progress (pages done, total pages) goes to
/// the engine when the request asked for it, after `downloaded` units (the
/// bytes of a fetched file), so that progress only ever grows.
fn job(ctx: &CallContext, downloaded: u64) -> Job {
    let watch = match ctx.progress.clone() {
        Some(progress) => crate::pdf::worker::Watch::new(move |done, total| {
            progress.report(
                downloaded.saturating_add(u64::from(done)),
                Some(downloaded.saturating_add(u64::from(total))),
                None,
            );
        }),
        None => crate::pdf::worker::Watch::default(),
    };
    Job { watch }
}

/// Kills the call's worker when the call's future is dropped before it
/// finished: the client cancelled it, or the session ended.
struct AbortOnDrop(Option<crate::pdf::worker::Abort>);

impl AbortOnDrop {
    /// The call finished: nothing to kill.
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(abort) = self.0.take() {
            abort.abort();
        }
    }
}

/// The call's answer, kept under the response bound ([`bound::fit`]).
fn reply(id: Id, name: &str, outcome: Result<Value, ToolFailure>, answer: Answer) -> Reply {
    let build = |outcome: Result<&Value, &ToolFailure>| {
        let mut result = match outcome {
            Ok(structured) => tools::success(structured.clone(), answer.rev),
            Err(f) => {
                tracing::info!(tool = name, kind = %f.kind, "tool error");
                tools::failure(f)
            }
        };
        if answer.result_type {
            if let Value::Object(m) = &mut result {
                m.insert("resultType".into(), Value::from("complete"));
            }
        }
        result
    };
    let result = bound::fit(&id, outcome, answer.rev.has_structured_content(), build);
    Reply::Send(Response::result(id, result))
}

impl<B: PdfBackend> Calls<B> {
    /// The body behind a URL `path` when this server fetches remote files
    /// ([`Config::remote`]): downloaded through the SSRF-safe fetcher, no
    /// larger than [`Config::max_pdf_bytes`], reporting bytes received to
    /// `progress`. `None` for a file path, or a URL this server refuses
    /// (left to [`Calls::read_input`]).
    ///
    /// # Errors
    /// The fetcher's refusal or failure: its denial code (`ssrf.*`,
    /// `url.*`) or its `fetch.*` / `http.*` code.
    async fn fetch_remote(
        &self,
        path: &str,
        progress: Option<&Progress>,
    ) -> Result<Option<Vec<u8>>, ToolFailure> {
        let Some(fetcher) = self.config.remote.as_ref().filter(|_| looks_like_url(path)) else {
            return Ok(None);
        };
        let max = usize::try_from(self.config.max_pdf_bytes).unwrap_or(usize::MAX);
        let mut report = |received: u64, declared: Option<u64>| {
            if let Some(p) = progress {
                p.report(received, declared, None);
            }
        };
        match fetcher.fetch_reporting(path, max, &mut report).await {
            Ok(fetched) => Ok(Some(fetched.into_body())),
            Err(e) => Err(ToolFailure::new(e.code(), e.reason())),
        }
    }

    fn run(
        &self,
        call: &ToolCall,
        remote: Option<Vec<u8>>,
        job: Job,
    ) -> Result<Value, ToolFailure> {
        let bytes = match remote {
            Some(bytes) => bytes,
            None => self.read_input(call.path())?,
        };
        pdf_request(call.clone(), bytes).run_on(&self.backend, job)
    }

    /// [`Calls::read_input`] for a call on the runtime: a file of at most
    /// [`INLINE_READ_BYTES`] is read here (the open never blocks, and the
    /// handle is a regular file: a page-cache read of a few KiB), a larger
    /// one on a blocking thread.
    async fn read_async(calls: &Arc<Self>, path: &str) -> Result<Vec<u8>, ToolFailure> {
        if looks_like_url(path) {
            return Err(refuse_url(path));
        }
        let max = calls.config.max_pdf_bytes;
        let small = max.min(INLINE_READ_BYTES);
        match calls.read_bytes(path, small) {
            Err(ConfineError::TooLarge { .. }) if small < max => {}
            read => return read.map_err(|e| failure(path, e)),
        }
        let (owned, path) = (Arc::clone(calls), path.to_owned());
        tokio::task::spawn_blocking(move || owned.read_input(&path))
            .await
            .unwrap_or_else(|e| {
                Err(ToolFailure::new(
                    "io_error",
                    format!("the reading thread ended abnormally: {e}"),
                ))
            })
    }

    /// The file behind `path`, confined to the root (unless unconfined),
    /// at most `max` bytes.
    fn read_bytes(&self, path: &str, max: u64) -> Result<Vec<u8>, ConfineError> {
        match &self.root {
            Some(root) => root.read(path, max),
            None => confine::read_unconfined(path, max, self.config.refuse_multiply_linked),
        }
    }

    /// The bytes behind a tool's `path` when it was not fetched: a URL is
    /// classified and refused; a file path is confined to the root and read through the
    /// verified handle.
    fn read_input(&self, path: &str) -> Result<Vec<u8>, ToolFailure> {
        if looks_like_url(path) {
            return Err(refuse_url(path));
        }
        self.read_bytes(path, self.config.max_pdf_bytes)
            .map_err(|e| failure(path, e))
    }
}

/// The backend's request for `call` on `bytes`.
fn pdf_request(call: ToolCall, bytes: Vec<u8>) -> PdfRequest {
    match call {
        ToolCall::Extract {
            pages, password, ..
        } => PdfRequest::Extract {
            pdf: bytes,
            pages,
            password,
        },
        ToolCall::GetMetadata { password, .. } => PdfRequest::Metadata {
            pdf: bytes,
            password,
        },
    }
}

/// The tool failure for a file `path` that cannot be read.
fn failure(path: &str, e: ConfineError) -> ToolFailure {
    match e {
        ConfineError::OutsideRoot => {
            let d = crate::net::Denial::outside_root(format!(
                "{path:?} resolves outside the server's root directory"
            ));
            ToolFailure::new(d.code(), d.reason())
        }
        ConfineError::NotFound => ToolFailure::new("not_found", format!("no such file: {path:?}")),
        ConfineError::NotAFile => {
            ToolFailure::new("not_a_file", format!("{path:?} is not a regular file"))
        }
        ConfineError::TooLarge { limit } => ToolFailure::new(
            "too_large",
            format!("{path:?} is larger than the {limit}-byte file bound"),
        ),
        ConfineError::MultiplyLinked { links } => {
            let d = crate::net::Denial::of(
                    crate::net::DenialCode::PathMultiplyLinked,
                    format!(
                        "{path:?} has {links} hard links: refused (--refuse-hard-links), a link may name a file outside the root"
                    ),
                );
            ToolFailure::new(d.code(), d.reason())
        }
        ConfineError::Io(err) => {
            ToolFailure::new("io_error", format!("cannot read {path:?}: {err}"))
        }
    }
}

/// Whether a tool `path` is a URL rather than a file path: a scheme of two or
/// more characters (so `C:` stays a path) followed by `:` and then `/` or `\`,
/// or a scheme that is always a URL (`http:`, `file:`, `data:`, ...) whatever
/// follows. Leading C0 controls and spaces are skipped as the WHATWG URL
/// parser skips them.
pub fn looks_like_url(path: &str) -> bool {
    let s = path.trim_start_matches(|c: char| c <= ' ');
    let Some(colon) = s.find(':') else {
        return false;
    };
    let (scheme, rest) = s.split_at(colon);
    let rest = rest.get(1..).unwrap_or_default();
    let valid_scheme = scheme.len() >= 2
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !valid_scheme {
        return false;
    }
    const ALWAYS: &[&str] = &[
        "http", "https", "ftp", "ws", "wss", "file", "data", "gopher", "dict", "ldap", "jar",
        "netdoc", "sftp", "tftp", "smb",
    ];
    rest.starts_with(['/', '\\']) || ALWAYS.contains(&scheme.to_ascii_lowercase().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_detection() {
        for u in [
            "http://169.254.169.254/latest/meta-data/",
            "HTTP://x",
            " http://127.0.0.1/",
            "http:\\\\127.0.0.1\\x",
            "file:/etc/passwd",
            "gopher://x",
            "s3://bucket/key",
        ] {
            assert!(looks_like_url(u), "{u}");
        }
        for p in [
            "report.pdf",
            "a b/ü.pdf",
            "C:\\x.pdf",
            "report.pdf:1",
            "../x.pdf",
            "/abs/x.pdf",
        ] {
            assert!(!looks_like_url(p), "{p}");
        }
    }
}
