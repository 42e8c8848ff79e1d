//! The session: method dispatch for both protocol eras. The era itself
//! (which request fixes it, what the other era's requests get) is the
//! engine's [`Era`] state machine, shared with the gateway.

use std::io::{self, BufRead, Write};

use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use crate::json::Limits;
use crate::rpc::{Incoming, Message};

use super::backend::{refuse_url, PdfBackend, ToolFailure};
use super::tools::{self, ToolCall};
use super::Config;
use crate::confine::{self, ConfineError, Root};
use crate::engine::transport::{Frame, LineReader};
use crate::engine::wire::{self, code, Envelope, Id, ProtocolError};
use crate::engine::{
    stateless_envelope, stateless_versions, Admitted, Era, Revision, LATEST_HANDSHAKE,
    META_SERVER_INFO,
};

const INSTRUCTIONS: &str = "PDF tools. `extract` returns the text of a PDF page by page (1-based pages, optional range \"N-M\" or \"N-\"); `get_metadata` returns version, page count, encryption and document info. Paths are relative to the server's root directory; URLs are never fetched. Failures are tool errors carrying a stable error kind.";
const INSTRUCTIONS_UNCONFINED: &str = "PDF tools. `extract` returns the text of a PDF page by page (1-based pages, optional range \"N-M\" or \"N-\"); `get_metadata` returns version, page count, encryption and document info. UNCONFINED: this server was started with --unconfined and reads any path its process can read; URLs are never fetched. Failures are tool errors carrying a stable error kind.";

/// One MCP session over one connection.
pub struct Server<B> {
    config: Config,
    root: Option<Root>,
    era: Era,
    backend: B,
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
            config,
            root,
            era: Era::Fresh,
            backend,
        })
    }

    /// Serves newline-delimited JSON-RPC from `input` to `output` until
    /// `input` ends. Each response is one line, flushed at once.
    ///
    /// # Errors
    /// I/O errors of `input` or `output` (a closed `output` ends the session).
    pub fn serve<R: BufRead, W: Write>(&mut self, input: R, mut output: W) -> io::Result<()> {
        let mut lines = LineReader::new(input, self.config.max_line_bytes);
        loop {
            let frame = lines.next_frame()?;
            if frame == Frame::Eof {
                tracing::info!("input closed, stopping");
                return output.flush();
            }
            if let Some(response) = self.handle_frame(&frame) {
                serde_json::to_writer(&mut output, &response)?;
                output.write_all(b"\n")?;
                output.flush()?;
            }
        }
    }

    /// The response (if any) to one frame. `Frame::Eof` gets none.
    pub fn handle_frame(&mut self, frame: &Frame) -> Option<Value> {
        match frame {
            Frame::Eof => None,
            Frame::Oversized { len } => {
                tracing::warn!(len, "discarded an oversized line");
                Some(wire::oversized(*len, self.config.max_line_bytes))
            }
            Frame::Line(bytes) => self.handle_line(bytes),
        }
    }

    /// The response (if any) to one line of bytes (no terminator).
    pub fn handle_line(&mut self, bytes: &[u8]) -> Option<Value> {
        match wire::parse_line(bytes, &self.limits()) {
            Ok(Incoming::Single(message)) => self.handle_message(message),
            Ok(Incoming::Batch(items)) => self.handle_batch(&items),
            Err(response) => response,
        }
    }

    fn limits(&self) -> Limits {
        Limits {
            max_payload_bytes: self.config.max_line_bytes,
            ..Limits::default()
        }
    }

    fn handle_batch(&mut self, items: &[Box<RawValue>]) -> Option<Value> {
        let rev = match self.era {
            Era::Handshake { rev, .. } if rev.allows_batches() => rev,
            Era::Handshake { rev, .. } => {
                return Some(refuse_batch(format!(
                    "protocol revision {} does not allow JSON-RPC batches (only 2025-03-26 does)",
                    rev.as_str()
                )))
            }
            Era::Stateless => {
                return Some(refuse_batch(
                    "protocol revision 2026-07-28 does not allow JSON-RPC batches".into(),
                ))
            }
            Era::Fresh => {
                return Some(refuse_batch(
                    "JSON-RPC batches are refused before initialize (and initialize must not be batched)".into(),
                ))
            }
        };
        tracing::debug!(len = items.len(), rev = rev.as_str(), "batch");
        let limits = self.limits();
        let responses: Vec<Value> = items
            .iter()
            .filter_map(|item| {
                let bytes = item.get().as_bytes();
                let message = match wire::parse_element(bytes, &limits) {
                    Ok(m) => m,
                    Err(response) => return response,
                };
                if let Message::Request(r) = &message {
                    if r.method == "initialize" {
                        return Some(
                            ProtocolError::new(
                                code::INVALID_REQUEST,
                                "initialize must not be part of a JSON-RPC batch",
                                Some(r.id.clone()),
                            )
                            .to_response(),
                        );
                    }
                }
                self.handle_message(message)
            })
            .collect();
        if responses.is_empty() {
            None
        } else {
            Some(Value::Array(responses))
        }
    }

    fn handle_message(&mut self, message: Message) -> Option<Value> {
        let env = match wire::envelope(message) {
            Ok(env) => env,
            Err(response) => return response,
        };
        let Some(id) = env.id.clone() else {
            self.handle_notification(&env);
            return None;
        };
        let era = self.era;
        Some(match self.dispatch(&id, &env) {
            Ok(mut result) => {
                if self.era.is_stateless() || era.has_result_type() {
                    if let Value::Object(m) = &mut result {
                        m.insert("resultType".into(), Value::from("complete"));
                    }
                }
                wire::result_response(&id, result)
            }
            Err(response) => {
                tracing::debug!(method = %env.method, error = ?response.get("error"), "request failed");
                response
            }
        })
    }

    fn handle_notification(&mut self, env: &Envelope) {
        if self.era.notified(&env.method) {
            tracing::info!("client initialized");
        } else {
            tracing::debug!(method = %env.method, "notification ignored");
        }
    }

    /// A result, or the complete error response.
    fn dispatch(&mut self, id: &Id, env: &Envelope) -> Result<Value, Value> {
        let method = env.method.as_str();
        let err = |code: i64, msg: String| {
            Err(ProtocolError::new(code, msg, Some(id.clone())).to_response())
        };
        let admitted = self
            .era
            .admit(id, method, env.params.as_ref())
            .map_err(|e| e.to_response())?;
        match admitted {
            Admitted::Initialize => self.initialize(id, env).map_err(|e| e.to_response()),
            Admitted::Fresh => match method {
                "ping" => Ok(json!({})),
                "tools/list" | "tools/call" => err(
                    code::INVALID_REQUEST,
                    format!("{method} received before initialize: send initialize first, or carry the 2026-07-28 _meta envelope in every request"),
                ),
                "server/discover" => stateless_envelope(id, env.params.as_ref())
                    .map(|_| discover_result(self.instructions()))
                    .map_err(|e| e.to_response()),
                _ => err(code::METHOD_NOT_FOUND, format!("method not found: {method}")),
            },
            Admitted::Handshake(rev) => match method {
                "ping" => Ok(json!({})),
                "tools/list" => self.tools_list(id, env, rev).map_err(|e| e.to_response()),
                "tools/call" => self.tools_call(id, env, rev),
                _ => err(code::METHOD_NOT_FOUND, format!("method not found: {method}")),
            },
            Admitted::Stateless(rev) => match method {
                "server/discover" => Ok(discover_result(self.instructions())),
                "tools/list" => self.tools_list(id, env, rev).map_err(|e| e.to_response()),
                "tools/call" => self.tools_call(id, env, rev),
                _ => err(
                    code::METHOD_NOT_FOUND,
                    format!("method not found: {method} (not a 2026-07-28 method)"),
                ),
            },
        }
    }

    fn initialize(&mut self, id: &Id, env: &Envelope) -> Result<Value, ProtocolError> {
        let offered = match env.params.as_ref().and_then(|p| p.get("protocolVersion")) {
            Some(Value::String(v)) => v.clone(),
            Some(_) => {
                return Err(ProtocolError::invalid_params(
                    id,
                    "/params/protocolVersion must be a string",
                ))
            }
            None => {
                return Err(ProtocolError::invalid_params(
                    id,
                    "initialize requires /params/protocolVersion",
                ))
            }
        };
        let rev = Revision::parse(&offered)
            .filter(|r| r.is_handshake())
            .unwrap_or(LATEST_HANDSHAKE);
        tracing::info!(offered = %offered, answered = rev.as_str(), "initialize");
        self.era.enter_handshake(rev);
        Ok(json!({
            "protocolVersion": rev.as_str(),
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": server_info(),
            "instructions": self.instructions(),
        }))
    }

    fn tools_list(&self, id: &Id, env: &Envelope, rev: Revision) -> Result<Value, ProtocolError> {
        let defs = tools::definitions(rev, self.path_scope());
        let page = self.config.tools_page_size.max(1);
        let start = match env.params.as_ref().and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => decode_cursor(c, page, defs.len())
                .ok_or_else(|| ProtocolError::invalid_params(id, &format!("invalid cursor {c:?}: pass a nextCursor value from a previous tools/list result")))?,
            Some(_) => return Err(ProtocolError::invalid_params(id, "/params/cursor must be a string")),
        };
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
        Ok(Value::Object(result))
    }

    /// `tools/call`: the call the core vetted from the line's one scan.
    fn tools_call(&self, id: &Id, env: &Envelope, rev: Revision) -> Result<Value, Value> {
        let request = match &env.call {
            Some(Ok(call)) => call.clone(),
            Some(Err(rejected)) => return Err(rejected.to_response()),
            None => {
                return Err(ProtocolError::invalid_params(id, "/params is missing").to_response());
            }
        };
        let name = request.name.as_str();
        if !tools::is_tool(name) {
            return Err(ProtocolError::invalid_params(
                id,
                &format!(
                    "unknown tool {name:?}; tools: {}",
                    tools::TOOL_NAMES.join(", ")
                ),
            )
            .to_response());
        }
        let arguments = request.arguments();
        let outcome = tools::validate(name, &arguments).and_then(|call| self.run(&call));
        Ok(match outcome {
            Ok(structured) => tools::success(structured, rev),
            Err(f) => {
                tracing::info!(tool = name, kind = %f.kind, "tool error");
                tools::failure(&f)
            }
        })
    }

    fn path_scope(&self) -> tools::PathScope {
        match self.root {
            Some(_) => tools::PathScope::Root,
            None => tools::PathScope::Unconfined,
        }
    }

    fn instructions(&self) -> &'static str {
        match self.root {
            Some(_) => INSTRUCTIONS,
            None => INSTRUCTIONS_UNCONFINED,
        }
    }

    fn run(&self, call: &ToolCall) -> Result<Value, ToolFailure> {
        let bytes = self.read_input(call.path())?;
        match call {
            ToolCall::Extract {
                pages, password, ..
            } => self.backend.extract(&bytes, *pages, password.as_deref()),
            ToolCall::GetMetadata { password, .. } => {
                self.backend.metadata(&bytes, password.as_deref())
            }
        }
    }

    /// The bytes behind a tool's `path`: a URL is classified and never
    /// fetched; a file path is confined to the root and read through the
    /// verified handle.
    fn read_input(&self, path: &str) -> Result<Vec<u8>, ToolFailure> {
        if looks_like_url(path) {
            return Err(refuse_url(path));
        }
        let max = self.config.max_pdf_bytes;
        let read = match &self.root {
            Some(root) => root.read(path, max),
            None => confine::read_unconfined(path, max, self.config.refuse_multiply_linked),
        };
        read.map_err(|e| match e {
            ConfineError::OutsideRoot => {
                let d = crate::net::Denial::outside_root(format!(
                    "{path:?} resolves outside the server's root directory"
                ));
                ToolFailure::new(d.code(), d.reason())
            }
            ConfineError::NotFound => {
                ToolFailure::new("not_found", format!("no such file: {path:?}"))
            }
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
        })
    }
}

fn refuse_batch(message: String) -> Value {
    ProtocolError::new(code::INVALID_REQUEST, message, None).to_response()
}

fn server_info() -> Value {
    json!({"name": "toolgate", "version": env!("CARGO_PKG_VERSION")})
}

fn discover_result(instructions: &str) -> Value {
    let mut meta = Map::new();
    meta.insert(META_SERVER_INFO.into(), server_info());
    json!({
        "supportedVersions": stateless_versions(),
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": server_info(),
        "instructions": instructions,
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": meta,
    })
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
        use crate::mcp::{PageRange, PdfBackend, ToolFailure};
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;

        struct Stub;
        impl PdfBackend for Stub {
            fn extract(
                &self,
                _: &[u8],
                _: Option<PageRange>,
                _: Option<&str>,
            ) -> Result<Value, ToolFailure> {
                Err(ToolFailure::new("not_a_pdf", "stub"))
            }
            fn metadata(&self, _: &[u8], _: Option<&str>) -> Result<Value, ToolFailure> {
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
                ..Config::default()
            };
            let mut server = Server::new(config, Stub).unwrap();
            let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#;
            assert!(server.handle_line(init).is_some());
            let mut answered = 0usize;
            for i in 1..=CALLS {
                let call = json!({"jsonrpc":"2.0","id":i,"method":"tools/call","params":{"name":"get_metadata","arguments":{"path":"race.pdf"}}});
                let r = server.handle_line(call.to_string().as_bytes()).unwrap();
                assert_eq!(r["id"], i, "{r}");
                let ping = json!({"jsonrpc":"2.0","id":format!("p{i}"),"method":"ping"});
                let p = server.handle_line(ping.to_string().as_bytes()).unwrap();
                assert_eq!(p["result"], json!({}));
                answered += 2;
            }
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
