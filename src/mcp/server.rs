//! The PDF server as a [`Service`] on the session engine: method dispatch
//! for both protocol eras. The era itself (which request fixes it, what
//! the other era's requests get) is the engine's [`Era`] state machine,
//! shared with the gateway; lifecycle answers are in `lifecycle`, tool
//! calls in `call`.

use std::collections::HashMap;
use std::io;
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use super::backend::PdfBackend;
use super::call::{self, Answer, Calls};
use super::lifecycle;
use super::tools;
use super::Config;
use crate::confine::Root;
use crate::engine::wire::{code, Id, ProtocolError};
use crate::engine::{
    stateless_envelope, Admitted, Body, CallContext, Era, ErrorObject, Handled, Notification,
    Payload, Reply, Request, Response, Revision, Service,
};

/// One MCP session: a [`Service`] the engine serves.
pub struct Server<B> {
    era: Era,
    calls: Arc<Calls<B>>,
    /// `tools/list` pages rendered once, by revision and first tool.
    lists: HashMap<(Revision, usize), Arc<RawValue>>,
}

impl<B: PdfBackend> Server<B> {
    /// A session with `config`, serving the tools through `backend`.
    ///
    /// # Errors
    /// When `config.root` is given but cannot be canonicalized to a
    /// directory, and when neither or both of `config.root` and
    /// `config.unconfined` are set (`InvalidInput`).
    pub fn new(config: Config, backend: B) -> io::Result<Self> {
        let root = match (&config.root, config.unconfined) {
            (Some(dir), false) => {
                Some(Root::new(dir)?.refuse_multiply_linked(config.refuse_multiply_linked))
            }
            (None, true) => None,
            (Some(_), true) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "both a root and unconfined: choose one",
                ))
            }
            (None, false) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "no root: set a root directory to confine paths to, or unconfined to serve every readable path",
                ))
            }
        };
        Ok(Self {
            era: Era::Fresh,
            calls: Arc::new(Calls {
                config,
                root,
                backend,
            }),
            lists: HashMap::new(),
        })
    }

    /// The session's protocol era so far.
    pub fn era(&self) -> Era {
        self.era
    }

    fn confined(&self) -> bool {
        self.calls.root.is_some()
    }

    fn path_scope(&self) -> tools::PathScope {
        let remote = self.calls.config.remote.is_some();
        if self.confined() {
            tools::PathScope::Root { remote }
        } else {
            tools::PathScope::Unconfined { remote }
        }
    }

    /// Decides on one request the era admitted.
    fn dispatch(&mut self, request: &Request, admitted: Admitted, ctx: &CallContext) -> Handled {
        let id = &request.id;
        let method = request.method.as_str();
        let params = request.params_object();
        let answer = |result| answer(id, admitted, result);
        let not_found = |detail: &str| {
            answer(Err(ProtocolError::new(
                code::METHOD_NOT_FOUND,
                format!("method not found: {method}{detail}"),
                Some(id.clone()),
            )))
        };
        match admitted {
            Admitted::Initialize => answer(
                    lifecycle::initialize(id, params, self.path_scope()).map(|(rev, result)| {
                    self.era.enter_handshake(rev);
                    result
                }),
            ),
            Admitted::Fresh => match method {
                "ping" => answer(Ok(json!({}))),
                "tools/list" | "tools/call" => answer(Err(ProtocolError::new(
                    code::INVALID_REQUEST,
                    format!("{method} received before initialize: send initialize first, or carry the 2026-07-28 _meta envelope in every request"),
                    Some(id.clone()),
                ))),
                "server/discover" => answer(
                    stateless_envelope(id, params).map(|_| lifecycle::discover(self.path_scope())),
                ),
                _ => not_found(""),
            },
            Admitted::Handshake(rev) => match method {
                "ping" => answer(Ok(json!({}))),
                "tools/list" => self.tools_list(id, params, rev, admitted),
                "tools/call" => self.tools_call(request, rev, admitted, ctx),
                _ => not_found(""),
            },
            Admitted::Stateless(rev) => match method {
                "server/discover" => answer(Ok(lifecycle::discover(self.path_scope()))),
                "tools/list" => self.tools_list(id, params, rev, admitted),
                "tools/call" => self.tools_call(request, rev, admitted, ctx),
                _ => not_found(" (not a 2026-07-28 method)"),
            },
        }
    }

    /// `tools/list`: each page rendered once per revision, then reused.
    fn tools_list(
        &mut self,
        id: &Id,
        params: Option<&Map<String, Value>>,
        rev: Revision,
        admitted: Admitted,
    ) -> Handled {
        let defs = tools::definitions(rev, self.path_scope());
        let page = self.calls.config.tools_page_size.max(1);
        let start = match params.and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => Ok(0),
            Some(Value::String(c)) => decode_cursor(c, page, defs.len()).ok_or_else(|| {
                ProtocolError::invalid_params(id, &format!("invalid cursor {c:?}: pass a nextCursor value from a previous tools/list result"))
            }),
            Some(_) => Err(ProtocolError::invalid_params(id, "/params/cursor must be a string")),
        };
        let start = match start {
            Ok(s) => s,
            Err(e) => return Handled::Reply(Reply::Send(e.into())),
        };
        let rendered = match self.lists.get(&(rev, start)) {
            Some(r) => Arc::clone(r),
            None => {
                let value = with_result_type(list_page(defs, start, page, rev), admitted);
                let Ok(raw) = serde_json::value::to_raw_value(&value) else {
                    return Handled::Reply(Reply::Send(Response::result(id.clone(), value)));
                };
                let raw: Arc<RawValue> = Arc::from(raw);
                self.lists.insert((rev, start), Arc::clone(&raw));
                raw
            }
        };
        Handled::Reply(Reply::Send(Response::result(
            id.clone(),
            Payload::Raw(rendered),
        )))
    }

    fn tools_call(
        &self,
        request: &Request,
        rev: Revision,
        admitted: Admitted,
        ctx: &CallContext,
    ) -> Handled {
        let answer = Answer {
            rev,
            result_type: has_result_type(admitted),
        };
        call::decide(&self.calls, request, answer, ctx)
    }
}

/// Whether a result answering a request admitted as `admitted` carries
/// `resultType` (2026-07-28).
pub(super) fn has_result_type(admitted: Admitted) -> bool {
    match admitted {
        Admitted::Stateless(_) => true,
        Admitted::Handshake(rev) => rev.has_result_type(),
        Admitted::Fresh | Admitted::Initialize => false,
    }
}

pub(super) fn with_result_type(mut result: Value, admitted: Admitted) -> Value {
    if has_result_type(admitted) {
        if let Value::Object(m) = &mut result {
            // A result that says what it is (`input_required`) keeps it.
            m.entry("resultType")
                .or_insert_with(|| Value::from("complete"));
        }
    }
    result
}

fn list_page(defs: &[Value], start: usize, page: usize, rev: Revision) -> Value {
    let end = start.saturating_add(page).min(defs.len());
    let mut result = Map::new();
    result.insert(
        "tools".into(),
        Value::Array(defs.get(start..end).unwrap_or_default().to_vec()),
    );
    if end < defs.len() {
        result.insert("nextCursor".into(), Value::from(encode_cursor(end)));
    }
    if rev.has_result_type() {
        result.insert("ttlMs".into(), Value::from(0));
        result.insert("cacheScope".into(), Value::from("private"));
    }
    Value::Object(result)
}

/// The answer to a request admitted as `admitted`: its result (with
/// `resultType` where the revision has it) or the protocol error.
pub(super) fn answer(id: &Id, admitted: Admitted, result: Result<Value, ProtocolError>) -> Handled {
    Handled::Reply(Reply::Send(match result {
        Ok(v) => Response::result(id.clone(), with_result_type(v, admitted)),
        Err(e) => e.into(),
    }))
}

/// What every request passes before a service's dispatch: parameters by
/// name (an object), then the era's admission.
///
/// # Errors
/// The answer to send instead (-32602, or the era's refusal).
pub(super) fn admit(era: &mut Era, request: &Request) -> Result<Admitted, Handled> {
    if request.params.as_ref().is_some_and(|p| !p.is_object()) {
        return Err(Handled::Reply(Reply::Send(
            ProtocolError::invalid_params(
                &request.id,
                "/params must be an object (MCP parameters are by name)",
            )
            .into(),
        )));
    }
    era.admit(&request.id, &request.method, request.params_object())
        .map_err(|e| {
            tracing::debug!(method = %request.method, error = %e.message, "request refused by the era");
            Handled::Reply(Reply::Send(e.into()))
        })
}

/// After dispatch: only a successful request fixes the era (a failed
/// stateless request before `initialize` leaves the session free to fall
/// back to the handshake).
pub(super) fn settle(era: &mut Era, before: Era, handled: &Handled, method: &str) {
    if !succeeded(handled) {
        tracing::debug!(method = %method, "request failed");
        if before == Era::Fresh && era.is_stateless() {
            *era = before;
        }
    }
}

/// Whether `handled` answers with a result (a call always does: its
/// failures are tool errors inside a result).
fn succeeded(handled: &Handled) -> bool {
    match handled {
        Handled::Reply(Reply::Send(Response { body, .. })) => matches!(body, Body::Result(_)),
        Handled::Reply(Reply::Silent) => false,
        Handled::Call(_) | Handled::Task(_) => true,
    }
}

impl<B: PdfBackend> Service for Server<B> {
    fn request(&mut self, request: Request, ctx: CallContext) -> Handled {
        let before = self.era;
        let admitted = match admit(&mut self.era, &request) {
            Ok(a) => a,
            Err(refused) => return refused,
        };
        let handled = self.dispatch(&request, admitted, &ctx);
        settle(&mut self.era, before, &handled, &request.method);
        handled
    }

    fn notification(&mut self, notification: Notification) {
        if self.era.notified(&notification.method) {
            tracing::info!("client initialized");
        } else {
            tracing::debug!(method = %notification.method, "notification");
        }
    }

    fn accept_batch(&mut self, len: usize) -> Result<(), ErrorObject> {
        tracing::debug!(len, "batch offered");
        self.era.accept_batch()
    }
}

const CURSOR_PREFIX: &str = "tools:";

fn encode_cursor(offset: usize) -> String {
    format!("{CURSOR_PREFIX}{offset}")
}

/// Only cursors this server hands out are valid: a page boundary strictly
/// inside the list.
fn decode_cursor(cursor: &str, page: usize, len: usize) -> Option<usize> {
    let digits = cursor.strip_prefix(CURSOR_PREFIX)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 9 {
        return None;
    }
    let offset: usize = digits.parse().ok()?;
    (offset > 0 && offset < len && offset.is_multiple_of(page)).then_some(offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::transport::stdio;
    use crate::mcp::{Job, PageRange, ToolFailure};

    #[test]
    fn cursors() {
        assert_eq!(decode_cursor(&encode_cursor(1), 1, 2), Some(1));
        for bad in [
            "",
            "tools:",
            "tools:0",
            "tools:2",
            "tools:-1",
            "x",
            "tools:01x",
        ] {
            assert_eq!(decode_cursor(bad, 1, 2), None, "{bad}");
        }
    }

    /// A FIFO swapped in after the type check once blocked the open, and
    /// with it the whole session. Races a FIFO against a regular file for
    /// many calls; the server answers every call and every `ping`.
    #[test]
    fn a_fifo_racing_a_regular_file_never_blocks_the_server() {
        use std::sync::atomic::{AtomicBool, Ordering};

        struct Stub;
        impl PdfBackend for Stub {
            fn extract(
                &self,
                _: &[u8],
                _: Option<PageRange>,
                _: Option<&str>,
                _: Job,
            ) -> Result<Value, ToolFailure> {
                Err(ToolFailure::new("not_a_pdf", "stub"))
            }
            fn metadata(&self, _: &[u8], _: Option<&str>, _: Job) -> Result<Value, ToolFailure> {
                Err(ToolFailure::new("not_a_pdf", "stub"))
            }
        }

        const CALLS: usize = 400;
        let dir = tempfile::tempdir().unwrap();
        let root_dir = dir.path().canonicalize().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let racer = crate::confine::race_fifo(&root_dir, "race.pdf", Arc::clone(&stop));
        let (tx, rx) = std::sync::mpsc::channel();
        let worker = std::thread::spawn(move || {
            let config = Config {
                root: Some(root_dir),
                // Every call is queued at once: none may be refused as busy.
                max_queued_calls: CALLS,
                ..Config::default()
            };
            let mut input = String::from(
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            );
            input.push('\n');
            for i in 1..=CALLS {
                let call = json!({"jsonrpc":"2.0","id":i,"method":"tools/call","params":{"name":"get_metadata","arguments":{"path":"race.pdf"}}});
                let ping = json!({"jsonrpc":"2.0","id":format!("p{i}"),"method":"ping"});
                input.push_str(&format!("{call}\n{ping}\n"));
            }
            let engine = config.engine();
            let server = Server::new(config, Stub).unwrap();
            let (_, out) = stdio::serve(
                server,
                engine,
                io::Cursor::new(input.into_bytes()),
                Vec::new(),
            )
            .unwrap();
            let answered = String::from_utf8(out)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .filter(|r| r["id"] != 0 && (r["result"].is_object()))
                .count();
            tx.send(answered).unwrap();
        });
        // A hang is the failure: wait long, never forever.
        let answered = rx.recv_timeout(std::time::Duration::from_secs(300));
        stop.store(true, Ordering::Relaxed);
        racer.join().unwrap();
        assert_eq!(answered.ok(), Some(2 * CALLS), "a call never returned");
        worker.join().unwrap();
    }
}
