//! The gateway service: the session engine ([`crate::engine`]) serves
//! it, and it forwards to the child server through the policy.
//!
//! * Client → child: the engine has run every line through the core; a
//!   request is forwarded verbatim (ids are not rewritten) once the policy
//!   lets it through, a notification and a client response are forwarded
//!   verbatim. A client line the core refuses that answers a server request
//!   waiting for the client is answered to the server
//!   ([`Service::refused`]); a request's id stays reserved after its
//!   timeout until the server answers it or `--cancel-hold`
//!   passes.
//! * Child → client ([`GateService::child_line`]): every line goes through
//!   the core too (`--max-response-bytes`, strict JSON, the JSON-RPC
//!   envelope). A response reaches the request waiting for it; a
//!   server-initiated request or notification is written to the client as
//!   it came; a bad line is never forwarded, and the request it answered
//!   (when its id can be read) gets a `tool.bad_response` error.
//! * `tools/list` answers are filtered, `tools/call` results are checked for
//!   poisoning, by [`Gatekeeper`].

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot, watch, OwnedMutexGuard, OwnedSemaphorePermit, Semaphore};

use super::audit::{argument_sizes, audit_name, audit_uri, rfc3339_now, Audit, Record};
use super::code::{GateCode, Refusal};
use super::decide::{template_values, Answered, Gatekeeper};
use super::entries::{HiddenEntries, MAX_HIDDEN_ENTRIES};
use super::limits::{refuse_task_augmented, Limiter, Slot, Subject};
use super::listing::{ListEvent, ListingId, PageAsked, ToolView};
use super::named::{KeptName, Named};
use super::pin::MAX_TOOLS;
use super::pin::{definition_hash, Pins};
use super::poison::{clean_value, PoisonMode};
use super::retired::RetiredIds;
use super::states::{issued_state, state_subject, IssuedStates};
use crate::engine::{
    server_busy, Body, BoxFuture, ByteBudget, CallContext, Charge, ClientResponse, Era,
    ErrorObject, Handled, Id, Notification, Outbound, Payload, Peer, RefusedLine, Reply, Request,
    Response, Revision, Service,
};
use crate::json::{parse_strict, Limits, VALUE_BYTES};
use crate::rpc::{AUTHORIZATION_ERROR, AUTHORIZATION_MESSAGE};

mod off_session;
mod order;
mod own_listing;

use off_session::{off_session, NotScreened};
use order::{Held, LineOrder};
pub use own_listing::{GATE_ID_PREFIX, MAX_OWN_LIST_PAGES, OWN_LIST_TIMEOUT};

/// Default `--max-response-bytes`: the core's response bound, 16 MiB.
pub use crate::json::MAX_RESPONSE_BYTES as DEFAULT_MAX_RESPONSE_BYTES;

/// Most client requests waiting for the child's answer at once: with this
/// many pending, the gateway reads no further message from the client
/// until one is answered (backpressure, not refusal). Also the most
/// server requests waiting for the client's answer.
pub const MAX_PENDING_REQUESTS: usize = 4096;

/// Budget of the queue toward the child server, in bytes (each line with
/// its newline): the client's requests, notifications and responses and
/// the gateway's own messages. The gateway keeps room for one whole client
/// line ([`crate::json::MAX_PAYLOAD_BYTES`]) before it reads the next one;
/// when the child reads too slowly for that, the gateway stops reading the
/// client. At least twice the payload bound.
pub const MAX_TO_SERVER_BYTES: usize = 2 * crate::json::MAX_PAYLOAD_BYTES;

/// Budget of the server's lines on their way to the client, in bytes: a
/// line is charged when read from the child and the charge is held until
/// what it carries is queued toward the client (or dropped); when the
/// client stops reading, the gateway stops reading the server. A server
/// request or notification waits, held with its charge, for the lines
/// before it (message order); the lines after it are read meanwhile.
/// At least one whole answer ([`DEFAULT_MAX_RESPONSE_BYTES`]) fits.
pub const MAX_FROM_SERVER_BYTES: usize = 2 * DEFAULT_MAX_RESPONSE_BYTES;

/// Most JSON values in one line from the child, weighed as
/// [`crate::json::value_units`] weighs them (an object with a member and
/// each member cost more: attack s71-A, F1, `[{"a":0},…]`): the core's
/// bound ([`crate::json::MAX_JSON_VALUES`]). Parsed, a value costs about
/// [`crate::json::VALUE_BYTES`] beyond its text, so a line of tiny values
/// (`[0,0,…]`) would cost many times its length: a line with more is
/// refused before it is parsed, like an oversized one (`tool.bad_response`
/// for the request it answers).
pub const MAX_SERVER_LINE_VALUES: usize = crate::json::MAX_JSON_VALUES;

/// Bytes of the child's messages screened at once away from the session
/// (answers, and the pages of the gateway's own listings), counted as
/// they are charged on [`MAX_FROM_SERVER_BYTES`]: screening a message holds
/// several times its text while it reads each layer of encoded text each
/// way a client may, so an answer waits until it fits with those being
/// screened, and one larger is screened alone (attack s70-A, N5). One
/// whole answer ([`DEFAULT_MAX_RESPONSE_BYTES`]) fits.
pub const MAX_SCREENING_BYTES: usize = DEFAULT_MAX_RESPONSE_BYTES;

/// What `bytes` cost parsed, in values ([`crate::json::value_units`]),
/// counted up to `max + 1`.
fn values_in(bytes: &[u8], max: usize) -> usize {
    crate::json::value_units(bytes, max).unwrap_or(max.saturating_add(1))
}

/// What a request waiting for the child gets: the child's `result`
/// (`Ok`) or `error` (`Err`), with the charge of the line it came in on.
type Outcome = (Result<Value, Value>, Charge);

/// A server request or notification on its way to the client.
#[derive(Debug)]
struct ServerMessage {
    raw: Arc<RawValue>,
}

/// The rule of a refusal for want of a listing: a request that names a
/// tool, prompt or resource the gateway could not list itself.
const UNLISTED_RULE: &str = "builtin own listing";

/// The way to the child's stdin: whole lines (without their newline),
/// each with its charge on [`MAX_TO_SERVER_BYTES`], given back once
/// written.
pub type ToServer = mpsc::UnboundedSender<(Vec<u8>, Charge)>;

/// How long a cancelled or timed-out request keeps its id and its
/// concurrency slot, by default (`--cancel-hold`), when the server does not
/// answer it: past its `--call-timeout`, or past the cancellation when
/// there is none (a cancellation is advice to the server, not proof that
/// the call stopped; a server that follows MCP never answers a cancelled
/// request, so the gateway cannot wait for that answer without bound).
pub const CANCELLED_CALL_DEADLINE: Duration = Duration::from_secs(60);

/// The rule an icon or website link removed from an answer names.
const LINK_RULE: &str = "builtin url check (icon or website link)";

/// The rule a refused URL-mode `elicitation/create` names.
const ELICITED_URL_RULE: &str = "builtin url check (elicitation url)";

/// The URL-mode elicitations of an error's `data.elicitations` (MCP
/// 2025-11-25, `URLElicitationRequiredError`), each as an
/// `{"method": "elicitation/create", "params": …}` entry of
/// [`input_requests`]; a map's values count as an array's elements. Any
/// other shape of a present, non-null `elicitations` is one refused entry.
fn error_elicitations(data: Option<&Value>) -> Vec<Result<Value, Refusal>> {
    let as_ask = |params: &Value| json!({"method": "elicitation/create", "params": params});
    match data.and_then(|d| d.get("elicitations")) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.iter().map(|p| Ok(as_ask(p))).collect(),
        Some(Value::Object(m)) => m.values().map(|p| Ok(as_ask(p))).collect(),
        Some(_) => vec![Err(Refusal::new(
            GateCode::BadResponse,
            "an error's `data.elicitations` is neither an array nor a map",
            ELICITED_URL_RULE,
        ))],
    }
}

/// The entries of a result's `inputRequests`: the values of a map or the
/// elements of an array; none when it has none. Another shape is one
/// refused entry (`tool.bad_response`).
fn input_requests(result: &Value) -> Vec<Result<&Value, Refusal>> {
    match result.get("inputRequests") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(m)) => m.values().map(Ok).collect(),
        Some(Value::Array(a)) => a.iter().map(Ok).collect(),
        Some(_) => vec![Err(Refusal::new(
            GateCode::BadResponse,
            "`inputRequests` is neither a map nor an array",
            ELICITED_URL_RULE,
        ))],
    }
}

/// How long a forwarded request other than `tools/call` (which
/// `--call-timeout` bounds) waits for the server: then `tool.call_timeout`.
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(120);

/// JSON-RPC code of the gateway's own errors (timeout, child gone, bad
/// answer): -32603 internal error, with `error.data.code` the `tool.*` code.
pub const GATE_ERROR: i64 = -32603;

/// How a refused `tools/call` is answered (`--deny-as`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DenyAs {
    /// An `isError: true` result the model can read (the default: the
    /// TypeScript and Python SDKs use -32001 for timeouts and
    /// session-not-found, so a host may take a -32001 refusal for a timeout).
    #[default]
    Result,
    /// The core's -32001 "blocked by policy" error with `error.data.code`.
    Error,
}

/// `--pin` state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinMode {
    /// No pinning.
    Off,
    /// Pins loaded from the file: enforced.
    Enforce(PathBuf),
    /// No pin file yet (trust on first use), or `--pin-update`: the tools
    /// listed are accepted and written to the file at the end of a listing.
    Learn(PathBuf),
}

/// The gateway's settings.
#[derive(Debug)]
pub struct GateConfig {
    /// Policy, roots, poison mode.
    pub keeper: Gatekeeper,
    /// `--deny-as`.
    pub deny_as: DenyAs,
    /// `--call-timeout`.
    pub call_timeout: Option<Duration>,
    /// `--cancel-hold`: how long a cancelled or timed-out request keeps its
    /// id and its slots when the server does not answer it (default
    /// [`CANCELLED_CALL_DEADLINE`]).
    pub cancel_hold: Duration,
    /// `--max-response-bytes`.
    pub max_response_bytes: usize,
    /// `--pin`.
    pub pin: PinMode,
    /// The pins read from the file (`PinMode::Enforce`).
    pub pins: Option<Pins>,
    /// `--audit`.
    pub audit: Option<Audit>,
    /// `--audit-all`.
    pub audit_all: bool,
}

struct Pending {
    tx: oneshot::Sender<Outcome>,
    /// Its place under a `[[limits]]` rule, given back when it ends.
    limited: Option<Slot>,
    /// Unique per entry (ids may be reused once answered).
    seq: u64,
    started: Instant,
    /// The request's `_meta.progressToken` ([`progress_key`]), when it
    /// carried one: bound to this request until the entry ends, and the
    /// server's progress for it reaches the client until [`quiet`](Self::quiet).
    progress: Option<String>,
    /// The client gave the request up (cancelled it, or got
    /// `tool.call_timeout`): its progress no longer reaches the client,
    /// though its token stays bound to it while the entry is held
    /// (attack s68-A, N4: a new request reusing the token got the old
    /// call's progress).
    quiet: bool,
    /// The client got its answer (`tool.call_timeout`): the entry only
    /// keeps the id reserved until the server answers or
    /// `--cancel-hold` passes, and a client's cancellation of
    /// it shortens nothing.
    timed_out: bool,
    /// The entry's place among [`MAX_PENDING_REQUESTS`] (`None` for the
    /// gateway's own requests).
    _slot: Option<OwnedSemaphorePermit>,
}

/// What the gateway holds for the client's next message (taken in
/// [`Service::ready`], used when the message is forwarded).
#[derive(Default)]
struct Reserved {
    /// Room for one whole line in the queue toward the child.
    bytes: Option<Charge>,
    /// A place among the pending requests.
    slot: Option<OwnedSemaphorePermit>,
}

struct State {
    pending: HashMap<Id, Pending>,
    /// The ids given up on and not yet answered.
    retired: RetiredIds,
    next_seq: u64,
    view: ToolView,
    /// Prompts, resources and resource templates hidden for what their
    /// definitions carry: every request naming one is refused.
    hidden: HiddenEntries,
    pins: Option<Pins>,
    learned: Pins,
    /// Learning (trust on first use, `--pin-update`) ended with the first
    /// complete listing: later listings are checked against it.
    learning_done: bool,
    /// While learning, the hash of each tool's definition as a page of
    /// the client's first showed it (at most [`MAX_TOOLS`], as the view):
    /// what gets pinned for a tool the client was shown (attack s62, F2).
    shown_while_learning: HashMap<String, (String, usize)>,
    /// A complete `tools/list` listing (from its first page to its last)
    /// has passed the gateway since the session began or the server last
    /// sent `notifications/tools/list_changed`.
    listed: bool,
    /// The server said its tools changed (`notifications/tools/list_changed`)
    /// and no complete listing has passed since: what the view holds may be
    /// out of date, so every call waits for a listing.
    tools_changed: bool,
    /// The listings of prompts and resources the gateway completed itself
    /// ([`own_listing::entry_listings`]) since the session began or the
    /// server last said that kind changed.
    entries_listed: HashSet<&'static str>,
    /// Ids of the server's requests forwarded to the client and not yet
    /// answered (at most MAX_PENDING_REQUESTS), with what each asked.
    server_asks: std::collections::HashMap<Id, Asked>,
    /// The `requestState` values the server issued in `input_required`
    /// results passed to the client (2026-07-28): echoed verbatim, they
    /// are not checked as arguments.
    states: IssuedStates,
    /// The progress tokens of the requests waiting on the server
    /// ([`progress_key`] to the id carrying it; at most one per pending
    /// request): a server's `notifications/progress` naming another is
    /// dropped.
    progress: HashMap<String, Id>,
    limiter: Limiter,
    audit: Option<Audit>,
    audit_failed: bool,
    /// The learned pins could not be saved: calls are refused.
    pin_failed: bool,
}

/// What a client's request forwarded to the child asks, for its
/// bookkeeping and its answer.
enum Asking {
    /// A request holding a place under a `[[limits]]` rule when `Some`
    /// (a `tools/call`, a `prompts/get`), or none.
    Counted(Option<Slot>),
    /// A page of a `tools/list` listing.
    Page(ListingId),
}

/// What a server's request forwarded to the client asked: the client's
/// answer to `roots/list` holds its own roots ([`Answered::RootsList`]);
/// the method, when it is one of MCP's, names the answer's audit line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    RootsList,
    Other(Option<&'static str>),
}

/// The methods MCP defines for a server's requests to the client, as an
/// audit line of the client's answer names them.
const SERVER_REQUEST_METHODS: [&str; 4] = [
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
    "ping",
];

impl Asked {
    fn of(method: &str) -> Self {
        if method == "roots/list" {
            return Self::RootsList;
        }
        Self::Other(SERVER_REQUEST_METHODS.into_iter().find(|m| *m == method))
    }

    fn method(self) -> Option<&'static str> {
        match self {
            Self::RootsList => Some("roots/list"),
            Self::Other(method) => method,
        }
    }
}

struct Shared {
    keeper: Gatekeeper,
    deny_as: DenyAs,
    call_timeout: Option<Duration>,
    cancel_hold: Duration,
    limits: Limits,
    pin: PinMode,
    audit_all: bool,
    state: Mutex<State>,
    to_child: Mutex<Option<ToServer>>,
    /// Bytes queued toward the child ([`MAX_TO_SERVER_BYTES`]).
    to_server: ByteBudget,
    /// Bytes of the child's lines on their way ([`MAX_FROM_SERVER_BYTES`]).
    from_server: ByteBudget,
    /// The order of the child's lines toward the client: a server
    /// message waits for the lines before it.
    order: Arc<LineOrder<ServerMessage>>,
    /// Places among the pending requests ([`MAX_PENDING_REQUESTS`]).
    pending_slots: Arc<Semaphore>,
    /// Held for the client's next message.
    reserved: Mutex<Reserved>,
    /// Held while a request is on its way to the child out of the dispatch
    /// task (`--resolve`): the next message waits, so messages reach the
    /// child in the client's order.
    in_order: Arc<tokio::sync::Mutex<()>>,
    /// The session's `--resolve` lookups, bounded in number and time.
    resolver: super::resolve::Resolver,
    /// The longest client line (the room reserved for the next message).
    max_line: usize,
    peer: Mutex<Option<Peer>>,
    /// The client closed its input (the session's end has begun).
    client_closed: watch::Sender<bool>,
    /// The child's output ended, or the child was stopped: nothing more
    /// will come from it.
    server_gone: watch::Sender<bool>,
    /// Screenings running away from the session ([`off_session`]).
    screening: off_session::Screenings,
    /// The session's era, followed as the requests and the child's
    /// `initialize` answer pass: every answer the gateway writes itself fits it.
    era: Mutex<Era>,
    /// Held while the gateway makes its own listing (one at a time).
    listing: tokio::sync::Mutex<()>,
}

/// The gateway as an engine [`Service`]; clone it to feed the child's lines
/// ([`GateService::child_line`]) from the thread reading the child.
#[derive(Clone)]
pub struct GateService {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for GateService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GateService")
    }
}

/// Why a line did not go toward the child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unsent {
    /// The queue had no room, and the line could not wait.
    Full,
    /// The child is gone (or its input closed).
    Gone,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Walks `result` for the links a client opens by itself (each
/// `icons[].src`, each `websiteUrl`, at any depth) and removes each that
/// `refused` refuses, returning the refusals. An icon inline in a `data:`
/// URL is drawn, never run: it stays unasked. A `websiteUrl` is opened (a
/// `data:text/html` page runs its script): it is asked like any other.
fn retain_links(
    result: &mut Value,
    mut refused: impl FnMut(&str) -> Option<Refusal>,
) -> Vec<Refusal> {
    let mut dropped = Vec::new();
    let mut stack = vec![result];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                if let Some(Value::Array(icons)) = m.get_mut("icons") {
                    icons.retain(|icon| {
                        let Some(src) = icon.get("src").and_then(Value::as_str) else {
                            return true;
                        };
                        let inline = src
                            .trim_start()
                            .get(..5)
                            .is_some_and(|s| s.eq_ignore_ascii_case("data:"));
                        if inline {
                            return true;
                        }
                        refused(src).map(|r| dropped.push(r)).is_none()
                    });
                }
                let site = m
                    .get("websiteUrl")
                    .and_then(Value::as_str)
                    .and_then(&mut refused);
                if let Some(r) = site {
                    m.remove("websiteUrl");
                    dropped.push(r);
                }
                stack.extend(m.values_mut());
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
    dropped
}

/// Remembers, for each tool a filtered page of the client's shows
/// (`result`), the hash of its definition as `view` holds it, unless one
/// was remembered before; at most [`MAX_TOOLS`] names, as the view holds.
fn remember_shown(shown: &mut HashMap<String, (String, usize)>, view: &ToolView, result: &Value) {
    let tools = result.get("tools").and_then(Value::as_array);
    for name in tools
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("name")?.as_str())
    {
        let Some(state) = view.get(name) else {
            continue;
        };
        if shown.len() < MAX_TOOLS && !shown.contains_key(name) {
            let order = shown.len();
            shown.insert(name.to_owned(), (state.hash.clone(), order));
        }
    }
}

/// A request refused before it is forwarded, because a request in flight
/// (or cancelled, or timed out, and not yet answered by the server) holds
/// its id or its progress token: its place under `[limits]` given back,
/// and answered with `error`: its code, a `data.kind`, and a `data.pointer`
/// naming the member (RFC 6901).
fn in_flight_clash(
    st: &mut State,
    limited: Option<&Slot>,
    id: Id,
    error: (i64, &str, &str),
    why: &str,
) -> Handled {
    if let Some(slot) = limited {
        st.limiter.release(slot);
    }
    let (code, kind, pointer) = error;
    Handled::Reply(Reply::Send(Response::error(
        Some(id),
        ErrorObject {
            code,
            message: format!(
                "{why} (or cancelled, or timed out, and not yet answered by the server)"
            ),
            data: Some(json!({ "kind": kind, "pointer": pointer })),
        },
    )))
}

/// Takes the request waiting on `id` out of `st`, with its progress token
/// and its concurrency slots.
fn finish_locked(st: &mut State, id: &Id) -> Option<Pending> {
    let p = st.pending.remove(id)?;
    if let Some(token) = &p.progress {
        if st.progress.get(token) == Some(id) {
            st.progress.remove(token);
        }
    }
    if let Some(slot) = &p.limited {
        st.limiter.release(slot);
    }
    Some(p)
}

/// Answers the request `p` waited for with the gateway's error `code`.
fn answer_with(p: Pending, code: GateCode, message: &str) {
    let err = gate_error(code, message.into());
    let _ = p.tx.send((
        Err(json!({"code": err.code, "message": err.message, "data": err.data})),
        Charge::none(),
    ));
}

fn gate_error(code: GateCode, message: String) -> ErrorObject {
    ErrorObject {
        code: GATE_ERROR,
        message,
        data: Some(json!({"code": code.code()})),
    }
}

/// The gateway's roots as an MCP `roots` list (`file://` URIs).
fn roots_value(roots: &super::paths::Roots) -> Value {
    Value::Array(
        roots
            .roots()
            .iter()
            .filter_map(|p| url::Url::from_file_path(p).ok())
            .map(|u| json!({"uri": u.as_str()}))
            .collect(),
    )
}

/// A progress token as a key: a string or an integer (MCP), written as its
/// JSON text (`"7"` and `7` are different tokens).
fn progress_token_key(token: &Value) -> Option<String> {
    match token {
        Value::String(_) => Some(token.to_string()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(token.to_string()),
        _ => None,
    }
}

/// The key of the `_meta.progressToken` a request's `params` carry.
fn progress_key(params: Option<&Value>) -> Option<String> {
    progress_token_key(params?.get("_meta")?.get("progressToken")?)
}

/// The `requestState` a request carries when it continues the request the
/// server issued it to (2026-07-28 `input_required`), for the first time
/// since it was issued ([`IssuedStates::unspent`]).
fn continued_state<'a>(req: &'a Request, states: &IssuedStates) -> Option<&'a str> {
    let state = req.params_object()?.get("requestState")?.as_str()?;
    states
        .unspent(
            &req.method,
            state_subject(&req.method, req.params.as_ref()),
            state,
        )
        .then_some(state)
}

/// A mediated request's argument names and sizes, for its audit line:
/// `prompts/get`'s `arguments`, a completion's `argument` (its name).
fn operation_arguments(req: &Request) -> Option<serde_json::Map<String, Value>> {
    let p = req.params_object()?;
    match req.method.as_str() {
        "completion/complete" => {
            let a = p.get("argument")?;
            let name = a.get("name")?.as_str()?;
            argument_sizes(&json!({ name: a.get("value") }))
        }
        _ => p.get("arguments").and_then(argument_sizes),
    }
}

/// `true` for a task-augmented `tools/call` (`params.task`, MCP
/// 2025-11-25), whose answer is a `CreateTaskResult`.
fn is_task(req: &Request) -> bool {
    req.method == "tools/call" && req.params_object().is_some_and(|p| p.contains_key("task"))
}

fn valid_id(v: &Value) -> Option<Id> {
    match v {
        // The server's ids are held while the client answers: bounded as
        // the client's are (attack s72-A, F1).
        Value::String(s) if s.len() <= crate::rpc::MAX_ID_BYTES => Some(Id::String(s.clone())),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(Id::Number(n.clone())),
        _ => None,
    }
}

impl GateService {
    /// A gateway writing to the child through `to_child` (one line each,
    /// without its newline, charged on `to_server`), reading client lines
    /// of at most `max_line` bytes.
    pub fn new(
        config: GateConfig,
        to_child: ToServer,
        to_server: ByteBudget,
        max_line: usize,
    ) -> Self {
        let limits = Limits {
            max_payload_bytes: config.max_response_bytes,
            ..Limits::default()
        };
        let pins = match config.pin {
            PinMode::Off => None,
            PinMode::Enforce(_) => Some(config.pins.unwrap_or_default()),
            PinMode::Learn(_) => Some(Pins::default()),
        };
        Self {
            shared: Arc::new(Shared {
                keeper: config.keeper,
                deny_as: config.deny_as,
                call_timeout: config.call_timeout,
                cancel_hold: config.cancel_hold,
                limits,
                pin: config.pin,
                audit_all: config.audit_all,
                state: Mutex::new(State {
                    pending: HashMap::new(),
                    next_seq: 0,
                    view: ToolView::default(),
                    hidden: HiddenEntries::default(),
                    pins,
                    learned: Pins::default(),
                    learning_done: false,
                    shown_while_learning: HashMap::new(),
                    listed: false,
                    tools_changed: false,
                    entries_listed: HashSet::new(),
                    server_asks: std::collections::HashMap::new(),
                    states: IssuedStates::new(),
                    progress: HashMap::new(),
                    limiter: Limiter::default(),
                    audit: config.audit,
                    audit_failed: false,
                    pin_failed: false,
                    retired: RetiredIds::default(),
                }),
                to_child: Mutex::new(Some(to_child)),
                to_server,
                from_server: ByteBudget::new(MAX_FROM_SERVER_BYTES),
                order: LineOrder::new(),
                pending_slots: Arc::new(Semaphore::new(MAX_PENDING_REQUESTS)),
                reserved: Mutex::new(Reserved::default()),
                in_order: Arc::new(tokio::sync::Mutex::new(())),
                resolver: super::resolve::Resolver::default(),
                max_line,
                peer: Mutex::new(None),
                client_closed: watch::Sender::new(false),
                server_gone: watch::Sender::new(false),
                screening: off_session::Screenings::new(MAX_SCREENING_BYTES),
                era: Mutex::new(Era::default()),
                listing: tokio::sync::Mutex::new(()),
            }),
        }
    }

    /// `true` once the client closed its input.
    pub fn client_closed(&self) -> bool {
        *self.shared.client_closed.borrow()
    }

    /// Completes once the client has closed its input.
    pub async fn until_client_closed(&self) {
        let mut rx = self.shared.client_closed.subscribe();
        let _ = rx.wait_for(|closed| *closed).await;
    }

    /// Completes once [`child_gone`](Self::child_gone) has run: every
    /// request that waited for the child has its answer.
    pub async fn until_server_gone(&self) {
        let mut rx = self.shared.server_gone.subscribe();
        let _ = rx.wait_for(|gone| *gone).await;
    }

    /// Returns once no answer of the child is being screened away from
    /// the session: a deterministic driver (the `gate_session` harness)
    /// waits for it before its next step.
    #[cfg(feature = "harness")]
    pub(crate) async fn until_screened(&self) {
        self.shared.screening.until_none().await;
    }

    /// Queues `line` toward the child with its `charge`.
    fn queue_child(&self, line: &[u8], charge: Charge) -> Result<(), Unsent> {
        let guard = lock(&self.shared.to_child);
        let Some(tx) = guard.as_ref() else {
            return Err(Unsent::Gone);
        };
        // The server reads the message the gateway vetted, whatever it
        // takes for a line end (`engine::line_safe`).
        tx.send((crate::engine::line_safe(line), charge))
            .map_err(|_| Unsent::Gone)
    }

    /// The charge for a line of `len` bytes toward the child: from the
    /// room reserved for the client's message, else from what is free now.
    fn charge_now(&self, len: usize) -> Option<Charge> {
        let bytes = len.saturating_add(1);
        let reserved = lock(&self.shared.reserved).bytes.take();
        // What is left of the reservation goes back to the budget.
        reserved
            .and_then(|mut r| r.split(bytes))
            .or_else(|| self.shared.to_server.try_take(bytes))
    }

    /// Queues a client's message without waiting, in the room reserved
    /// for it ([`Service::ready`]): `Unsent::Full` when there is none, and
    /// then it is not sent.
    fn send_child(&self, line: &[u8]) -> Result<(), Unsent> {
        if lock(&self.shared.to_child).is_none() {
            return Err(Unsent::Gone);
        }
        let charge = self.charge_now(line.len()).ok_or(Unsent::Full)?;
        self.queue_child(line, charge)
    }

    /// Queues a message of the gateway's own (from the thread reading the
    /// child, which must not wait on the child's input) when there is room
    /// now; dropped otherwise (with a warning).
    fn send_own(&self, line: &[u8]) -> Result<(), Unsent> {
        let charge = self.shared.to_server.try_take(line.len().saturating_add(1));
        let Some(charge) = charge else {
            tracing::warn!("no room toward the server: the gateway's own message dropped");
            return Err(Unsent::Full);
        };
        self.queue_child(line, charge)
    }

    /// Queues a line once there is room for it (a message the gateway
    /// sends from a task of its own).
    async fn send_child_when_room(&self, line: &[u8]) -> Result<(), Unsent> {
        let charge = self
            .shared
            .to_server
            .take(line.len().saturating_add(1))
            .await
            .map_err(|_| Unsent::Gone)?;
        self.queue_child(line, charge)
    }

    /// The answer to a request that did not go toward the child.
    fn unsent(&self, id: Id, why: Unsent) -> Response {
        let error = match why {
            Unsent::Gone => gate_error(
                GateCode::ServerExited,
                "the request could not be passed to the server".into(),
            ),
            Unsent::Full => server_busy(
                "the gateway's queue toward the server is full; retry later".into(),
                serde_json::Map::new(),
            ),
        };
        Response::error(Some(id), error)
    }

    /// Why no place was free: the child is gone, or (outside readiness)
    /// every place is taken.
    fn gone_or_busy(&self) -> Unsent {
        if lock(&self.shared.to_child).is_none() {
            Unsent::Gone
        } else {
            Unsent::Full
        }
    }

    /// A place among the pending requests: the one reserved for the
    /// client's message, else one free now.
    fn pending_slot(&self) -> Option<OwnedSemaphorePermit> {
        lock(&self.shared.reserved).slot.take().or_else(|| {
            Arc::clone(&self.shared.pending_slots)
                .try_acquire_owned()
                .ok()
        })
    }

    /// Writes one audit line; `false` when the log cannot be written (the
    /// caller refuses what it was about to let through: fail closed).
    fn audit(&self, st: &mut State, rec: Record<'_>) -> bool {
        if let Some(a) = st.audit.as_mut() {
            if let Err(e) = a.write(&rec) {
                if !st.audit_failed {
                    tracing::error!(error = %e, "cannot write the audit log: refusing every call from now on");
                }
                st.audit_failed = true;
                return false;
            }
        }
        true
    }

    fn refuse_call(
        &self,
        id: Id,
        tool: &str,
        args: &Value,
        refusal: &Refusal,
        st: &mut State,
        task: bool,
    ) -> Reply {
        tracing::warn!(
            tool = audit_name(tool),
            code = refusal.code(),
            rule = refusal.rule(),
            "tools/call refused"
        );
        let rec = Record {
            time: rfc3339_now(),
            direction: "client->server",
            id: Some(id.to_value()),
            method: Some("tools/call"),
            tool: Some(tool),
            decision: "refused",
            code: Some(refusal.code()),
            rule: Some(refusal.rule()),
            arguments: argument_sizes(args),
        };
        self.audit(st, rec);
        Reply::Send(self.denial(id, refusal, task))
    }

    /// A result the gateway writes itself (a refusal, its answer to the
    /// server's `roots/list`), in the session's era: with `"resultType":
    /// "complete"` where results carry it ([`Era::has_result_type`]).
    fn own_result(&self, mut result: Value) -> Value {
        if lock(&self.shared.era).has_result_type() {
            if let Some(m) = result.as_object_mut() {
                m.insert("resultType".into(), json!("complete"));
            }
        }
        result
    }

    /// A `tools/call`'s refusal: a result with `isError` under `--deny-as
    /// result`, unless the call is task-augmented (`task`: its answer must
    /// be a `CreateTaskResult`, which no refusal is), else the -32001 error.
    fn denial(&self, id: Id, refusal: &Refusal, task: bool) -> Response {
        match self.shared.deny_as {
            DenyAs::Result if !task => {
                let result = self.own_result(json!({
                    "content": [{"type": "text", "text": format!("refused by toolgate gate: {}: {}", refusal.code(), refusal.message())}],
                    "isError": true,
                }));
                Response::result(id, result)
            }
            DenyAs::Result | DenyAs::Error => Response::error(
                Some(id),
                ErrorObject {
                    code: AUTHORIZATION_ERROR,
                    message: AUTHORIZATION_MESSAGE.into(),
                    data: Some(json!({"code": refusal.code(), "reason": refusal.message()})),
                },
            ),
        }
    }

    /// Decides a `tools/call`: `Err(reply)` when refused.
    fn vet_call(
        &self,
        req: &Request,
        st: &mut State,
        unlisted: Option<&str>,
    ) -> Result<(Option<Slot>, Vec<super::urls::PendingName>), Reply> {
        let params = req.params_object();
        let name = params
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let args = params
            .and_then(|p| p.get("arguments"))
            .cloned()
            .unwrap_or_else(|| json!({}));
        let task = is_task(req);
        if st.audit_failed {
            let r = Refusal::new(
                GateCode::AuditUnavailable,
                "the audit log cannot be written",
                "--audit",
            );
            return Err(Reply::Send(self.denial(req.id.clone(), &r, task)));
        }
        if st.pin_failed {
            let r = Refusal::new(
                GateCode::PinUnavailable,
                "the tool definitions learned this session could not be saved to the pin file",
                "--pin",
            );
            return Err(Reply::Send(self.denial(req.id.clone(), &r, task)));
        }
        if matches!(self.shared.pin, PinMode::Learn(_)) && !st.learning_done {
            // Trust on first use learns from one complete listing: a call
            // decided on part of one would leave the rest unpinned.
            let r = Refusal::new(
                GateCode::NotListed,
                "the server has not listed its tools completely, so nothing is pinned yet",
                "--pin",
            );
            return Err(Reply::Send(self.denial(req.id.clone(), &r, task)));
        }
        if let Some(why) = unlisted.filter(|_| st.tools_changed || st.view.get(&name).is_none()) {
            // Nothing says this tool is not one a listing would hide.
            let r = Refusal::new(
                GateCode::NotListed,
                format!("tool `{name}` is on no listing: {why}"),
                UNLISTED_RULE,
            );
            return Err(self.refuse_call(req.id.clone(), &name, &args, &r, st, task));
        }
        let keeper = &self.shared.keeper;
        let decided = keeper
            .check_call(&name, &st.view, st.pins.as_ref(), &args)
            .and_then(|mut names| {
                let other = st.states.to_check(&req.method, req.params.as_ref());
                names.extend(keeper.check_other_params(other.as_deref(), &["name", "arguments"])?);
                Ok(names)
            });
        let names = match decided {
            Ok(n) => n,
            Err(r) => return Err(self.refuse_call(req.id.clone(), &name, &args, &r, st, task)),
        };
        if params.is_some_and(|p| p.contains_key("task")) {
            if let Err(r) = refuse_task_augmented(&keeper.policy.limits, &name) {
                return Err(self.refuse_call(req.id.clone(), &name, &args, &r, st, task));
            }
        }
        let state = continued_state(req, &st.states);
        let now = Instant::now();
        let rules = &keeper.policy.limits;
        let limited = match st
            .limiter
            .acquire(rules, Subject::Tool, &name, now, state.is_some())
        {
            Ok(l) => l,
            Err(r) => return Err(self.refuse_call(req.id.clone(), &name, &args, &r, st, task)),
        };
        if let Some(s) = state {
            st.states.spend(
                &req.method,
                state_subject(&req.method, req.params.as_ref()),
                s,
            );
        }
        if self.shared.audit_all {
            let rec = Record {
                time: rfc3339_now(),
                direction: "client->server",
                id: Some(req.id.to_value()),
                method: Some("tools/call"),
                tool: Some(&name),
                decision: "allowed",
                code: None,
                rule: None,
                arguments: argument_sizes(&args),
            };
            if !self.audit(st, rec) {
                if let Some(slot) = &limited {
                    st.limiter.release(slot);
                }
                let r = Refusal::new(
                    GateCode::AuditUnavailable,
                    "the audit log cannot be written",
                    "--audit",
                );
                return Err(Reply::Send(self.denial(req.id.clone(), &r, task)));
            }
        }
        Ok((limited, names))
    }

    /// A cancelled call: its pending entry (and its concurrency slot) stays
    /// until the server answers, or as long as a call that timed out would
    /// stay: `--cancel-hold` past `--call-timeout` from its
    /// start, else `--cancel-hold` from the cancellation; then
    /// its id is retired ([`RetiredIds`]). Its progress no longer reaches
    /// the client.
    fn hold_until_deadline(&self, id: Id) {
        let started = match lock(&self.shared.state).pending.get_mut(&id) {
            // A timed-out request is held already, to a later deadline.
            Some(p) if !p.timed_out => {
                // MCP: a cancelled request's notifications are ignored.
                p.quiet = true;
                p.started
            }
            _ => return,
        };
        // As long as a timed-out call is held (attack s60, K11-B): a
        // cancellation frees no slot before a timeout would.
        let deadline = match self.shared.call_timeout {
            Some(t) => (started + t).max(Instant::now()) + self.shared.cancel_hold,
            None => Instant::now() + self.shared.cancel_hold,
        };
        self.hold_until(id, deadline);
    }

    /// A request that timed out (answered to the client, cancelled at the
    /// server): its id stays reserved and its slots taken until the server
    /// answers it (the late answer is dropped) or `--cancel-hold`
    /// passes, so a client reusing the id meanwhile is refused as an
    /// in-flight duplicate and never gets the old call's answer. Its
    /// progress token is no longer the client's to hear about, and stays
    /// bound to it meanwhile.
    fn hold_after_timeout(&self, id: Id) {
        {
            let mut st = lock(&self.shared.state);
            let st = &mut *st;
            let Some(p) = st.pending.get_mut(&id) else {
                return;
            };
            p.timed_out = true;
            p.quiet = true;
        }
        self.hold_until(id, Instant::now() + self.shared.cancel_hold);
    }

    /// Frees the pending entry of `id` (as it stands now) at `deadline`
    /// unless the server has answered by then.
    fn hold_until(&self, id: Id, deadline: Instant) {
        let Some(seq) = lock(&self.shared.state).pending.get(&id).map(|p| p.seq) else {
            return;
        };
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let me = self.clone();
        rt.spawn(async move {
            tokio::time::sleep_until(deadline.into()).await;
            // Retired and freed under one lock: an answer from the server
            // in between would find the id neither pending nor retired, and
            // the id would stay retired for good.
            let given_up = {
                let mut st = lock(&me.shared.state);
                if st.pending.get(&id).is_none_or(|p| p.seq != seq) {
                    return;
                }
                if !st.retired.retire(&id) {
                    tracing::warn!(%id, "too many ids given up on: the call stays pending until the server answers");
                    return;
                }
                finish_locked(&mut st, &id)
            };
            if let Some(p) = given_up {
                tracing::warn!(%id, "cancelled call past its deadline: its slot is freed");
                answer_with(p, GateCode::CallTimeout, "cancelled, and no answer by the deadline");
            }
        });
    }

    /// The answer to request `id` when the child's answer to it could not
    /// be screened ([`off_session`]): by its deadline (`timeout` after it
    /// arrived: `tool.call_timeout`), or at all (`tool.bad_response`,
    /// fail closed).
    fn not_screened(
        &self,
        id: Id,
        method: &str,
        why: NotScreened,
        timeout: Option<Duration>,
    ) -> Response {
        tracing::warn!(%id, method, ?why, "the server's answer was not screened");
        let (code, message) = match (why, timeout) {
            (NotScreened::Late, Some(t)) => (
                GateCode::CallTimeout,
                format!(
                    "the server's answer was not screened within {} s",
                    t.as_secs_f64()
                ),
            ),
            _ => (
                GateCode::BadResponse,
                "the server's answer could not be screened".to_owned(),
            ),
        };
        Response::error(Some(id), gate_error(code, message))
    }

    fn finish(&self, id: &Id) -> Option<Pending> {
        finish_locked(&mut lock(&self.shared.state), id)
    }

    /// A page of `listing` that gets no answer from the child (not sent,
    /// an error, a timeout) can be asked for again: the cursor it named
    /// goes on with the listing.
    fn page_asked(&self, asked: Handled, listing: ListingId) -> Handled {
        let me = self.clone();
        let failed = move || lock(&me.shared.state).view.page_failed(listing);
        match asked {
            Handled::Reply(r) => {
                failed();
                Handled::Reply(r)
            }
            Handled::Call(f) => Handled::Call(Box::pin(async move {
                let r = f.await;
                failed();
                r
            })),
            Handled::Task(f) => Handled::Task(Box::pin(async move {
                let r = f.await;
                failed();
                r
            })),
        }
    }

    /// Shapes the child's answer to request `id` for the client; a
    /// `tools/list` page is one of `listing`; `subject` is what the request
    /// named ([`state_subject`]).
    fn answer(
        &self,
        id: Id,
        method: &str,
        asked: &KeptName,
        outcome: Result<Value, Value>,
        listing: Option<ListingId>,
        task: bool,
    ) -> Reply {
        match outcome {
            Err(error) => {
                let code = error
                    .get("code")
                    .and_then(Value::as_i64)
                    .unwrap_or(GATE_ERROR);
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let data = error.get("data").cloned();
                let mut shown = json!({"message": message, "data": data});
                if let Err(r) = self.check_result(Some(&id), method, Some(asked), &mut shown) {
                    return Reply::Send(Response::error(
                        Some(id),
                        gate_error(GateCode::ResultPoisoned, r.message()),
                    ));
                }
                let message = shown
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let data = shown.get("data").cloned().filter(|d| !d.is_null());
                Reply::Send(Response::error(
                    Some(id),
                    ErrorObject {
                        code,
                        message,
                        data,
                    },
                ))
            }
            Ok(mut result) => {
                // Every MCP result is an object (an empty one at least): a
                // number, string, array or null is no answer a client can use.
                if !result.is_object() {
                    tracing::warn!(%id, method, "the server's result is not an object");
                    self.audit_bad_answer(&id, Some(method), Some(asked));
                    return Reply::Send(Response::error(
                        Some(id),
                        gate_error(
                            GateCode::BadResponse,
                            "the server's result is not a JSON object".into(),
                        ),
                    ));
                }
                // Listings are decided on what the server sent, then
                // screened: a tool's pins are over those bytes, and a tool,
                // prompt or resource whose name or URI carries hidden
                // characters is hidden in every `--poison` mode (stripped,
                // it would be listed as another). Everything else is
                // screened first, and decided on the text the client sees.
                let a_list = matches!(
                    method,
                    "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list"
                );
                // A page that lists nothing a client can read answers
                // nothing (and completes no listing).
                if let Err(why) = super::listing::listing_entries(method, &result) {
                    tracing::warn!(%id, method, %why, "a listing page refused");
                    self.audit_bad_answer(&id, Some(method), Some(asked));
                    if let Some(listing) = listing {
                        lock(&self.shared.state).view.page_failed(listing);
                    }
                    return Reply::Send(Response::error(
                        Some(id),
                        gate_error(GateCode::BadResponse, format!("the server's answer: {why}")),
                    ));
                }
                if !a_list {
                    if let Err(r) = self.check_result(Some(&id), method, Some(asked), &mut result) {
                        return Reply::Send(self.denial_for(method, id, &r, task));
                    }
                }
                match method {
                    "initialize" => {
                        let rev = result
                            .get("protocolVersion")
                            .and_then(Value::as_str)
                            .and_then(Revision::parse);
                        if let Some(rev) = rev {
                            lock(&self.shared.era).enter_handshake(rev);
                        }
                        self.pin_instructions(&id, method, &mut result);
                    }
                    "server/discover" => self.pin_instructions(&id, method, &mut result),
                    "tools/list" => {
                        if let Some(listing) = listing {
                            self.filter_list(Some(&id), &mut result, listing, false);
                        }
                    }
                    "prompts/list" | "resources/list" | "resources/templates/list" => {
                        self.filter_entries(Some(&id), method, &mut result, false);
                    }
                    _ => {}
                }
                if a_list {
                    if let Err(r) = self.check_result(Some(&id), method, Some(asked), &mut result) {
                        return Reply::Send(self.denial_for(method, id, &r, task));
                    }
                }
                self.drop_refused_links(&id, method, &mut result);
                self.remember_state(method, asked.subject(), &result);
                Reply::Send(Response::result(id, Payload::Value(result)))
            }
        }
    }

    /// Filters a page of `prompts/list`, `resources/list` or
    /// `resources/templates/list` (`method`), the client's or the gateway's
    /// own (`own`): the policy's entries, then each entry whose definition
    /// `--poison` hides, taken out alone (the rest of the page is shown)
    /// and remembered, so no method reaches it. Each is audited with the
    /// `id` of the page's answer (none for the gateway's own).
    fn filter_entries(&self, id: Option<&Id>, method: &str, result: &mut Value, own: bool) {
        // Names too long to record are taken out first, and not
        // remembered (attack s72-A, F2): refused by name anyway.
        let overlong = Gatekeeper::drop_overlong_names(method, result);
        let mut hidden = self.shared.keeper.filter_list_page(method, result);
        let poison = self.shared.keeper.poison;
        let mut st = lock(&self.shared.state);
        // What the policy hid stays unreachable by every method, as what
        // `--poison` hid does (a template hidden for a variable in its
        // host: every URI it expands to), and is not forgotten for an entry
        // of the same key shown clean.
        let by_policy: Vec<(&str, &Refusal)> = hidden
            .iter()
            .filter_map(|(name, r)| Some((name.as_deref()?, r)))
            .collect();
        let entries = if own {
            st.hidden
                .filter_own_page(method, result, poison, &by_policy)
        } else {
            st.hidden.filter_page(method, result, poison, &by_policy)
        };
        hidden.extend(entries.into_iter().map(|(name, r)| (Some(name), r)));
        hidden.extend(overlong.into_iter().map(|(name, r)| (Some(name), r)));
        for (name, r) in hidden {
            // Audited as a tool hidden from `tools/list` is, by the entry
            // it hid (attack s58, K12-1; s59, K12-B): a prompt's name, a
            // URI or template without what may be a secret.
            let subject = name.map(|n| match method {
                "prompts/list" => audit_name(&n),
                _ => audit_uri(&n),
            });
            tracing::warn!(
                method,
                entry = subject.as_deref(),
                code = r.code(),
                rule = r.rule(),
                reason = r.message(),
                "hidden from a list"
            );
            let rec = Record {
                id: id.map(Id::to_value),
                method: Some(method),
                tool: subject.as_deref(),
                code: Some(r.code()),
                rule: Some(r.rule()),
                ..Record::of("server->client", "refused")
            };
            self.audit(&mut st, rec);
        }
    }

    /// The links a client fetches or opens by itself, with no request of
    /// the model's (MCP 2025-11-25: each `icons[].src` of a tool, prompt,
    /// resource, template, content item or `serverInfo`, which hosts fetch
    /// to draw a list; `serverInfo.websiteUrl`, shown as a link), anywhere
    /// in `result`: each gets the URL check of the client's arguments
    /// ([`super::urls::vet_url`] with the operator's `[net]` entries); an
    /// icon refused is taken out of its `icons`, a `websiteUrl` refused
    /// is removed, each logged and audited (`changed`). An icon inline in a
    /// `data:` URL fetches nothing and stays (its text was screened). The
    /// walk is bounded by the result's nesting (the core's depth bound).
    /// Under `--resolve` the names of the links left are looked up next
    /// ([`resolve_links`](Self::resolve_links)).
    fn drop_refused_links(&self, id: &Id, method: &str, result: &mut Value) {
        self.drop_refused_links_in(Some(id), method, result);
    }

    /// [`drop_refused_links`](Self::drop_refused_links) in any message's
    /// `value`: a result, or the `params` of a server's request (`id`) or
    /// notification (no id).
    fn drop_refused_links_in(&self, id: Option<&Id>, method: &str, value: &mut Value) {
        let net = &self.shared.keeper.policy.net;
        let dropped = retain_links(value, |src| super::urls::vet_url(net, src, LINK_RULE).err());
        self.audit_dropped_links(id, method, &dropped);
    }

    /// Under `--resolve`, the host names of the links
    /// [`drop_refused_links`](Self::drop_refused_links) left in a result
    /// are looked up as the names of the client's arguments are
    /// ([`super::resolve::Resolver::vet_sets`], one lookup per host, by
    /// [`super::resolve::RESOLVE_DEADLINE`]): a link whose name resolves to
    /// a refused address, resolves to none, or is not looked up in time is
    /// removed the same way. Past [`super::MAX_RESOLVED_NAMES`] names in
    /// one answer, the links naming the others are removed (fail closed).
    async fn resolve_links(&self, method: &str, mut reply: Reply) -> Reply {
        if !self.shared.keeper.policy.resolve {
            return reply;
        }
        let Reply::Send(Response {
            id: Some(id),
            body: Body::Result(Payload::Value(result)),
        }) = &mut reply
        else {
            return reply;
        };
        let net = &self.shared.keeper.policy.net;
        let mut links: Vec<String> = Vec::new();
        retain_links(result, |src| {
            if !links.iter().any(|l| l == src) {
                links.push(src.to_owned());
            }
            None
        });
        if links.is_empty() {
            return reply;
        }
        // Each link's names, under the bound of one message's names; a
        // link past it is refused before any lookup.
        let mut all = Vec::new();
        let mut sets = Vec::with_capacity(links.len());
        let mut over: Vec<Option<Refusal>> = Vec::with_capacity(links.len());
        for link in &links {
            let names = super::urls::vet_url(net, link, LINK_RULE).unwrap_or_default();
            let fits = names
                .iter()
                .try_for_each(|n| self.shared.keeper.note(&mut all, n.clone()));
            over.push(fits.err());
            sets.push(names);
        }
        let by = tokio::time::Instant::now() + super::resolve::RESOLVE_DEADLINE;
        let looked = self.shared.resolver.vet_sets(net, &sets, by).await;
        let verdicts: Vec<(&str, Refusal)> = links
            .iter()
            .zip(over.into_iter().zip(looked))
            .filter_map(|(link, (over, looked))| Some((link.as_str(), over.or(looked)?)))
            .collect();
        if verdicts.is_empty() {
            return reply;
        }
        let dropped = retain_links(result, |src| {
            verdicts
                .iter()
                .find(|(link, _)| *link == src)
                .map(|(_, r)| r.clone())
        });
        let id = id.clone();
        self.audit_dropped_links(Some(&id), method, &dropped);
        reply
    }

    /// The values each listed resource template (`hidden`'s
    /// [`HiddenEntries::templates`]) takes out of each URI of the server's
    /// own scheme a request names ([`Named::of`]: `resources/read`,
    /// `subscribe`, `unsubscribe`, `subscriptions/listen`), by
    /// [`template_values`], one map per template that matches.
    ///
    /// # Errors
    /// `policy.arguments_too_complex` for such a URI once more templates
    /// were listed than remembered (fail closed).
    fn template_reads(
        &self,
        hidden: &HiddenEntries,
        method: &str,
        params: Option<&Value>,
    ) -> Result<Vec<serde_json::Map<String, Value>>, Refusal> {
        // A completion names a template, not a URI read: its values are
        // the completion decision's.
        let uris: Vec<&str> = match Named::of(method, params) {
            Named::Resource(uri) if method != "completion/complete" => vec![uri],
            Named::Subscriptions(uris) => uris.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let (templates, overflowed) = hidden.templates();
        let mut reads = Vec::new();
        for uri in uris
            .into_iter()
            .filter(|u| self.shared.keeper.is_own_resource(u))
        {
            if overflowed {
                return Err(Refusal::new(
                    GateCode::ArgumentsTooComplex,
                    format!("more than {MAX_HIDDEN_ENTRIES} resource templates were listed: the values one of them would take out of this URI cannot be checked"),
                    "builtin scan bound",
                ));
            }
            reads.extend(templates.iter().flat_map(|t| template_values(t, uri)));
        }
        Ok(reads)
    }

    /// Logs and audits (`changed`) each link removed from the answer to
    /// request `id`.
    fn audit_dropped_links(&self, id: Option<&Id>, method: &str, dropped: &[Refusal]) {
        if dropped.is_empty() {
            return;
        }
        let mut st = lock(&self.shared.state);
        for r in dropped {
            tracing::warn!(
                id = id.map(ToString::to_string),
                method,
                code = r.code(),
                reason = r.message(),
                "a link the client would open was removed from an answer"
            );
            let rec = Record {
                id: id.map(Id::to_value),
                method: Some(method),
                code: Some(r.code()),
                rule: Some(r.rule()),
                ..Record::of("server->client", "changed")
            };
            let _ = self.audit(&mut st, rec);
        }
    }

    /// Remembers the `requestState` of an `input_required` result passed
    /// to the client, in a session whose results carry `resultType`
    /// (2026-07-28): the client's retry may echo it unchecked
    /// ([`IssuedStates`]).
    fn remember_state(&self, method: &str, subject: &str, result: &Value) {
        let Some(state) = issued_state(result) else {
            return;
        };
        if !lock(&self.shared.era).has_result_type() {
            tracing::debug!(
                method,
                "a requestState outside a 2026-07-28 session; not remembered"
            );
            return;
        }
        if !lock(&self.shared.state)
            .states
            .remember(method, subject, state)
        {
            tracing::debug!(
                method,
                "a requestState not remembered (its method, or its size)"
            );
        }
    }

    /// A refusal in the form the method's answer takes: `tools/call` by
    /// `--deny-as` ([`GateService::denial`]; `task`: the call is
    /// task-augmented), every other method the -32001 error with `data.code`.
    fn denial_for(&self, method: &str, id: Id, refusal: &Refusal, task: bool) -> Response {
        if method == "tools/call" {
            return self.denial(id, refusal, task);
        }
        Response::error(
            Some(id),
            ErrorObject {
                code: AUTHORIZATION_ERROR,
                message: AUTHORIZATION_MESSAGE.into(),
                data: Some(json!({"code": refusal.code(), "reason": refusal.message()})),
            },
        )
    }

    /// The server's `instructions` are pinned with its tools: learned while
    /// learning, and under an enforced pin a changed text is removed
    /// (hidden, logged) rather than shown.
    fn pin_instructions(&self, id: &Id, method: &str, result: &mut Value) {
        let hash = definition_hash(result.get("instructions").unwrap_or(&Value::Null));
        let mut st = lock(&self.shared.state);
        let st = &mut *st;
        let learning = matches!(self.shared.pin, PinMode::Learn(_)) && !st.learning_done;
        // While learning, the first answer's are what gets pinned (attack
        // s63, F2: a later answer of the same session changing them is a
        // change, as it is once pinned).
        let pinned = if learning {
            match st.learned.instructions() {
                None => {
                    st.learned.set_instructions(hash);
                    return;
                }
                Some(first) => first.to_owned(),
            }
        } else {
            let Some(pins) = st.pins.as_ref() else {
                return;
            };
            // A pin file without instructions pinned their absence.
            pins.instructions()
                .map_or_else(|| definition_hash(&Value::Null), str::to_owned)
        };
        if pinned != hash {
            tracing::warn!(
                method,
                "the server's instructions changed since they were pinned: hidden"
            );
            if let Some(m) = result.as_object_mut() {
                m.remove("instructions");
            }
            let rec = Record {
                id: Some(id.to_value()),
                method: Some(method),
                code: Some(GateCode::DefinitionChanged.code()),
                rule: Some("--pin"),
                ..Record::of("server->client", "changed")
            };
            let _ = self.audit(st, rec);
        }
    }

    /// Filters one page of `listing` (the client's, or the gateway's
    /// `own`) and ends it: the tools of the first complete listing are
    /// what trust on first use learns, each as a page of the client's
    /// first showed it in the session when one did (attack s62, F2: a
    /// server can tell the gateway's own listing apart and define a tool
    /// otherwise there; s63, F1: or change it in a later listing), so the
    /// other definition is refused as changed. A tool whose name folds as
    /// a shown one's but is not it is not learned (s63, F1b): the client
    /// never saw it, and a server folding names may run it for the shown one.
    ///
    /// Each tool hidden or changed is audited with the `id` of the page's
    /// answer (none for the gateway's own).
    fn filter_list(&self, id: Option<&Id>, result: &mut Value, listing: ListingId, own: bool) {
        let keeper = &self.shared.keeper;
        let mut st = lock(&self.shared.state);
        let st = &mut *st;
        let learning = matches!(self.shared.pin, PinMode::Learn(_)) && !st.learning_done;
        // Trust on first use: what a complete listing shows is what gets
        // pinned; until then its pages are decided on everything else.
        let pins = if learning { None } else { st.pins.as_ref() };
        // Names too long to record are taken out first (attack s72-A, F2).
        let mut events: Vec<ListEvent> = Gatekeeper::drop_overlong_names("tools/list", result)
            .into_iter()
            .map(|(tool, refusal)| ListEvent::Hidden { tool, refusal })
            .collect();
        events.extend(keeper.filter_tools_page(listing, result, &mut st.view, pins));
        for e in &events {
            let (tool, decision, code, rule) = match e {
                ListEvent::Hidden { tool, refusal } => {
                    tracing::warn!(
                        tool = audit_name(tool),
                        code = refusal.code(),
                        "tool hidden from tools/list"
                    );
                    (
                        tool.as_str(),
                        "refused",
                        refusal.code(),
                        refusal.rule().to_owned(),
                    )
                }
                ListEvent::Stripped { tool, findings } => {
                    tracing::warn!(tool = audit_name(tool), found = %findings.summary(), "stripped from a tool definition");
                    (
                        tool.as_str(),
                        "changed",
                        GateCode::Poisoned.code(),
                        "--poison strip".to_owned(),
                    )
                }
                ListEvent::Flagged { tool, findings } => {
                    tracing::warn!(tool = audit_name(tool), found = %findings.summary(), "tool definition carries hidden characters");
                    continue;
                }
            };
            let rec = Record {
                time: rfc3339_now(),
                direction: "server->client",
                id: id.map(Id::to_value),
                method: Some("tools/list"),
                tool: Some(tool),
                decision,
                code: Some(code),
                rule: Some(&rule),
                arguments: None,
            };
            self.audit(st, rec);
        }
        if learning && !own {
            remember_shown(&mut st.shown_while_learning, &st.view, result);
        }
        let Some(complete) = st.view.end_page(listing, result) else {
            return;
        };
        st.listed = true;
        st.tools_changed = false;
        if learning {
            let shown = std::mem::take(&mut st.shown_while_learning);
            // Each fold's first name shown: a later name folding as it is
            // a twin the client may take for it (attack s64, F1).
            let mut shown_folds: HashMap<String, (&str, usize)> = HashMap::new();
            for (name, (_, order)) in &shown {
                let first = shown_folds
                    .entry(super::policy::fold_name(name))
                    .or_insert((name.as_str(), *order));
                if *order < first.1 {
                    *first = (name.as_str(), *order);
                }
            }
            let mut changed = Vec::new();
            if let Some(pins) = st.pins.as_mut() {
                for (name, hash) in complete {
                    let twin = shown_folds
                        .get(&super::policy::fold_name(&name))
                        .is_some_and(|(first, _)| *first != name);
                    if twin {
                        changed.push((
                            name,
                            "its name folds as that of a tool the client was shown first: not learned",
                        ));
                        continue;
                    }
                    let hash = match shown.get(&name) {
                        Some((first, _)) if *first != hash => {
                            changed.push((name.clone(), "pinned as the client was first shown it"));
                            first.clone()
                        }
                        _ => hash,
                    };
                    pins.insert(name.clone(), hash.clone());
                    st.learned.insert(name, hash);
                }
            }
            for (tool, what) in &changed {
                tracing::warn!(
                    tool = audit_name(tool),
                    what,
                    "a tool's definition differs from what the client was shown while learning"
                );
                let rec = Record {
                    method: Some("tools/list"),
                    tool: Some(tool),
                    code: Some(GateCode::DefinitionChanged.code()),
                    rule: Some("--pin"),
                    ..Record::of("server->client", "refused")
                };
                self.audit(st, rec);
            }
            self.end_learning(st);
        }
    }

    /// Learning ends with the first complete listing, saved or not: what
    /// was learned is enforced from now on.
    fn end_learning(&self, st: &mut State) {
        st.learning_done = true;
        if st.learned.instructions().is_none() {
            // A session that saw no instructions (a stateless one that
            // never asked) pins their absence: any text later is a change.
            st.learned.set_instructions(definition_hash(&Value::Null));
        }
        // Enforced from now on in this session too, as the file will be.
        if let (Some(pins), Some(hash)) = (st.pins.as_mut(), st.learned.instructions()) {
            pins.set_instructions(hash.to_owned());
        }
        if let PinMode::Learn(path) = &self.shared.pin {
            match st.learned.save(path) {
                Ok(()) => {
                    tracing::info!(tools = st.learned.len(), path = %path.display(), "tool definitions pinned")
                }
                Err(e) => {
                    // Fail closed: the next session would learn anew and
                    // take whatever the server then says.
                    st.pin_failed = true;
                    tracing::error!(error = %e, "cannot write the pin file: every call is refused");
                }
            }
        }
    }

    /// A `prompts/get`'s place under the `prompt = GLOB` rules of
    /// `[[limits]]` naming its prompt (`None` for any other request, or
    /// when no rule names it).
    ///
    /// # Errors
    /// `policy.concurrency_limited` or `policy.rate_limited`.
    fn acquire_prompt(&self, request: &Request) -> Result<Option<Slot>, Refusal> {
        if request.method != "prompts/get" {
            return Ok(None);
        }
        let name = request
            .params_object()
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let rules = &self.shared.keeper.policy.limits;
        let mut st = lock(&self.shared.state);
        let state = continued_state(request, &st.states);
        let now = Instant::now();
        let slot = st
            .limiter
            .acquire(rules, Subject::Prompt, name, now, state.is_some())?;
        if let Some(s) = state {
            st.states.spend(
                &request.method,
                state_subject(&request.method, request.params.as_ref()),
                s,
            );
        }
        Ok(slot)
    }

    /// Under `--audit-all`, records a mediated request other than
    /// `tools/call` that is about to reach the server; once the log cannot
    /// be written, every such request is refused (fail closed).
    fn audit_operation(&self, request: &Request) -> Result<(), Refusal> {
        if super::decide::PASSED_METHODS.contains(&request.method.as_str()) {
            return Ok(());
        }
        let unavailable = || {
            Refusal::new(
                GateCode::AuditUnavailable,
                "the audit log cannot be written",
                "--audit",
            )
        };
        let mut st = lock(&self.shared.state);
        if st.audit_failed {
            return Err(unavailable());
        }
        if !self.shared.audit_all {
            return Ok(());
        }
        let target = Named::of(&request.method, request.params.as_ref()).audited();
        let rec = Record {
            id: Some(request.id.to_value()),
            method: Some(&request.method),
            tool: target.as_deref(),
            arguments: operation_arguments(request),
            ..Record::of("client->server", "allowed")
        };
        if self.audit(&mut st, rec) {
            Ok(())
        } else {
            Err(unavailable())
        }
    }

    /// Screens a text the child sends toward the model or the terminal (a
    /// result or an error of any method, a server request, a
    /// notification), all of it: stripped, kept, or refused by `--poison`.
    fn check_result(
        &self,
        id: Option<&Id>,
        method: &str,
        asked: Option<&KeptName>,
        result: &mut Value,
    ) -> Result<(), Refusal> {
        self.check_result_then(id, method, asked, result, |_| Ok(()))
    }

    /// [`check_result`](Self::check_result), then `then` on the text as
    /// screened, before its audit line is written: a text `then` refuses is
    /// audited `refused`, never `changed` (attack s70-B, N3).
    fn check_result_then(
        &self,
        id: Option<&Id>,
        method: &str,
        asked: Option<&KeptName>,
        result: &mut Value,
        then: impl FnOnce(&Value) -> Result<(), Refusal>,
    ) -> Result<(), Refusal> {
        let mode = self.shared.keeper.poison;
        let found = clean_value(result, mode == PoisonMode::Strip);
        if !found.is_clean() {
            tracing::warn!(id = ?id, method, found = %found.summary(), "the server sent hidden characters");
        }
        // Stripping would rename a member onto one the gateway may have
        // decided on (a pinned text, a listed name): refused instead.
        let refused_by = match mode {
            _ if found.is_clean() => None,
            PoisonMode::Strip if found.collisions > 0 => Some("--poison strip"),
            PoisonMode::Refuse => Some("--poison refuse"),
            _ => None,
        };
        let refusal = match refused_by {
            Some(rule) => Some(Refusal::new(
                GateCode::ResultPoisoned,
                format!("the result carries {}", found.summary()),
                rule,
            )),
            None => then(result).err(),
        };
        let changed = mode == PoisonMode::Strip && !found.is_clean();
        if refusal.is_none() && !changed {
            return Ok(());
        }
        // Named on the audit line (attack s69-B, F3), made only for it.
        let tool = asked.and_then(KeptName::audited);
        let mut st = lock(&self.shared.state);
        let Some(refusal) = refusal else {
            let rec = Record {
                id: id.map(Id::to_value),
                method: Some(method),
                tool: tool.as_deref(),
                code: Some(GateCode::ResultPoisoned.code()),
                rule: Some("--poison strip"),
                ..Record::of("server->client", "changed")
            };
            self.audit(&mut st, rec);
            return Ok(());
        };
        // Audited as refused, as a stripped one is as changed (attack
        // s68-B, F5: a refused answer left no line).
        let rec = Record {
            id: id.map(Id::to_value),
            method: Some(method),
            tool: tool.as_deref(),
            code: Some(refusal.code()),
            rule: Some(refusal.rule()),
            ..Record::of("server->client", "refused")
        };
        self.audit(&mut st, rec);
        Err(refusal)
    }

    /// What a line from the child is charged on
    /// [`from_server`](Self::from_server): its length and what its values
    /// cost once parsed ([`VALUE_BYTES`] each, at most
    /// [`MAX_SERVER_LINE_VALUES`] counted), so the parsed answers held
    /// stay within the budget, not only their text.
    pub fn weigh(line: &[u8]) -> usize {
        let values = values_in(line, MAX_SERVER_LINE_VALUES);
        line.len()
            .saturating_add(1)
            .saturating_add(values.saturating_mul(VALUE_BYTES))
    }

    /// The budget the child's lines are charged on before
    /// [`child_line`](Self::child_line) ([`MAX_FROM_SERVER_BYTES`]).
    pub fn from_server(&self) -> &ByteBudget {
        &self.shared.from_server
    }

    /// One line the child wrote (without its newline), with its `charge`
    /// on [`from_server`](Self::from_server): held until what the line
    /// carries is queued further on.
    pub fn child_line(&self, bytes: &[u8], runtime: &tokio::runtime::Handle, charge: Charge) {
        let (seq, charge) = self.shared.order.open(charge);
        if values_in(bytes, MAX_SERVER_LINE_VALUES) > MAX_SERVER_LINE_VALUES {
            tracing::warn!(
                "the child wrote a line of more than {MAX_SERVER_LINE_VALUES} values; dropped"
            );
            // A request of the server's is answered too, as the core
            // answers a line it will not read.
            let ids = crate::engine::id_candidates(bytes);
            let request = crate::engine::names_string_member(bytes, "method");
            let error = json!({"code": crate::rpc::PARSE_ERROR,
                "message": format!("the line holds more than {MAX_SERVER_LINE_VALUES} JSON values"),
                "data": {"kind": "too_many_values", "limit": MAX_SERVER_LINE_VALUES}});
            self.fail_ids(
                ids,
                request,
                "the server's answer holds too many JSON values",
                &|id| json!({"jsonrpc": "2.0", "id": id.to_value(), "error": error}),
            );
            return;
        }
        let value = match parse_strict(bytes, &self.shared.limits) {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!(error = %e, "the child wrote a line that is not strict JSON; dropped");
                // The request it answers is answered, not left pending;
                // the request it is, answered to the server.
                self.fail_line(
                    bytes,
                    "the server's answer failed the strict JSON layer",
                    &crate::rpc::RpcError::Json(e),
                );
                return;
            }
        };
        let Value::Array(items) = value else {
            self.child_message(bytes, value, runtime, (seq, charge));
            return;
        };
        self.child_batch(items, runtime, charge);
    }

    /// A batch (JSON-RPC 2.0 §6, which 2025-03-26 lets a server send): each
    /// element is taken as a line of its own would be (screened, checked,
    /// answered to its pending request), sharing the line's `charge`. An
    /// element that is itself an array, and every element of a batch over
    /// [`crate::rpc::MAX_BATCH_LEN`], answer the ids they name with
    /// `tool.bad_response`.
    fn child_batch(&self, items: Vec<Value>, runtime: &tokio::runtime::Handle, charge: Charge) {
        // The elements take their places in the order: the line's own is
        // closed now, or a notification first in the batch would wait for
        // the answers after it (message order, kinds 9 + 10).
        let line = charge;
        let charge = line.without_receipt();
        drop(line);
        if items.len() > crate::rpc::MAX_BATCH_LEN {
            tracing::warn!(
                len = items.len(),
                "the child wrote a batch of more than {} elements; dropped",
                crate::rpc::MAX_BATCH_LEN
            );
            // Each request in it is answered to the server with the
            // core's error for a client's batch that long (-32600).
            let fault = crate::rpc::RpcError::Envelope(crate::rpc::EnvelopeError::BatchTooLong {
                len: items.len(),
                limit: crate::rpc::MAX_BATCH_LEN,
            });
            // Bounded by the line's values (MAX_SERVER_LINE_VALUES).
            for item in &items {
                let Some(id) = item.get("id").and_then(valid_id) else {
                    continue;
                };
                let request = item.get("method").is_some_and(Value::is_string);
                self.fail_ids(
                    vec![id],
                    request,
                    "the server's batch was too long",
                    &|id| crate::rpc::protocol_error(&fault, Some(id)),
                );
            }
            return;
        }
        if items.is_empty() {
            tracing::warn!("the child wrote an empty batch; dropped");
        }
        for item in items {
            let Ok(element) = serde_json::to_vec(&item) else {
                continue;
            };
            if item.is_array() {
                tracing::warn!("the child wrote a batch inside a batch; dropped");
                self.fail_recovered(
                    &element,
                    "the server's answer was not a valid JSON-RPC response",
                );
                continue;
            }
            // Each element its own place in the order, as a line of its
            // own (attack s70-A, N1: a notification after a costly answer
            // in the same batch waits for it).
            let element_line = self.shared.order.open(charge.clone());
            self.child_message(&element, item, runtime, element_line);
        }
    }

    /// One message (not a batch) the child wrote: `bytes` is its text,
    /// `value` what the strict layer made of it, `line` its line's
    /// sequence number and charge ([`LineOrder::open`]).
    fn child_message(
        &self,
        bytes: &[u8],
        value: Value,
        runtime: &tokio::runtime::Handle,
        line: (u64, Charge),
    ) {
        let (seq, charge) = line;
        if value.get("method").is_some()
            && (value.get("result").is_some() || value.get("error").is_some())
        {
            // Both a request and a response: forwarded, the client would
            // read it as the answer to its own request of that id.
            tracing::warn!(
                "the child wrote a message with both a method and a result or error; dropped"
            );
            self.fail_recovered(
                bytes,
                "the server's message was both a request and a response",
            );
            return;
        }
        if value.get("method").is_some() {
            match crate::engine::wire::parse_element(bytes, &self.shared.limits) {
                Ok(_) => {
                    // Screened first, then decided on what the client would
                    // see (a method or id stripped into shape is that method
                    // or id); a member name stripped into another is refused.
                    let raw_id = value.get("id").and_then(valid_id);
                    let raw_method = value
                        .get("method")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned();
                    let mut screened = value.clone();
                    let checked = self.check_result_then(
                        raw_id.as_ref(),
                        &raw_method,
                        None,
                        &mut screened,
                        |screened| same_members(&value, screened),
                    );
                    if let Err(r) = checked {
                        tracing::warn!(method = %raw_method, code = r.code(), rule = r.rule(), "a server message was dropped");
                        if let Some(sid) = raw_id {
                            let answer = json!({"jsonrpc": "2.0", "id": sid.to_value(), "error": {
                                "code": AUTHORIZATION_ERROR, "message": AUTHORIZATION_MESSAGE,
                                "data": {"code": r.code(), "reason": r.message()}}});
                            let _ = self.send_own(answer.to_string().as_bytes());
                        }
                        return;
                    }
                    let method = screened
                        .get("method")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned();
                    let server_id = screened.get("id").and_then(valid_id);
                    // The icons and website links a client draws or opens
                    // from a server's own request or notification (a
                    // sampling request shown for approval, its offered
                    // tools, a log entry's data), as from a result
                    // (attack s66, A-F4).
                    if let Some(params) = screened.get_mut("params") {
                        self.drop_refused_links_in(server_id.as_ref(), &method, params);
                    }
                    if let Err(r) = self.vet_elicited_url(&method, screened.get("params")) {
                        self.refuse_server_request(server_id.as_ref(), &method, &r);
                        return;
                    }
                    if let (true, Some(sid), Some(roots)) = (
                        method == "roots/list",
                        &server_id,
                        &self.shared.keeper.roots,
                    ) {
                        // With --root, the server's roots are the
                        // gateway's: a client's wider roots never reach it.
                        let result = self.own_result(json!({"roots": roots_value(roots)}));
                        let answer =
                            json!({"jsonrpc": "2.0", "id": sid.to_value(), "result": result});
                        let _ = self.send_own(answer.to_string().as_bytes());
                        tracing::info!("roots/list answered with --root");
                        return;
                    }
                    if server_id.is_none() {
                        if let Err(why) = self.server_notification(&method, screened.get("params"))
                        {
                            tracing::warn!(method = %method, why, "a server notification was dropped");
                            return;
                        }
                    }
                    let raw = if screened == value {
                        String::from_utf8_lossy(bytes).into_owned()
                    } else {
                        screened.to_string()
                    };
                    let Ok(raw) = RawValue::from_string(raw) else {
                        return;
                    };
                    let progress = method == "notifications/progress";
                    if progress {
                        let key = screened
                            .get("params")
                            .and_then(|p| p.get("progressToken"))
                            .and_then(progress_token_key);
                        // Checked above (`server_notification`), and still
                        // bound: never after its request's answer, nor for
                        // a later request reusing the token (attack s70-A,
                        // N4).
                        let bound = key.is_some_and(|key| {
                            lock(&self.shared.state).progress.contains_key(&key)
                        });
                        if !bound {
                            return;
                        }
                    }
                    if let Some(sid) = &server_id {
                        // Only an answer to a request the client was asked
                        // may reach the server (no forged answers).
                        let mut st = lock(&self.shared.state);
                        if st.server_asks.len() >= MAX_PENDING_REQUESTS {
                            drop(st);
                            let busy = server_busy(
                                "too many server requests wait for the client".into(),
                                serde_json::Map::new(),
                            );
                            let answer = json!({"jsonrpc": "2.0", "id": sid.to_value(), "error": {
                                "code": busy.code, "message": busy.message, "data": busy.data}});
                            let _ = self.send_own(answer.to_string().as_bytes());
                            return;
                        }
                        st.server_asks.insert(sid.clone(), Asked::of(&method));
                    }
                    let peer = lock(&self.shared.peer).clone();
                    if let Some(peer) = peer {
                        let message = ServerMessage {
                            raw: Arc::from(raw),
                        };
                        // Held while a line before it is on its way
                        // (message order); the reader goes on. A progress
                        // notification is about its own call alone, whose
                        // answer comes after it: it goes now (attack
                        // s71-A, F3: held behind a slow answer, it was
                        // overtaken by its call's answer, then dropped).
                        let held = Held {
                            seq,
                            message,
                            charge,
                        };
                        let now = if progress {
                            Some(held)
                        } else {
                            self.shared.order.pass(held)
                        };
                        if let Some(now) = now {
                            let _ = runtime.block_on(peer.send(Outbound::Raw(now.message.raw)));
                        }
                    }
                }
                Err(answer) => {
                    tracing::warn!("the child wrote a malformed request or notification; dropped");
                    // Answered as the core answers a client's line of that
                    // shape, when it names the id to answer (a notification
                    // and a line without a readable id get nothing).
                    let id = answer.as_ref().and_then(|a| a.get("id")).and_then(valid_id);
                    if let (Some(answer), Some(id)) = (answer, id) {
                        self.answer_server(&id, &answer);
                    }
                }
            }
            return;
        }
        let id = value.get("id").and_then(valid_id);
        let (true, Some(id)) = (crate::engine::wire::is_valid_response(&value), id) else {
            tracing::warn!("the child wrote a malformed response; dropped");
            self.fail_recovered(
                bytes,
                "the server's answer was not a valid JSON-RPC response",
            );
            return;
        };
        // Moved out, not copied: the answer is held once.
        let mut message = match value {
            Value::Object(m) => m,
            _ => serde_json::Map::new(),
        };
        let outcome = match message.remove("error") {
            Some(e) => Err(e),
            None => Ok(message.remove("result").unwrap_or(Value::Null)),
        };
        match self.finish(&id) {
            Some(p) => {
                let _ = p.tx.send((outcome, charge));
            }
            None if lock(&self.shared.state).retired.answered(&id) => {
                tracing::warn!(%id, "the child answered a request given up on; dropped, its id free again");
            }
            None => tracing::warn!(%id, "the child answered an id nothing waits for; dropped"),
        }
    }

    /// A URL-mode `elicitation/create` (MCP 2025-11-25: `params.mode` is
    /// `"url"`) asks the client to open `params.url`: it gets the URL check
    /// of the client's arguments ([`super::urls::vet_url`] with the
    /// operator's `[net]` entries). So does a `url` under any other `mode`
    /// (`"URL"`, `"url "`, none: a client may read it as URL mode all the
    /// same). A `url` that is no string, or a URL mode without one, is
    /// refused. Any other request passes.
    ///
    /// # Errors
    /// The refusal; `Ok(names)` are the host names `--resolve` vets.
    fn elicited_url(
        &self,
        method: &str,
        params: Option<&Value>,
    ) -> Result<Vec<super::urls::PendingName>, Refusal> {
        let Some(params) = params.filter(|_| method == "elicitation/create") else {
            return Ok(Vec::new());
        };
        let url_mode = params
            .get("mode")
            .and_then(Value::as_str)
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("url"));
        match params.get("url") {
            Some(Value::String(url)) => {
                super::urls::vet_url(&self.shared.keeper.policy.net, url, ELICITED_URL_RULE)
            }
            None if !url_mode => Ok(Vec::new()),
            _ => Err(Refusal::new(
                GateCode::BadResponse,
                "a URL-mode elicitation without a string `url`",
                ELICITED_URL_RULE,
            )),
        }
    }

    /// [`elicited_url`](Self::elicited_url) for a server request, on the
    /// thread reading the child. Its host name is not looked up under
    /// `--resolve`: the reader cannot wait on the resolver (attack s50,
    /// F41: a lookup there ended the session).
    ///
    /// # Errors
    /// The refusal; the request is then answered to the server, never
    /// forwarded.
    fn vet_elicited_url(&self, method: &str, params: Option<&Value>) -> Result<(), Refusal> {
        self.elicited_url(method, params).map(|_| ())
    }

    /// The 2026-07-28 form of the same ask: each `inputRequests` entry of
    /// a result (`{"method": "elicitation/create", "params": {…}}`, in a
    /// map or, as a client iterating it reads one, an array) that is a
    /// URL-mode elicitation gets the same check, on the result as screened
    /// for the client (`reply`); a refused one, or an `inputRequests` of
    /// another shape, refuses the answer (`method`'s refusal form),
    /// audited. Its host names go through the message's bounds
    /// ([`super::MAX_RESOLVED_NAMES`]).
    ///
    /// The 2025-11-25 error form too: an error answer whose
    /// `data.elicitations` lists URL-mode elicitations (code -32042,
    /// `URLElicitationRequiredError`, which the SDKs hand to the host to
    /// open) gets the same check for each entry (`params` of an
    /// `elicitation/create`), under any error code.
    async fn vet_input_requests(
        &self,
        method: &str,
        asked: &KeptName,
        reply: Reply,
        task: bool,
    ) -> Reply {
        let (id, asks) = match &reply {
            Reply::Send(Response {
                id: Some(id),
                body: Body::Result(Payload::Value(result)),
            }) => (
                id,
                input_requests(result)
                    .into_iter()
                    .map(|e| e.cloned())
                    .collect::<Vec<_>>(),
            ),
            Reply::Send(Response {
                id: Some(id),
                body: Body::Error(error),
            }) => (id, error_elicitations(error.data.as_ref())),
            _ => return reply,
        };
        let mut names = Vec::new();
        let mut refused = None;
        for entry in asks {
            let vetted = entry.and_then(|entry| {
                let asked = entry
                    .get("method")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                self.elicited_url(asked, entry.get("params"))?
                    .into_iter()
                    .try_for_each(|name| self.shared.keeper.note(&mut names, name))
            });
            if let Err(r) = vetted {
                refused = Some(r);
                break;
            }
        }
        if refused.is_none() && self.shared.keeper.policy.resolve && !names.is_empty() {
            let by = tokio::time::Instant::now() + super::resolve::RESOLVE_DEADLINE;
            refused = self.resolve_names(names, by).await.err();
        }
        let Some(r) = refused else {
            return reply;
        };
        // The answer is refused: audited as the answer it is (attack
        // s69-B, F3).
        tracing::warn!(%id, method, code = r.code(), rule = r.rule(), "an answer's elicitation was refused");
        self.audit_refused_answer(id, Some(method), Some(asked), r.code(), r.rule());
        Reply::Send(self.denial_for(method, id.clone(), &r, task))
    }

    /// A server request refused (`r`) before it reached the client: logged,
    /// audited, and answered to the server with the -32001 error (when it
    /// has an id and there is room now).
    fn refuse_server_request(&self, id: Option<&Id>, method: &str, r: &Refusal) {
        tracing::warn!(
            method,
            code = r.code(),
            rule = r.rule(),
            "a server request was refused"
        );
        {
            let mut st = lock(&self.shared.state);
            let rec = Record {
                id: id.map(Id::to_value),
                method: Some(method),
                code: Some(r.code()),
                rule: Some(r.rule()),
                ..Record::of("server->client", "refused")
            };
            let _ = self.audit(&mut st, rec);
        }
        if let Some(id) = id {
            self.send_refusal_to_server(id, r);
        }
    }

    /// The -32001 error of `refusal` sent to the server as the answer to
    /// its request `id` (when there is room now).
    fn send_refusal_to_server(&self, id: &Id, refusal: &Refusal) {
        let answer = json!({"jsonrpc": "2.0", "id": id.to_value(), "error": {
            "code": AUTHORIZATION_ERROR, "message": AUTHORIZATION_MESSAGE,
            "data": {"code": refusal.code(), "reason": refusal.message()}}});
        let _ = self.send_own(answer.to_string().as_bytes());
    }

    /// Whether a notification from the server may reach the client: a
    /// `notifications/progress` only for the token of a request waiting on
    /// the server, a `notifications/cancelled` only for a request the server
    /// sent the client and the client has not answered; the rest pass.
    ///
    /// # Errors
    /// Why the notification is dropped.
    fn server_notification(
        &self,
        method: &str,
        params: Option<&Value>,
    ) -> Result<(), &'static str> {
        let mut st = lock(&self.shared.state);
        match method {
            // What changed is listed again before a request names it.
            "notifications/tools/list_changed" => {
                st.listed = false;
                st.tools_changed = true;
                Ok(())
            }
            "notifications/prompts/list_changed" => {
                st.entries_listed.remove("prompts/list");
                Ok(())
            }
            "notifications/resources/list_changed" => {
                st.entries_listed.remove("resources/list");
                st.entries_listed.remove("resources/templates/list");
                Ok(())
            }
            "notifications/progress" => {
                let token = params.and_then(|p| p.get("progressToken"));
                let key = token.and_then(progress_token_key);
                let request = key.and_then(|k| st.progress.get(&k));
                match request.and_then(|id| st.pending.get(id)) {
                    Some(p) if !p.quiet => Ok(()),
                    Some(_) => Err("its request was cancelled or timed out"),
                    None => Err("its progress token is no pending request's"),
                }
            }
            "notifications/cancelled" => {
                let id = params.and_then(|p| p.get("requestId")).and_then(valid_id);
                match id {
                    Some(id) if st.server_asks.contains_key(&id) => Ok(()),
                    _ => Err("it cancels no request the server sent the client"),
                }
            }
            _ => Ok(()),
        }
    }

    /// A line over `--max-response-bytes`, discarded: `prefix` and
    /// `suffix` are its start and end, read for the id of the request it
    /// answers (first or last member, as writers put it).
    ///
    /// When it names a `method` (first or last), it is a request of the
    /// server's: each id it names that no client request waits on is
    /// answered to the server with the core's `too_large` error (-32700,
    /// the payload `len` in bytes), as a client's oversized line is.
    pub fn child_oversized(&self, prefix: &[u8], suffix: &[u8], len: u64) {
        tracing::warn!("the child wrote a line over --max-response-bytes; dropped");
        let mut ids = crate::engine::id_candidates(prefix);
        for id in crate::engine::tail_id_candidates(suffix) {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        let request = crate::engine::names_string_member(prefix, "method")
            || crate::engine::tail_names_string_member(suffix, "method");
        let fault = crate::rpc::RpcError::Json(crate::json::JsonError::TooLarge {
            len: usize::try_from(len).unwrap_or(usize::MAX),
            limit: self.shared.limits.max_payload_bytes,
        });
        self.fail_ids(
            ids,
            request,
            "the server's answer was over --max-response-bytes",
            &|id| crate::rpc::protocol_error(&fault, Some(id)),
        );
    }

    /// Answers with `tool.bad_response` each waiting request that the
    /// unforwardable line `bytes` names ([`crate::engine::id_candidates`]).
    fn fail_recovered(&self, bytes: &[u8], message: &str) {
        for id in crate::engine::id_candidates(bytes) {
            self.fail_pending(&id, GateCode::BadResponse, message);
        }
    }

    /// A line from the child that will not be forwarded, for `fault`:
    /// every id it names ([`crate::engine::id_candidates`]) of a client
    /// request waiting on the server is answered to the client with
    /// `tool.bad_response` (the line is taken as its answer). When the line
    /// names a `method` (read leniently,
    /// [`crate::engine::names_string_member`]) it is a request of the
    /// server's: each other id it names is answered to the server with the
    /// error the core gives a client's line with the same fault
    /// ([`crate::rpc::protocol_error`]), unless the server waits for the
    /// client's answer under that id (an answer there would be read as the
    /// client's). A notification (no id) is answered nothing.
    fn fail_line(&self, bytes: &[u8], message: &str, fault: &crate::rpc::RpcError) {
        let request = crate::engine::names_string_member(bytes, "method");
        self.fail_ids(
            crate::engine::id_candidates(bytes),
            request,
            message,
            &|id| crate::rpc::protocol_error(fault, Some(id)),
        );
    }

    /// The ids a line from the child names that will not be forwarded:
    /// each one a client request waits on is answered to the client with
    /// `tool.bad_response` (`message`); when the line is a `request` of the
    /// server's, each other is answered to the server with `answer(id)`
    /// ([`answer_server`](Self::answer_server)).
    fn fail_ids(&self, ids: Vec<Id>, request: bool, message: &str, answer: &dyn Fn(&Id) -> Value) {
        for id in ids {
            if self.fail_pending(&id, GateCode::BadResponse, message) || !request {
                continue;
            }
            self.answer_server(&id, &answer(&id));
        }
    }

    /// Sends the server the gateway's `answer` to its request `id`, unless
    /// the server waits for the client's answer under that id (an answer
    /// there would be read as the client's).
    fn answer_server(&self, id: &Id, answer: &Value) {
        if lock(&self.shared.state).server_asks.contains_key(id) {
            tracing::warn!(%id, "a bad server request reuses the id of one the client has yet to answer; not answered");
            return;
        }
        tracing::warn!(%id, "a server request was answered with an error");
        let _ = self.send_own(answer.to_string().as_bytes());
    }

    /// Answers the request waiting on `id` with the gateway's error
    /// `code`; `false` when none waits on it.
    fn fail_pending(&self, id: &Id, code: GateCode, message: &str) -> bool {
        let Some(p) = self.finish(id) else {
            return false;
        };
        answer_with(p, code, message);
        if code == GateCode::BadResponse {
            self.audit_bad_answer(id, None, None);
        }
        true
    }

    /// Audits the gateway's refusal of the child's answer to request `id`
    /// (`tool.bad_response`: no JSON-RPC, not MCP's shape, past a bound),
    /// as a poisoned one is; the gateway's own requests are no client's.
    fn audit_bad_answer(&self, id: &Id, method: Option<&str>, asked: Option<&KeptName>) {
        if own_listing::is_reserved(id) {
            return;
        }
        let code = GateCode::BadResponse.code();
        self.audit_refused_answer(id, method, asked, code, "builtin answer check");
    }

    /// The audit line of an answer to request `id` refused (`code`, by
    /// `rule`), naming what the request `asked` for.
    fn audit_refused_answer(
        &self,
        id: &Id,
        method: Option<&str>,
        asked: Option<&KeptName>,
        code: &str,
        rule: &str,
    ) {
        let tool = asked.and_then(KeptName::audited);
        let mut st = lock(&self.shared.state);
        let rec = Record {
            id: Some(id.to_value()),
            method,
            tool: tool.as_deref(),
            code: Some(code),
            rule: Some(rule),
            ..Record::of("server->client", "refused")
        };
        let _ = self.audit(&mut st, rec);
    }

    /// The child's output ended (or the child was stopped): every waiting
    /// request gets `tool.server_exited`, and nothing more is sent to it.
    pub fn child_gone(&self) {
        *lock(&self.shared.to_child) = None;
        let drained: Vec<Pending> = {
            let mut st = lock(&self.shared.state);
            st.progress.clear();
            st.pending.drain().map(|(_, p)| p).collect()
        };
        for p in drained {
            answer_with(
                p,
                GateCode::ServerExited,
                "the server exited before answering",
            );
        }
        // Whoever waits for room toward the child, or for the child's
        // earlier lines to be taken, stops waiting.
        self.shared.to_server.close();
        self.shared.from_server.close();
        self.shared.pending_slots.close();
        self.shared.server_gone.send_replace(true);
    }

    /// With `--root`, every roots list a client sends as an input response
    /// (the 2026-07-28 form of answering `roots/list`: the `roots` member
    /// of one entry of a request's `inputResponses`) is replaced by the
    /// gateway's roots: `Some(line)` when the request changed. A `roots`
    /// member deeper in an entry (an elicited form's field) is the client's
    /// answer and stays as it is.
    fn roots_in_input_responses(&self, req: &Request) -> Option<Arc<[u8]>> {
        let roots = self.shared.keeper.roots.as_ref()?;
        let mut params = req.params.clone()?;
        let inputs = params.get_mut("inputResponses")?.as_object_mut()?;
        let ours = roots_value(roots);
        let mut changed = false;
        for entry in inputs.values_mut() {
            if let Some(v) = entry.get_mut("roots").filter(|v| v.is_array()) {
                *v = ours.clone();
                changed = true;
            }
        }
        if !changed {
            return None;
        }
        let line = json!({"jsonrpc": "2.0", "id": req.id.to_value(), "method": req.method, "params": params});
        Some(Arc::from(line.to_string().into_bytes()))
    }

    /// Resolves `names` as the child will and vets every address
    /// (`--resolve`), in parallel, by `deadline` at the latest
    /// ([`super::resolve::Resolver::vet_all`]).
    ///
    /// # Errors
    /// The first refusal; `dns.timeout` past the deadline.
    async fn resolve_names(
        &self,
        names: Vec<super::urls::PendingName>,
        deadline: tokio::time::Instant,
    ) -> Result<(), Refusal> {
        let net = &self.shared.keeper.policy.net;
        self.shared.resolver.vet_all(net, names, deadline).await
    }

    /// A client's answer to the server's request `id` (which `asked`) was
    /// refused: audited (attack s70-B, N5), and the server gets the -32001
    /// error in its place (when there is room now).
    fn refuse_answer(&self, id: Option<Id>, asked: Asked, refusal: &Refusal) {
        tracing::warn!(id = ?id, code = refusal.code(), rule = refusal.rule(), "a client answer was refused");
        {
            let mut st = lock(&self.shared.state);
            let rec = Record {
                id: id.as_ref().map(Id::to_value),
                method: asked.method(),
                code: Some(refusal.code()),
                rule: Some(refusal.rule()),
                ..Record::of("client->server", "refused")
            };
            let _ = self.audit(&mut st, rec);
        }
        if let Some(id) = id {
            self.send_refusal_to_server(&id, refusal);
        }
    }

    /// A client notification refused (`r`): logged and audited, never
    /// forwarded (a notification gets no answer).
    fn drop_notification(&self, method: &str, r: &Refusal) {
        tracing::warn!(
            method,
            code = r.code(),
            rule = r.rule(),
            "notification dropped"
        );
        let mut st = lock(&self.shared.state);
        let rec = Record {
            method: Some(method),
            code: Some(r.code()),
            rule: Some(r.rule()),
            ..Record::of("client->server", "refused")
        };
        let _ = self.audit(&mut st, rec);
    }

    /// Passes `req` to the child and waits for its answer; `arrived` is
    /// when the gateway read it (its deadline counts from there).
    fn forward(
        &self,
        mut req: Request,
        ctx: CallContext,
        arrived: tokio::time::Instant,
        asking: Asking,
        names: Vec<super::urls::PendingName>,
        order: Option<OwnedMutexGuard<()>>,
    ) -> Handled {
        let (limited, listing) = match asking {
            Asking::Counted(limited) => (limited, None),
            Asking::Page(listing) => (None, Some(listing)),
        };
        let (tx, rx) = oneshot::channel();
        {
            let mut st = lock(&self.shared.state);
            if st.pending.contains_key(&req.id) || st.retired.contains(&req.id) {
                return in_flight_clash(
                    &mut st,
                    limited.as_ref(),
                    req.id,
                    (crate::rpc::INVALID_REQUEST, "duplicate_id", "/id"),
                    "a request with this id is already in flight",
                );
            }
            // MCP: progress tokens are unique across active requests; one
            // still bound to another (held after a timeout or a
            // cancellation too) would get that request's progress.
            let progress = progress_key(req.params.as_ref());
            if progress
                .as_ref()
                .is_some_and(|t| st.progress.contains_key(t))
            {
                return in_flight_clash(
                    &mut st,
                    limited.as_ref(),
                    req.id,
                    (
                        crate::rpc::INVALID_PARAMS,
                        "duplicate_progress_token",
                        "/params/_meta/progressToken",
                    ),
                    "the progress token is already in use by a request in flight",
                );
            }
            let slot = if lock(&self.shared.to_child).is_none() {
                None
            } else {
                self.pending_slot()
            };
            let Some(slot) = slot else {
                // Only when the child is gone, or the request came outside
                // the engine's readiness (none does).
                if let Some(slot) = &limited {
                    st.limiter.release(slot);
                }
                drop(st);
                return Handled::Reply(Reply::Send(self.unsent(req.id, self.gone_or_busy())));
            };
            st.next_seq = st.next_seq.wrapping_add(1);
            let seq = st.next_seq;
            if let Some(token) = &progress {
                st.progress.insert(token.clone(), req.id.clone());
            }
            st.pending.insert(
                req.id.clone(),
                Pending {
                    tx,
                    limited,
                    seq,
                    started: Instant::now(),
                    progress,
                    timed_out: false,
                    quiet: false,
                    _slot: Some(slot),
                },
            );
        }
        if let Some(line) = self.roots_in_input_responses(&req) {
            tracing::info!(id = %req.id, "roots in inputResponses replaced with --root");
            req.raw = line;
        }
        let me = self.clone();
        let resolve = self.shared.keeper.policy.resolve && !names.is_empty();
        // With `--resolve` the request leaves after its names are checked:
        // its room is taken now, and the next message waits for it.
        let mut on_its_way = None;
        if resolve {
            let order = order.or_else(|| Arc::clone(&self.shared.in_order).try_lock_owned().ok());
            on_its_way = self.charge_now(req.raw.len()).map(|c| (c, order));
            if on_its_way.is_none() {
                self.finish(&req.id);
                return Handled::Reply(Reply::Send(self.unsent(req.id, Unsent::Full)));
            }
        } else if let Err(why) = self.send_child(&req.raw) {
            self.finish(&req.id);
            return Handled::Reply(Reply::Send(self.unsent(req.id, why)));
        }
        let task = is_task(&req);
        let asked = Named::of(&req.method, req.params.as_ref()).kept();
        let Request {
            id: req_id,
            method,
            raw,
            ..
        } = req;
        let raw = on_its_way.is_some().then_some(raw);
        // `--call-timeout` bounds `tools/call`; every other forwarded
        // request gets REQUEST_DEADLINE (an answer the gateway could not
        // read must not leave it waiting).
        let timeout = match method.as_str() {
            "tools/call" => self.shared.call_timeout,
            // A stream that lasts the session (2026-07-28): answered only
            // when the server ends it.
            "subscriptions/listen" => None,
            _ => Some(REQUEST_DEADLINE),
        };
        Handled::Task(Box::pin(async move {
            let id = req_id;
            // Counted from the request's arrival: the lookups of `--resolve`
            // are part of the call's time.
            let deadline = timeout.map(|t| arrived + t);
            if let (Some((charge, order)), Some(raw)) = (on_its_way, raw) {
                let by = deadline.unwrap_or_else(|| arrived + super::resolve::RESOLVE_DEADLINE);
                if let Err(r) = me.resolve_names(names, by).await {
                    me.finish(&id);
                    return Reply::Send(me.denial_for(&method, id, &r, task));
                }
                let queued = me.queue_child(&raw, charge);
                drop(order);
                if let Err(why) = queued {
                    me.finish(&id);
                    return Reply::Send(me.unsent(id, why));
                }
            }
            let ctx = ctx;
            let outcome = match timeout.zip(deadline) {
                Some((t, deadline)) => match tokio::time::timeout_at(deadline, rx).await {
                    Ok(o) => o,
                    Err(_) => {
                        me.hold_after_timeout(id.clone());
                        let reason = if method == "tools/call" {
                            "toolgate gate: --call-timeout"
                        } else {
                            "toolgate gate: request deadline"
                        };
                        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id.to_value(), "reason": reason}});
                        // Advice, sent when there is room now: the
                        // timeout is answered at once either way.
                        let _ = me.send_own(cancel.to_string().as_bytes());
                        tracing::warn!(%id, "call timed out; cancelled at the server");
                        return Reply::Send(Response::error(
                            Some(id),
                            gate_error(
                                GateCode::CallTimeout,
                                format!("no answer within {} s", t.as_secs_f64()),
                            ),
                        ));
                    }
                },
                None => rx.await,
            };
            match outcome {
                Ok((o, charge)) => {
                    let weight = charge.bytes();
                    // Given back once the answer is queued toward the client.
                    ctx.hold(charge);
                    // Screened away from the session, under the request's
                    // deadline (attack s68, DoS F4), in the room screenings
                    // share (attack s70-A, N5).
                    let shaper = me.clone();
                    let (answered, shaped) = (id.clone(), method.clone());
                    let shaping = off_session(&me.shared.screening, weight, deadline, move || {
                        let reply = shaper.answer(answered, &shaped, &asked, o, listing, task);
                        (reply, asked)
                    });
                    let (reply, asked) = match shaping.await {
                        Ok(shaped) => shaped,
                        Err(why) => return Reply::Send(me.not_screened(id, &method, why, timeout)),
                    };
                    let reply = me.resolve_links(&method, reply).await;
                    me.vet_input_requests(&method, &asked, reply, task).await
                }
                Err(_) => Reply::Send(Response::error(
                    Some(id),
                    gate_error(
                        GateCode::ServerExited,
                        "the server exited before answering".into(),
                    ),
                )),
            }
        }))
    }
    /// Decides a client's request and forwards it: `order` is held until
    /// it has gone to the child; `unlisted` says why the gateway's own
    /// listing did not complete, and refuses what it would have shown (a
    /// tool the view does not hold, any prompt or resource).
    fn decide(
        &self,
        request: Request,
        ctx: CallContext,
        arrived: tokio::time::Instant,
        answered: Vec<super::urls::PendingName>,
        order: Option<OwnedMutexGuard<()>>,
        unlisted: Option<String>,
    ) -> Handled {
        if request.method == "tools/call" {
            let vetted = {
                let mut st = lock(&self.shared.state);
                self.vet_call(&request, &mut st, unlisted.as_deref())
            };
            return match vetted {
                Ok((limited, mut names)) => {
                    names.extend(answered);
                    let asking = Asking::Counted(limited);
                    self.forward(request, ctx, arrived, asking, names, order)
                }
                Err(reply) => Handled::Reply(reply),
            };
        }
        // A URI over the bound is refused before it is read any way.
        let too_long =
            super::decide::named_uris_within_bound(&request.method, request.params.as_ref()).err();
        let (params, hidden, read_values) = {
            let st = lock(&self.shared.state);
            let read_values = match too_long {
                Some(_) => Ok(Vec::new()),
                None => self.template_reads(&st.hidden, &request.method, request.params.as_ref()),
            };
            // Hidden, or not known to be visible (fail closed).
            let hidden = too_long
                .or_else(|| st.hidden.refusal(&request.method, request.params.as_ref()))
                .or_else(|| {
                    let why = unlisted?;
                    Some(Refusal::new(GateCode::NotListed, why, UNLISTED_RULE))
                });
            (
                st.states.to_check(&request.method, request.params.as_ref()),
                hidden,
                read_values,
            )
        };
        let decided = hidden
            .map_or_else(
                || {
                    self.shared
                        .keeper
                        .check_request(&request.method, params.as_deref())
                },
                Err,
            )
            .and_then(|mut names| {
                // What the server's templates take out of a URI of its own
                // scheme, checked as arguments (attack s67, A-N1, A-N2).
                for values in read_values? {
                    let more = self
                        .shared
                        .keeper
                        .check_arguments(&request.method, &Value::Object(values))?;
                    names.extend(more);
                }
                Ok(names)
            })
            .and_then(|names| Ok((names, self.acquire_prompt(&request)?)))
            .and_then(|(names, limited)| match self.audit_operation(&request) {
                Ok(()) => Ok((names, limited)),
                Err(r) => {
                    if let Some(slot) = &limited {
                        lock(&self.shared.state).limiter.release(slot);
                    }
                    Err(r)
                }
            });
        match decided {
            Ok((mut names, limited)) => {
                names.extend(answered);
                if request.method != "tools/list" {
                    let asking = Asking::Counted(limited);
                    return self.forward(request, ctx, arrived, asking, names, order);
                }
                // A page of a listing: the one its cursor continues (a
                // listing started over is another listing; the one before
                // it is not ended, and only a complete listing ends
                // learning: #20 re-attack, N7 and F4).
                let asked = PageAsked::of(request.params_object().and_then(|p| p.get("cursor")));
                let listing = lock(&self.shared.state).view.listing_for(asked);
                let asked =
                    self.forward(request, ctx, arrived, Asking::Page(listing), names, order);
                self.page_asked(asked, listing)
            }
            Err(r) => {
                tracing::warn!(method = %request.method, code = r.code(), rule = r.rule(), "request refused");
                let mut st = lock(&self.shared.state);
                // The entry refused, of a request naming several (s60, K12-D).
                let target = r
                    .subject()
                    .map(audit_uri)
                    .or_else(|| Named::of(&request.method, request.params.as_ref()).audited());
                let rec = Record {
                    id: Some(request.id.to_value()),
                    method: Some(&request.method),
                    tool: target.as_deref(),
                    arguments: operation_arguments(&request),
                    code: Some(r.code()),
                    rule: Some(r.rule()),
                    ..Record::of("client->server", "refused")
                };
                let _ = self.audit(&mut st, rec);
                drop(st);
                let task = is_task(&request);
                Handled::Reply(Reply::Send(self.denial_for(
                    &request.method,
                    request.id,
                    &r,
                    task,
                )))
            }
        }
    }

    /// A request that names a tool, prompt or resource before the listings
    /// `needed` have completed: decided once the gateway has made them
    /// itself ([`GateService::own_listing`],
    /// [`GateService::own_entry_listing`]), within the call's time
    /// (`--call-timeout` counts from its arrival; [`OWN_LIST_TIMEOUT`]
    /// bounds the listings otherwise). The client's next message is read
    /// once this one has gone to the child: messages keep their order, and
    /// the requests behind it wait in the client's pipe, not in the
    /// gateway.
    fn after_own_listings(
        &self,
        request: Request,
        ctx: CallContext,
        arrived: tokio::time::Instant,
        answered: Vec<super::urls::PendingName>,
        needed: Vec<&'static str>,
    ) -> Handled {
        let order = Arc::clone(&self.shared.in_order).try_lock_owned().ok();
        let me = self.clone();
        let is_call = request.method == "tools/call";
        let call_timeout = self.shared.call_timeout.filter(|_| is_call);
        let by = arrived + call_timeout.unwrap_or(OWN_LIST_TIMEOUT);
        Handled::Task(Box::pin(async move {
            let mut unlisted = None;
            for method in needed {
                let done = if method == "tools/list" {
                    me.own_listing(&request, by).await
                } else {
                    me.own_entry_listing(method, &request, by).await
                };
                if let Err(why) = done {
                    tracing::warn!(method, %why, "the gateway's own listing did not complete");
                    // The child is gone: said so, as for any request it left.
                    if lock(&me.shared.to_child).is_none() {
                        return Reply::Send(Response::error(
                            Some(request.id),
                            gate_error(
                                GateCode::ServerExited,
                                "the server exited before answering".into(),
                            ),
                        ));
                    }
                    unlisted = Some(format!(
                        "the gateway's own `{method}` did not complete: {why}"
                    ));
                    break;
                }
            }
            if let Some(t) = call_timeout.filter(|_| tokio::time::Instant::now() >= by) {
                tracing::warn!(id = %request.id, "call timed out during the gateway's own tools/list");
                return Reply::Send(Response::error(
                    Some(request.id),
                    gate_error(
                        GateCode::CallTimeout,
                        format!("no answer within {} s", t.as_secs_f64()),
                    ),
                ));
            }
            match me.decide(request, ctx, arrived, answered, order, unlisted) {
                Handled::Reply(r) => r,
                Handled::Call(f) | Handled::Task(f) => f.await,
            }
        }))
    }
}

impl Service for GateService {
    fn attach(&mut self, peer: Peer) {
        *lock(&self.shared.peer) = Some(peer.clone());
        // The sender of the server messages held for message order, in
        // the order they are released.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (tx, mut rx) = mpsc::unbounded_channel::<Held<ServerMessage>>();
        self.shared.order.send_to(tx);
        let shared = Arc::downgrade(&self.shared);
        runtime.spawn(async move {
            while let Some(Held {
                message, charge, ..
            }) = rx.recv().await
            {
                // Ends with the session.
                if shared.upgrade().is_none() {
                    break;
                }
                let _ = peer.send(Outbound::Raw(message.raw)).await;
                drop(charge);
            }
        });
    }

    /// Backpressure: the client's next message is read only once the
    /// queue toward the child has room for a whole line, a place among the
    /// pending requests is free, and a `--resolve` request before it has
    /// gone to the child (message order).
    fn ready(&mut self) -> Option<BoxFuture<()>> {
        let shared = &self.shared;
        let in_order = shared.in_order.try_lock().is_ok();
        {
            let mut r = lock(&shared.reserved);
            if r.bytes.is_none() {
                r.bytes = shared.to_server.try_take(shared.max_line.saturating_add(1));
            }
            if r.slot.is_none() {
                r.slot = Arc::clone(&shared.pending_slots).try_acquire_owned().ok();
            }
            let room = r.bytes.is_some() && r.slot.is_some();
            if (room && in_order) || shared.to_server.is_closed() {
                return None;
            }
        }
        let me = self.clone();
        Some(Box::pin(async move {
            let shared = &me.shared;
            drop(shared.in_order.lock().await);
            let need_bytes = lock(&shared.reserved).bytes.is_none();
            if need_bytes {
                // Closed (the child is gone): what follows is answered so.
                let bytes = shared.to_server.take(shared.max_line.saturating_add(1));
                lock(&shared.reserved).bytes = bytes.await.ok();
            }
            let need_slot = lock(&shared.reserved).slot.is_none();
            if need_slot {
                let slot = Arc::clone(&shared.pending_slots).acquire_owned().await;
                lock(&shared.reserved).slot = slot.ok();
            }
        }))
    }

    fn request(&mut self, request: Request, ctx: CallContext) -> Handled {
        let arrived = tokio::time::Instant::now();
        // Follow the era (the child answers the other era's requests itself).
        if own_listing::is_reserved(&request.id) {
            return Handled::Reply(Reply::Send(Response::error(
                Some(request.id),
                ErrorObject {
                    code: crate::rpc::INVALID_REQUEST,
                    message: format!(
                        "ids starting with `{GATE_ID_PREFIX}` are reserved for the gateway's own requests"
                    ),
                    data: None,
                },
            )));
        }
        if let Err(at) = super::decide::params_shape(&request.method, request.params.as_ref()) {
            tracing::warn!(method = %request.method, %at, "request with invalid params refused");
            let error =
                crate::engine::wire::ProtocolError::invalid_params(&request.id, &at.to_string())
                    .with_data(json!({ "kind": at.kind(), "pointer": at.pointer }));
            return Handled::Reply(Reply::Send(error.into()));
        }
        lock(&self.shared.era).pass(&request.id, &request.method, request.params_object());
        // 2026-07-28: the answers a request carries to the server's earlier
        // input requests are mediated as a response's result is.
        let mut answered = Vec::new();
        if let Some(inputs) = request
            .params_object()
            .and_then(|p| p.get("inputResponses"))
        {
            match self
                .shared
                .keeper
                .check_client_answer(inputs, Answered::Inputs)
            {
                Ok(names) => answered = names,
                Err(r) => {
                    tracing::warn!(method = %request.method, code = r.code(), "inputResponses refused");
                    // Audited as the request it refuses (attack s70-B, N5).
                    let tool = Named::of(&request.method, request.params.as_ref()).audited();
                    {
                        let mut st = lock(&self.shared.state);
                        let rec = Record {
                            id: Some(request.id.to_value()),
                            method: Some(&request.method),
                            tool: tool.as_deref(),
                            code: Some(r.code()),
                            rule: Some(r.rule()),
                            ..Record::of("client->server", "refused")
                        };
                        let _ = self.audit(&mut st, rec);
                    }
                    let task = is_task(&request);
                    return Handled::Reply(Reply::Send(self.denial_for(
                        &request.method,
                        request.id,
                        &r,
                        task,
                    )));
                }
            }
        }
        // What names a tool, prompt or resource waits for its kind's listing.
        let needed = if request.method == "tools/call" {
            let tool = request
                .params_object()
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            if self.needs_own_listing(tool) {
                vec!["tools/list"]
            } else {
                Vec::new()
            }
        } else {
            self.entry_listings_needed(&request)
        };
        if !needed.is_empty() {
            return self.after_own_listings(request, ctx, arrived, answered, needed);
        }
        self.decide(request, ctx, arrived, answered, None, None)
    }

    fn notification(&mut self, notification: Notification) {
        // Only notifications reach the server: a request sent without an
        // id (`tools/call`, `resources/read`, …) names an operation no
        // answer could refuse, so it is dropped, unless `[methods] allow`
        // names it; either way its params get the URL and path checks.
        let method = notification.method.as_str();
        let keeper = &self.shared.keeper;
        let known = method.starts_with("notifications/")
            || keeper.policy.methods_allow.first_match(method).is_some();
        let cancelled = (method == "notifications/cancelled")
            .then_some(notification.params.as_ref())
            .flatten()
            .and_then(|p| p.get("requestId"))
            .and_then(valid_id);
        if cancelled.as_ref().is_some_and(own_listing::is_reserved) {
            // The gateway's own request is no client's to cancel: a
            // cancelled listing would fail every call that waits on it.
            let r = Refusal::new(
                GateCode::MethodDenied,
                format!("a cancellation of the gateway's own request (`{GATE_ID_PREFIX}…`) is not forwarded"),
                "gateway's own requests",
            );
            return self.drop_notification(method, &r);
        }
        let mut params = notification.params.clone().unwrap_or(Value::Null);
        if let Some(o) = params.as_object_mut() {
            o.remove("_meta");
        }
        let vetted = if known {
            keeper.check_arguments(method, &params)
        } else {
            Err(Refusal::new(
                GateCode::MethodDenied,
                format!("`{method}` sent as a notification is not forwarded"),
                "[methods] allow",
            ))
        };
        let names = match vetted {
            Ok(names) => names,
            Err(r) => return self.drop_notification(method, &r),
        };
        if let Some(id) = cancelled {
            // Advice to the server, not an answer: the call keeps its
            // slot until the server answers or its deadline passes.
            self.hold_until_deadline(id);
        }
        if self.shared.keeper.policy.resolve && !names.is_empty() {
            // As a request's: it leaves once its names are checked, and
            // the client's next message waits for it (message order).
            let order = Arc::clone(&self.shared.in_order).try_lock_owned().ok();
            let me = self.clone();
            tokio::spawn(async move {
                let by = tokio::time::Instant::now() + super::resolve::RESOLVE_DEADLINE;
                match me.resolve_names(names, by).await {
                    Ok(()) => {
                        let _ = me.send_child_when_room(&notification.raw).await;
                    }
                    Err(r) => me.drop_notification(&notification.method, &r),
                }
                drop(order);
            });
            return;
        }
        if self.send_child(&notification.raw) == Err(Unsent::Full) {
            tracing::warn!(method, "no room toward the server: notification dropped");
        }
    }

    fn response(&mut self, response: ClientResponse) {
        let asked = response
            .id
            .as_ref()
            .and_then(|id| lock(&self.shared.state).server_asks.remove(id));
        let Some(asked) = asked else {
            tracing::warn!(id = ?response.id, "a client response to no request the server is waiting on; dropped");
            return;
        };
        // Mediated as arguments are: a sampled or elicited answer naming an
        // internal URL or a path outside the roots never reaches the server.
        // An error object is text the server reads as well (`message`,
        // `data`): checked as a result is.
        let (Ok(answer) | Err(answer)) = &response.outcome;
        let names = match self.shared.keeper.check_client_answer(
            answer,
            match asked {
                Asked::RootsList => Answered::RootsList,
                Asked::Other(_) => Answered::Result,
            },
        ) {
            Ok(names) => names,
            Err(r) => return self.refuse_answer(response.id, asked, &r),
        };
        if self.shared.keeper.policy.resolve && !names.is_empty() {
            let me = self.clone();
            tokio::spawn(async move {
                let by = tokio::time::Instant::now() + super::resolve::RESOLVE_DEADLINE;
                match me.resolve_names(names, by).await {
                    Ok(()) => {
                        let _ = me.send_child_when_room(&response.raw).await;
                    }
                    Err(r) => me.refuse_answer(response.id, asked, &r),
                }
            });
            return;
        }
        if self.send_child(&response.raw) == Err(Unsent::Full) {
            tracing::warn!("no room toward the server: client response dropped");
        }
    }

    /// A client line the core refused that names (leniently, as the
    /// gateway reads a bad server answer) the id of a server request waiting
    /// for the client, and no `method`: taken as the client's bad answer to
    /// that request. The server gets `tool.bad_response` (-32603, with the
    /// core's fault in `error.data`) in its place, the client nothing (it
    /// asked nothing under that id). Any other bad line gets the core's
    /// answer, as before.
    fn refused(&mut self, refused: RefusedLine) -> Option<Response> {
        if refused.request {
            return Some(refused.answer);
        }
        let answered: Vec<Id> = {
            let mut st = lock(&self.shared.state);
            refused
                .ids
                .iter()
                .filter(|id| st.server_asks.remove(*id).is_some())
                .cloned()
                .collect()
        };
        if answered.is_empty() {
            return Some(refused.answer);
        }
        let (reason, kind) = match &refused.answer.body {
            Body::Error(e) => (
                e.message.clone(),
                e.data
                    .as_ref()
                    .and_then(|d| d.get("kind"))
                    .cloned()
                    .unwrap_or(Value::Null),
            ),
            Body::Result(_) => (String::new(), Value::Null),
        };
        for id in answered {
            tracing::warn!(%id, reason, "a client answer failed the core; the server gets an error in its place");
            let answer = json!({"jsonrpc": "2.0", "id": id.to_value(), "error": {
                "code": GATE_ERROR,
                "message": format!("the client's answer was refused by the gateway: {reason}"),
                "data": {"code": GateCode::BadResponse.code(), "kind": kind}}});
            let _ = self.send_own(answer.to_string().as_bytes());
            let mut st = lock(&self.shared.state);
            let rec = Record {
                id: Some(id.to_value()),
                code: Some(GateCode::BadResponse.code()),
                rule: Some("JSON-RPC 2.0 (client answer)"),
                ..Record::of("client->server", "refused")
            };
            let _ = self.audit(&mut st, rec);
        }
        None
    }

    /// A client's batch is served where the session's revision allows
    /// batches (2025-03-26): each element is vetted, decided, forwarded and
    /// answered as its own line would be, and the engine gathers the answers
    /// into one array. Elsewhere the batch gets one -32600 naming why.
    fn accept_batch(&mut self, len: usize) -> Result<(), ErrorObject> {
        tracing::debug!(len, "batch offered");
        lock(&self.shared.era).accept_batch()
    }

    fn closed(&mut self) {
        self.shared.client_closed.send_replace(true);
        *lock(&self.shared.to_child) = None;
    }
}

/// `Ok` when screening left the top-level member names and the id of a
/// server message as they were: a name carrying hidden characters would
/// become another member (`"id\u{200B}"` an `id`, turning a notification
/// into a request the gateway never saw), and an id another request's
/// (`"r\u{200B}1"` and `"r1"`: the client's answer to one would reach the
/// server as the other's), so the message is refused instead; so is an
/// integer id past 2^53, which a JavaScript client reads as another.
fn same_members(sent: &Value, screened: &Value) -> Result<(), Refusal> {
    let names = |v: &Value| v.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>());
    if names(sent) != names(screened) {
        return Err(Refusal::new(
            GateCode::ResultPoisoned,
            "a member name of the message carries hidden characters",
            "--poison strip",
        ));
    }
    if sent.get("id") != screened.get("id") {
        return Err(Refusal::new(
            GateCode::ResultPoisoned,
            "the message's id carries hidden characters",
            "--poison strip",
        ));
    }
    // A JavaScript client reads an integer past 2^53 as a neighbour's
    // (`9007199254740993` is `…992`): two requests would share one id.
    let exact = 1_u64 << 53;
    if let Some(Value::Number(n)) = sent.get("id") {
        let beyond = n.as_u64().map_or_else(
            || n.as_i64().is_none_or(|i| i.unsigned_abs() > exact),
            |u| u > exact,
        );
        if beyond {
            return Err(Refusal::new(
                GateCode::BadResponse,
                "the message's id is an integer past 2^53, which a JavaScript client cannot tell from its neighbours",
                "builtin id check",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server's id is held while the client answers: a string of at
    /// most `rpc::MAX_ID_BYTES` bytes or an integer; a longer string, a
    /// fraction, `null` and other values are no id (attack s72-A, F1).
    #[test]
    fn server_ids_are_bounded_as_the_clients_are() {
        let fits = "s".repeat(crate::rpc::MAX_ID_BYTES);
        assert_eq!(valid_id(&json!(fits)), Some(Id::String(fits.clone())));
        for len in [crate::rpc::MAX_ID_BYTES + 1, crate::rpc::MAX_ID_BYTES + 2] {
            assert_eq!(valid_id(&json!("s".repeat(len))), None, "{len}");
        }
        assert_eq!(valid_id(&json!(-3)), Some(Id::Number((-3).into())));
        assert_eq!(
            valid_id(&json!(u64::MAX)),
            Some(Id::Number(u64::MAX.into()))
        );
        for bad in [
            json!(1.5),
            json!(null),
            json!([1]),
            json!({"id": 1}),
            json!(true),
        ] {
            assert_eq!(valid_id(&bad), None, "{bad}");
        }
    }

    /// A server request whose id screening would change is refused (#20
    /// attack pass, F7): two requests could then share one id.
    #[test]
    fn a_message_whose_id_screening_changes_is_refused() {
        let sent =
            json!({"jsonrpc": "2.0", "id": "r\u{200B}1", "method": "sampling/createMessage"});
        let mut screened = sent.clone();
        clean_value(&mut screened, true);
        assert_eq!(screened["id"], "r1");
        let e = same_members(&sent, &screened).unwrap_err();
        assert_eq!(e.code(), "tool.result_poisoned");
        assert!(e.message().contains("id"), "{}", e.message());
        let plain =
            json!({"jsonrpc": "2.0", "id": "r1", "method": "x", "params": {"t": "a\u{200B}"}});
        let mut screened = plain.clone();
        clean_value(&mut screened, true);
        assert!(same_members(&plain, &screened).is_ok());
        let big = json!({"jsonrpc": "2.0", "id": 9_007_199_254_740_993_u64, "method": "x"});
        assert_eq!(
            same_members(&big, &big).unwrap_err().code(),
            "tool.bad_response"
        );
        let edge = json!({"jsonrpc": "2.0", "id": 9_007_199_254_740_992_u64, "method": "x"});
        assert!(same_members(&edge, &edge).is_ok());
        let negative = json!({"jsonrpc": "2.0", "id": -9_007_199_254_740_993_i64, "method": "x"});
        assert!(same_members(&negative, &negative).is_err());
        let renamed = json!({"jsonrpc": "2.0", "id\u{200B}": 1, "method": "x"});
        let mut screened = renamed.clone();
        clean_value(&mut screened, true);
        assert!(same_members(&renamed, &screened)
            .unwrap_err()
            .message()
            .contains("member name"));
    }

    /// The count bounds the values from above, ignores what is inside
    /// strings (escaped quotes included), and stops past the bound.
    #[test]
    fn values_in_counts_outside_strings_only() {
        let line = br#"{"a":[1,2,{"b":"x,[:\"]"}],"c":"\\"}"#;
        let parsed: Value = serde_json::from_slice(line).unwrap();
        let mut values = 0;
        let mut stack = vec![&parsed];
        while let Some(v) = stack.pop() {
            values += 1;
            match v {
                Value::Array(a) => stack.extend(a),
                Value::Object(m) => stack.extend(m.values()),
                _ => {}
            }
        }
        let counted = values_in(line, usize::MAX);
        assert!(counted >= values, "{counted} < {values}");
        // Seven values, three members, two objects with members.
        assert_eq!(
            counted,
            7 + 3 * crate::json::MEMBER_VALUES + 2 * crate::json::OBJECT_VALUES
        );
        assert_eq!(values_in(b"[0,0,0,0,0]", 3), 4);
        let tiny = format!("[{}]", vec!["0"; 100].join(","));
        assert!(GateService::weigh(tiny.as_bytes()) >= 100 * VALUE_BYTES);
    }
}
