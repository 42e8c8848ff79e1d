//! What the engine serves: the [`Service`] trait and the typed values that
//! cross it.
//!
//! One engine, several services, several transports: the engine (framing
//! aside) owns everything a feature needs once — the core parse of every
//! line, ids, the concurrency bound and its queue, cancellation,
//! progress, batches, and writing each message whole as one line — and a
//! service owns only what its methods mean. `toolgate mcp` is the engine
//! serving the PDF tools; `toolgate gate` is the same engine serving a
//! child process; stdio and (next) Streamable HTTP are two transports in
//! front of the same engine.
//!
//! # The contract, message by message
//!
//! * A client **request** (it has an id) reaches [`Service::request`] once,
//!   in the order the client sent it, on the engine's dispatch task. The
//!   service decides synchronously (so state such as a protocol era
//!   changes in message order) and returns a [`Handled`]:
//!   * [`Handled::Reply`]: the answer now (`ping`, `tools/list`, every
//!     protocol error). Never queued, so these are answered while calls run.
//!   * [`Handled::Call`]: a bounded unit of work (a tool call). It runs when
//!     one of the `max_concurrent_calls` slots is free, waits in the bounded
//!     queue otherwise, and beyond the queue is answered at once with
//!     [`SERVER_BUSY`] (its future is dropped unpolled).
//!   * [`Handled::Task`]: unbounded work started at once (a gateway waiting
//!     for its child's answer to `initialize` or `tools/list`). Cancellable
//!     like a call.
//! * A **notification** reaches [`Service::notification`] in order, after
//!   the engine has acted on it: `notifications/cancelled` naming an
//!   in-flight or queued request cancels it (its [`CancelToken`] fires,
//!   its future is dropped, and no response is ever sent for it); an
//!   unknown or finished id is ignored. A gateway still sees the
//!   notification and may forward it.
//! * A **response** from the client (to a server-initiated request sent
//!   through the [`Peer`]) reaches [`Service::response`]; it is never
//!   answered (JSON-RPC 2.0 §5).
//! * Lines that fail the core (payload bound, strict JSON, envelope) never
//!   reach the service as messages: the engine answers them with the core's
//!   error, after offering that answer to [`Service::refused`] (a gateway
//!   takes a bad line that answers its server's request as that answer).
//!
//! * **Backpressure**: before it reads each message, the engine asks
//!   [`Service::ready`]; a service whose next hop is full (a gateway whose
//!   server reads slowly) returns a future, and the engine reads nothing
//!   more until it completes (the client's writes then block, as they would
//!   against a slow server), while it goes on writing answers. Nothing is
//!   refused for being fast. The same wait keeps message order where a
//!   service needs to finish one message's forwarding before the next.
//!
//! A request's future gets a [`CallContext`]: its cancel token, a
//! [`Progress`] sink when the request's `_meta.progressToken` is set, and
//! the [`Peer`] for server-initiated messages. Progress sent through the
//! sink is rate-limited by the engine and never written after the
//! request's response.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::{mpsc, Notify};

use super::budget::{ByteBudget, Charge};
use super::message::{ClientResponse, ErrorObject, Notification, Outbound, Reply, Request};
use super::transport::{Outgoing, Route};

/// JSON-RPC error code of a call refused because the engine's call slots
/// and its queue are all taken (`error.data.code` is `"server_busy"`,
/// `error.data.maxConcurrentCalls` and `error.data.maxQueuedCalls` give the
/// bounds). In the JSON-RPC implementation-defined server-error range
/// (-32000 to -32099); the client may retry later.
pub const SERVER_BUSY: i64 = -32000;

/// The [`SERVER_BUSY`] error: `message`, and `data` with `"code":
/// "server_busy"` added (every busy answer, the engine's or a service's,
/// is this one).
pub fn server_busy(
    message: String,
    mut data: serde_json::Map<String, serde_json::Value>,
) -> ErrorObject {
    data.insert("code".into(), "server_busy".into());
    ErrorObject {
        code: SERVER_BUSY,
        message,
        data: Some(serde_json::Value::Object(data)),
    }
}

/// A boxed future, as a service returns its work.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A service's decision on one request.
pub enum Handled {
    /// Answer now, without taking a call slot.
    Reply(Reply),
    /// Bounded work: runs on one of the engine's call slots, queued when
    /// all are busy, refused with [`SERVER_BUSY`] beyond the queue.
    Call(BoxFuture<Reply>),
    /// Unbounded work started at once (still cancellable and tracked).
    Task(BoxFuture<Reply>),
}

impl std::fmt::Debug for Handled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Reply(r) => f.debug_tuple("Reply").field(r).finish(),
            Self::Call(_) => f.write_str("Call(..)"),
            Self::Task(_) => f.write_str("Task(..)"),
        }
    }
}

/// A per-request cancellation signal, fired by the engine when the client
/// cancels the request (or the session ends). Cheap to clone; usable from
/// async code ([`cancelled`](Self::cancelled)) and from blocking code
/// ([`is_cancelled`](Self::is_cancelled), polled).
#[derive(Debug, Clone, Default)]
pub struct CancelToken {
    inner: Arc<CancelInner>,
}

#[derive(Debug, Default)]
struct CancelInner {
    fired: AtomicBool,
    notify: Notify,
}

impl CancelToken {
    /// A token that has not fired.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fires the token (idempotent).
    pub fn cancel(&self) {
        self.inner.fired.store(true, Ordering::SeqCst);
        self.inner.notify.notify_waiters();
    }

    /// Whether the token has fired.
    pub fn is_cancelled(&self) -> bool {
        self.inner.fired.load(Ordering::SeqCst)
    }

    /// Completes once the token has fired.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.inner.notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

/// The way from a service to the client, for server-initiated messages.
/// Each message is written whole as one line, in the order sent.
#[derive(Debug, Clone)]
pub struct Peer {
    tx: mpsc::Sender<Outgoing>,
    budget: ByteBudget,
}

impl Peer {
    pub(crate) fn new(tx: mpsc::Sender<Outgoing>, budget: ByteBudget) -> Self {
        Self { tx, budget }
    }

    /// Queues `line` with its charge on the output's budget.
    pub(crate) async fn send_line(&self, route: Route, line: Vec<u8>) -> Result<(), Closed> {
        let charge = self.budget.take(line.len()).await.map_err(|_| Closed)?;
        self.put(Outgoing::Message {
            route,
            line,
            charge,
        })
        .await
    }

    /// Queues `message` as it is (the end marker).
    pub(crate) async fn put(&self, message: Outgoing) -> Result<(), Closed> {
        self.tx.send(message).await.map_err(|_| Closed)
    }

    /// Queues `message` for the client; waits while the output queue is
    /// full (backpressure from a slow client).
    ///
    /// # Errors
    /// When the session's output has closed.
    pub async fn send(&self, message: Outbound) -> Result<(), Closed> {
        let line = super::render::outbound(&message);
        self.send_line(Route::Session, line).await
    }

    /// Queues `message` as part of the answer to the client's request
    /// `id`, still in flight (MCP: a server may send requests and
    /// notifications related to a request before its response): over
    /// Streamable HTTP it goes on that request's event stream, over stdio
    /// to the one stream. Send it from the request's own work, before its
    /// answer: once the answer is written, nothing waits for it.
    ///
    /// # Errors
    /// When the session's output has closed.
    pub async fn send_about(
        &self,
        id: &super::message::Id,
        message: Outbound,
    ) -> Result<(), Closed> {
        let line = super::render::outbound(&message);
        self.send_line(Route::Request(id.clone()), line).await
    }
}

/// The session's output has closed: nothing more can reach the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed;

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the session's output has closed")
    }
}

impl std::error::Error for Closed {}

/// Shortest interval between two progress notifications of one request.
pub const PROGRESS_INTERVAL: std::time::Duration = std::time::Duration::from_millis(50);

/// One progress report on its way to the engine.
#[derive(Debug, Clone)]
pub(crate) struct ProgressReport {
    pub(crate) key: u64,
    pub(crate) progress: u64,
    pub(crate) total: Option<u64>,
    pub(crate) message: Option<String>,
}

/// Progress of one request (MCP "Progress"): present in a
/// [`CallContext`] only when the request carried `_meta.progressToken`.
/// The engine adds the token, rate-limits (at most one notification per
/// [`PROGRESS_INTERVAL`] per request, except the report that reaches the
/// total) and drops anything reported once the request's response is on
/// its way, so progress never follows the result.
#[derive(Debug, Clone)]
pub struct Progress {
    pub(crate) key: u64,
    pub(crate) tx: mpsc::Sender<ProgressReport>,
}

impl Progress {
    /// Reports `progress` units done out of `total` (when known), with an
    /// optional human-readable `message`. Never blocks: when the engine's
    /// queue is full the report is dropped (progress is advisory).
    pub fn report(&self, progress: u64, total: Option<u64>, message: Option<String>) {
        let _ = self.tx.try_send(ProgressReport {
            key: self.key,
            progress,
            total,
            message,
        });
    }
}

/// What a request's work gets from the engine.
#[derive(Debug, Clone)]
pub struct CallContext {
    /// Fires when the client cancels this request or the session ends.
    pub cancel: CancelToken,
    /// Present when the request asked for progress.
    pub progress: Option<Progress>,
    /// Server-initiated messages to the client.
    pub peer: Peer,
    /// Bytes the work holds for its answer ([`CallContext::hold`]).
    pub(crate) held: Arc<std::sync::Mutex<Option<Charge>>>,
}

impl CallContext {
    /// Hands the engine `charge`, bytes of a budget this request's answer
    /// stands for (a gateway's charge for the server's line it answers
    /// with): the engine gives them back only once the answer is queued
    /// toward the client (an answer in a batch: once it is kept with its
    /// batch), so a client that stops reading stops whoever produced them,
    /// and whoever waits for the charge to come back knows the answer is
    /// ahead of what it writes next. A later charge replaces an earlier one.
    pub fn hold(&self, charge: Charge) {
        let mut held = self
            .held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *held = Some(charge);
    }
}

/// A client line the core refused ([`Service::refused`]), read leniently.
#[derive(Debug)]
pub struct RefusedLine {
    /// The ids its top-level `id` members name ([`super::id_candidates`];
    /// of a line over the bound, the one its kept ends name).
    pub ids: Vec<super::message::Id>,
    /// Whether it names a top-level `method` holding a string
    /// ([`super::names_string_member`]): a request or a notification, not
    /// an answer.
    pub request: bool,
    /// The core's answer to it.
    pub answer: super::message::Response,
}

/// A service served by the engine: the PDF tools, or a gateway's child.
///
/// Every method runs on the engine's dispatch task, in message order, and
/// must not block: slow work goes into the future of a [`Handled::Call`] or
/// [`Handled::Task`] (blocking work inside it through
/// `tokio::task::spawn_blocking`).
pub trait Service: Send + 'static {
    /// Called once before the first message: the way to the client for
    /// server-initiated messages (a service that sends none ignores it).
    fn attach(&mut self, peer: Peer) {
        let _ = peer;
    }

    /// Whether the service can take the next message now: `None` when it
    /// can, else a future that completes when it can (the engine reads no
    /// message until then, and keeps writing answers meanwhile). The
    /// default is always ready.
    fn ready(&mut self) -> Option<BoxFuture<()>> {
        None
    }

    /// Decides on one request. `ctx` belongs to this request; move it into
    /// the returned future.
    fn request(&mut self, request: Request, ctx: CallContext) -> Handled;

    /// A notification, after the engine acted on it (cancellation).
    fn notification(&mut self, notification: Notification) {
        let _ = notification;
    }

    /// A response the client sent to a server-initiated request.
    fn response(&mut self, response: ClientResponse) {
        let _ = response;
    }

    /// A client line (or batch element) the core refused, which the engine
    /// is about to answer with `refused.answer`. A service that takes the
    /// line as something else (a bad answer to a request it sent the client
    /// through the [`Peer`]) returns `None`, and the client gets nothing;
    /// the default returns the answer.
    fn refused(&mut self, refused: RefusedLine) -> Option<super::message::Response> {
        Some(refused.answer)
    }

    /// Whether a JSON-RPC batch (§6) may be served now (MCP 2025-03-26
    /// only). Its elements then reach [`request`](Self::request) one by one
    /// with [`Request::in_batch`] set, and the engine answers the batch as
    /// one array once every element is done.
    ///
    /// # Errors
    /// The error object to answer the whole batch with (id `null`); the
    /// default refuses every batch.
    fn accept_batch(&mut self, len: usize) -> Result<(), ErrorObject> {
        let _ = len;
        Err(ErrorObject {
            code: crate::rpc::INVALID_REQUEST,
            message: "JSON-RPC batches are not accepted".into(),
            data: None,
        })
    }

    /// The input ended. The engine then finishes the work in flight and
    /// queued, writes its answers, and stops.
    fn closed(&mut self) {}
}
