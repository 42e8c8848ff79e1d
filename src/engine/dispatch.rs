//! The session engine: one dispatch task between a transport and a
//! [`Service`].
//!
//! The dispatch task reads frames, runs each line through the core
//! ([`super::wire`]), acts on cancellations, and hands requests to the
//! service in order. It never waits for a call: a call's work runs on its
//! own task, so `ping`, `tools/list`, notifications and cancellations are
//! handled while calls run.
//!
//! Bounds (all from [`EngineConfig`]):
//! * at most `max_concurrent_calls` [`Handled::Call`] futures run at once;
//! * at most `max_queued_calls` wait for a slot, in arrival order; a call
//!   beyond that is answered at once with [`SERVER_BUSY`] (its future is
//!   dropped unpolled), so memory stays bounded however fast a client
//!   writes, and a cancellation is never stuck behind calls;
//! * at most [`MAX_PENDING_LINES`] outbound messages wait for the writer
//!   (a client that does not read stalls the engine, not its memory).
//!
//! Every message leaves as an [`Outgoing`] naming its [`Route`] (the
//! request it answers or reports on, or the session), in completion order. A
//! batch is answered as one array once all its elements are done
//! (JSON-RPC 2.0 §6); an all-notification batch gets nothing.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use serde_json::value::RawValue;
use serde_json::Value;
use tokio::sync::mpsc;

use super::budget::{ByteBudget, Charge};
use super::message::{ErrorObject, Id, Notification, Reply, Request, Response};
use super::render;
#[cfg(any(doc, test))]
use super::service::SERVER_BUSY;
use super::service::{
    server_busy, BoxFuture, CallContext, CancelToken, Handled, Peer, Progress, ProgressReport,
    RefusedLine, Service, PROGRESS_INTERVAL,
};
#[cfg(doc)]
use super::transport::MAX_PENDING_LINES;
use super::transport::{Frame, Outgoing, Route, Transport, MAX_TO_CLIENT_BYTES};
use super::wire::{self, Parsed};
use crate::json::Limits;
use crate::rpc::Message;

/// Most progress reports waiting for the dispatch task (more are dropped).
pub const MAX_PENDING_PROGRESS: usize = 256;
/// Default bound on calls waiting for a slot ([`EngineConfig::max_queued_calls`]).
pub const DEFAULT_MAX_QUEUED_CALLS: usize = 64;

/// Budget of the finished answers waiting for the dispatch task, in bytes
/// of rendered lines: a call's answer is rendered by its own task and
/// queued only once it fits (the task waits, and keeps what it holds,
/// [`super::CallContext::hold`]). At least one whole answer
/// ([`crate::json::MAX_RESPONSE_BYTES`]) fits.
pub const MAX_FINISHED_BYTES: usize = 2 * crate::json::MAX_RESPONSE_BYTES;

/// The engine's bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineConfig {
    /// Calls running at once (at least 1). Default: the machine's available
    /// parallelism.
    pub max_concurrent_calls: usize,
    /// Calls waiting for a slot; beyond this a call gets [`SERVER_BUSY`].
    pub max_queued_calls: usize,
    /// Bound on one message in bytes (the core's payload bound).
    pub max_line_bytes: usize,
    /// Bound on one answer line the engine writes, in bytes of JSON text
    /// (the newline not counted); default [`crate::json::MAX_RESPONSE_BYTES`].
    /// A longer response is replaced by a `-32603` error with data code
    /// `response_too_large`; a batch answer keeps its answers in order
    /// while they fit and replaces the rest so.
    pub max_response_bytes: usize,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            max_concurrent_calls: default_concurrency(),
            max_queued_calls: DEFAULT_MAX_QUEUED_CALLS,
            max_line_bytes: crate::json::MAX_PAYLOAD_BYTES,
            max_response_bytes: crate::json::MAX_RESPONSE_BYTES,
        }
    }
}

/// The machine's available parallelism (1 when unknown).
pub fn default_concurrency() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

struct Done {
    key: u64,
    /// `None`: cancelled or silent, nothing to send.
    answer: Option<Finished>,
    /// What the call's work held for its answer ([`CallContext::hold`]):
    /// given back once the answer is queued toward the client.
    held: Option<Charge>,
}

/// A call's answer on its way to the dispatch task.
enum Finished {
    /// Rendered by the call's task, charged on [`MAX_FINISHED_BYTES`].
    Line {
        id: Option<Id>,
        line: Vec<u8>,
        charge: Charge,
    },
    /// To render with the rest of its batch, or the internal error of a
    /// task torn down (small, and never charged).
    Response(Response),
}

/// Sends `Done` when dropped, so a task that panics or is torn down still
/// frees its slot (with an internal error as its answer).
struct DoneGuard {
    key: u64,
    id: Id,
    tx: mpsc::UnboundedSender<Done>,
    sent: bool,
}

impl DoneGuard {
    fn finish(mut self, answer: Option<Finished>, held: Option<Charge>) {
        self.sent = true;
        let _ = self.tx.send(Done {
            key: self.key,
            answer,
            held,
        });
    }
}

impl Drop for DoneGuard {
    fn drop(&mut self) {
        if !self.sent {
            let error = internal_error(Some(self.id.clone()));
            let _ = self.tx.send(Done {
                key: self.key,
                answer: Some(Finished::Response(error)),
                held: None,
            });
        }
    }
}

/// The answer to a request whose id a request in flight already uses
/// (-32600, `data.kind` `duplicate_id`): its answer could not be told from
/// the other's.
pub(crate) fn duplicate_id(id: Id) -> Response {
    let message = format!("request id {id} is already in use by a request in flight");
    Response::error(
        Some(id),
        ErrorObject {
            code: crate::rpc::INVALID_REQUEST,
            message,
            data: Some(serde_json::json!({ "kind": "duplicate_id", "pointer": "/id" })),
        },
    )
}

fn internal_error(id: Option<Id>) -> Response {
    Response::error(
        id,
        ErrorObject {
            code: -32603,
            message: "internal error: the request's work ended without an answer".into(),
            data: None,
        },
    )
}

struct Call {
    id: Id,
    cancel: CancelToken,
    progress_token: Option<Id>,
    last_progress: Option<Instant>,
    batch: Option<u64>,
    bounded: bool,
    /// What the call's work holds for its answer ([`CallContext::hold`]).
    held: Arc<std::sync::Mutex<Option<Charge>>>,
}

struct Batch {
    responses: Vec<Response>,
    pending: usize,
}

/// The engine serving `S`.
pub struct Engine<S> {
    service: S,
    config: EngineConfig,
    next_key: u64,
    calls: HashMap<u64, Call>,
    by_id: HashMap<Id, u64>,
    queue: VecDeque<(u64, BoxFuture<Reply>)>,
    running: usize,
    batches: HashMap<u64, Batch>,
    done_tx: mpsc::UnboundedSender<Done>,
    done_rx: mpsc::UnboundedReceiver<Done>,
    progress_tx: mpsc::Sender<ProgressReport>,
    progress_rx: mpsc::Receiver<ProgressReport>,
    /// The writer side for server-initiated messages (set by `run`).
    peer: Peer,
    /// [`MAX_FINISHED_BYTES`].
    finished: ByteBudget,
    /// [`MAX_TO_CLIENT_BYTES`].
    to_client: ByteBudget,
}

impl<S: Service> Engine<S> {
    /// An engine serving `service` within `config`'s bounds.
    pub fn new(service: S, config: EngineConfig) -> Self {
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        let (progress_tx, progress_rx) = mpsc::channel(MAX_PENDING_PROGRESS);
        Self {
            service,
            config: EngineConfig {
                max_concurrent_calls: config.max_concurrent_calls.max(1),
                ..config
            },
            next_key: 0,
            calls: HashMap::new(),
            by_id: HashMap::new(),
            queue: VecDeque::new(),
            running: 0,
            batches: HashMap::new(),
            done_tx,
            done_rx,
            progress_tx,
            progress_rx,
            peer: Peer::new(mpsc::channel(1).0, ByteBudget::new(1)),
            finished: ByteBudget::new(MAX_FINISHED_BYTES),
            to_client: ByteBudget::new(MAX_TO_CLIENT_BYTES),
        }
    }

    /// Bytes queued toward the client now ([`MAX_TO_CLIENT_BYTES`]) and
    /// finished answers waiting for the dispatch task
    /// ([`MAX_FINISHED_BYTES`]): the budgets the engine's queues are held
    /// to, shared with the running engine (read them while it runs).
    pub fn budgets(&self) -> (ByteBudget, ByteBudget) {
        (self.to_client.clone(), self.finished.clone())
    }

    /// Serves `transport` until its frames end and every call in flight or
    /// queued has been answered (or the writer side closed). Returns the
    /// service.
    pub async fn run(mut self, transport: Transport) -> S {
        let Transport {
            mut frames,
            outgoing,
        } = transport;
        self.peer = Peer::new(outgoing, self.to_client.clone());
        self.service.attach(self.peer.clone());
        let mut input_open = true;
        // Backpressure: the service's wait before the next message.
        let mut ready = false;
        let mut waiting: Option<BoxFuture<()>> = None;
        let mut out = Output {
            peer: self.peer.clone(),
            open: true,
            max_response_bytes: self.config.max_response_bytes,
        };
        loop {
            if !input_open && self.calls.is_empty() {
                break;
            }
            if !out.open {
                break;
            }
            if input_open && !ready && waiting.is_none() {
                waiting = self.service.ready();
                ready = waiting.is_none();
            }
            tokio::select! {
                biased;
                Some(done) = self.done_rx.recv() => self.on_done(done, &mut out).await,
                Some(report) = self.progress_rx.recv() => self.on_progress(report, &mut out).await,
                () = async {
                    match waiting.as_mut() {
                        Some(w) => w.await,
                        None => std::future::pending().await,
                    }
                }, if waiting.is_some() => {
                    waiting = None;
                    ready = true;
                }
                frame = frames.recv(), if input_open && ready => match frame {
                    Some(Frame::Eof) | None => {
                        input_open = false;
                        tracing::info!("input closed; finishing the calls in flight");
                        self.service.closed();
                    }
                    Some(frame) => {
                        ready = false;
                        self.on_frame(frame, &mut out).await;
                    }
                },
            }
        }
        for call in self.calls.values() {
            call.cancel.cancel();
        }
        out.end().await;
        self.service
    }

    fn limits(&self) -> Limits {
        Limits {
            max_payload_bytes: self.config.max_line_bytes,
            ..Limits::default()
        }
    }

    async fn on_frame(&mut self, frame: Frame, out: &mut Output) {
        let (bytes, parsed) = match frame {
            Frame::Eof => return,
            Frame::Oversized { len, id, request } => {
                // Answered by its id when its kept ends name exactly one
                // (`engine::line_id`), so the client's request is not left
                // waiting; else with `id: null`.
                tracing::warn!(len, id = ?id, "discarded an oversized line");
                let answer = wire::oversized_response(len, self.config.max_line_bytes, id.as_ref());
                let refused = RefusedLine {
                    ids: id.into_iter().collect(),
                    request,
                    answer,
                };
                if let Some(r) = self.service.refused(refused) {
                    out.response(&r).await;
                }
                return;
            }
            Frame::Line(bytes) => {
                let parsed = wire::classify_line(&bytes, &self.limits());
                (bytes, parsed)
            }
            Frame::Vetted(v) => (v.raw, v.parsed),
        };
        match parsed {
            Parsed::Single(message) => {
                let raw: Arc<[u8]> = Arc::from(bytes);
                if let Some(r) = self.on_message(message, raw, None) {
                    out.response(&r).await;
                }
            }
            Parsed::Batch(items) => self.on_batch(&items, out).await,
            Parsed::Response(r) => self.service.response(r),
            Parsed::Answer(Some(r)) => {
                if let Some(r) = self.service.refused(refused_line(&bytes, r)) {
                    out.response(&r).await;
                }
            }
            Parsed::Answer(None) => {}
        }
    }

    async fn on_batch(&mut self, items: &[Box<RawValue>], out: &mut Output) {
        if let Err(error) = self.service.accept_batch(items.len()) {
            out.response(&Response::error(None, error)).await;
            return;
        }
        let key = self.key();
        self.batches.insert(
            key,
            Batch {
                responses: Vec::new(),
                pending: 0,
            },
        );
        let limits = self.limits();
        for item in items {
            let bytes = item.get().as_bytes();
            let immediate = match wire::classify_element(bytes, &limits) {
                Parsed::Single(message) => self.on_message(message, Arc::from(bytes), Some(key)),
                Parsed::Response(r) => {
                    self.service.response(r);
                    None
                }
                Parsed::Answer(r) => r.and_then(|r| self.service.refused(refused_line(bytes, r))),
                Parsed::Batch(_) => None,
            };
            if let (Some(r), Some(b)) = (immediate, self.batches.get_mut(&key)) {
                b.responses.push(r);
            }
        }
        self.flush_batch(key, out).await;
    }

    async fn flush_batch(&mut self, key: u64, out: &mut Output) {
        if self.batches.get(&key).is_some_and(|b| b.pending == 0) {
            if let Some(b) = self.batches.remove(&key) {
                if !b.responses.is_empty() {
                    let ids = b.responses.iter().map(|r| r.id.clone()).collect();
                    let line = render::batch(&b.responses, out.max_response_bytes);
                    out.send(Route::Batch(ids), line).await;
                }
            }
        }
    }

    fn key(&mut self) -> u64 {
        self.next_key = self.next_key.wrapping_add(1);
        self.next_key
    }

    /// Handles one vetted message; returns the response to send now.
    fn on_message(
        &mut self,
        message: Message,
        raw: Arc<[u8]>,
        batch: Option<u64>,
    ) -> Option<Response> {
        let request = match message {
            Message::Notification(n) => {
                if n.method == "notifications/cancelled" {
                    self.on_cancelled(n.params.as_ref());
                }
                self.service.notification(Notification {
                    method: n.method,
                    params: n.params,
                    raw,
                });
                return None;
            }
            Message::Request(r) => r,
        };
        if batch.is_some() && request.method == "initialize" {
            // MCP 2025-03-26: "The initialize request MUST NOT be part of a
            // JSON-RPC batch" (every service).
            return Some(Response::error(
                Some(request.id),
                ErrorObject {
                    code: crate::rpc::INVALID_REQUEST,
                    message: "initialize must not be part of a JSON-RPC batch".into(),
                    data: None,
                },
            ));
        }
        if self.by_id.contains_key(&request.id) {
            return Some(duplicate_id(request.id));
        }
        // A progress token is held while its request runs: bounded as an
        // id is (attack s72-A, F1).
        let too_long = request
            .params
            .as_ref()
            .and_then(|p| p.get("_meta")?.get("progressToken")?.as_str())
            .is_some_and(|t| t.len() > crate::rpc::MAX_ID_BYTES);
        if too_long {
            return Some(Response::error(
                Some(request.id.clone()),
                ErrorObject {
                    code: crate::rpc::INVALID_PARAMS,
                    message: format!(
                        "invalid params: /params/_meta/progressToken is longer than {} bytes",
                        crate::rpc::MAX_ID_BYTES
                    ),
                    data: Some(serde_json::json!({
                        "kind": "invalid_progress_token",
                        "pointer": "/params/_meta/progressToken",
                        "limit": crate::rpc::MAX_ID_BYTES,
                    })),
                },
            ));
        }
        let key = self.key();
        let cancel = CancelToken::new();
        let progress_token = progress_token(request.params.as_ref());
        let held = Arc::default();
        let ctx = CallContext {
            cancel: cancel.clone(),
            progress: progress_token.as_ref().map(|_| Progress {
                key,
                tx: self.progress_tx.clone(),
            }),
            peer: self.peer.clone(),
            held: Arc::clone(&held),
        };
        let id = request.id.clone();
        let call = request.tool_call();
        let handled = self.service.request(
            Request {
                call,
                id: request.id,
                method: request.method,
                params: request.params,
                raw,
                in_batch: batch.is_some(),
            },
            ctx,
        );
        let (future, bounded) = match handled {
            Handled::Reply(Reply::Send(r)) => return Some(r),
            Handled::Reply(Reply::Silent) => return None,
            Handled::Call(f) => (f, true),
            Handled::Task(f) => (f, false),
        };
        if bounded
            && self.running >= self.config.max_concurrent_calls
            && self.queue.len() >= self.config.max_queued_calls
        {
            tracing::warn!(%id, "server busy: call refused");
            return Some(self.busy(id));
        }
        self.calls.insert(
            key,
            Call {
                id: id.clone(),
                cancel,
                progress_token,
                last_progress: None,
                batch,
                bounded,
                held,
            },
        );
        self.by_id.insert(id, key);
        if let Some(b) = batch.and_then(|b| self.batches.get_mut(&b)) {
            b.pending = b.pending.saturating_add(1);
        }
        if bounded && self.running >= self.config.max_concurrent_calls {
            self.queue.push_back((key, future));
        } else {
            self.start(key, future, bounded);
        }
        None
    }

    fn busy(&self, id: Id) -> Response {
        let mut data = serde_json::Map::new();
        data.insert(
            "maxConcurrentCalls".into(),
            self.config.max_concurrent_calls.into(),
        );
        data.insert("maxQueuedCalls".into(), self.config.max_queued_calls.into());
        Response::error(
            Some(id),
            server_busy(
                format!(
                    "server busy: {} calls running and {} queued; retry later",
                    self.config.max_concurrent_calls, self.config.max_queued_calls
                ),
                data,
            ),
        )
    }

    fn start(&mut self, key: u64, future: BoxFuture<Reply>, bounded: bool) {
        if bounded {
            self.running = self.running.saturating_add(1);
        }
        let Some(call) = self.calls.get(&key) else {
            return;
        };
        let cancel = call.cancel.clone();
        let held = Arc::clone(&call.held);
        let in_batch = call.batch.is_some();
        let id = call.id.clone();
        let guard = DoneGuard {
            key,
            id: id.clone(),
            tx: self.done_tx.clone(),
            sent: false,
        };
        let finished = self.finished.clone();
        let max_response_bytes = self.config.max_response_bytes;
        tokio::spawn(async move {
            let reply = tokio::select! {
                biased;
                () = cancel.cancelled() => None,
                reply = future => Some(reply),
            };
            let answer = match reply {
                Some(Reply::Send(mut r)) => {
                    if r.id.is_none() {
                        r.id = Some(id);
                    }
                    if in_batch {
                        Some(Finished::Response(r))
                    } else {
                        // Rendered here, and queued once it fits: until
                        // then the call keeps what it holds.
                        let line = render::response(&r, max_response_bytes);
                        finished
                            .take(line.len())
                            .await
                            .ok()
                            .map(|charge| Finished::Line {
                                id: r.id,
                                line,
                                charge,
                            })
                    }
                }
                Some(Reply::Silent) | None => None,
            };
            let held = held
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take();
            guard.finish(answer, held);
        });
    }

    fn on_cancelled(&mut self, params: Option<&Value>) {
        let Some(id) = params
            .and_then(|p| p.get("requestId"))
            .and_then(|v| serde_json::from_value::<Id>(v.clone()).ok())
        else {
            tracing::debug!("notifications/cancelled without a usable requestId: ignored");
            return;
        };
        let Some(&key) = self.by_id.get(&id) else {
            tracing::debug!(%id, "cancellation of an unknown or finished request: ignored");
            return;
        };
        if let Some(call) = self.calls.get(&key) {
            tracing::info!(%id, "request cancelled by the client");
            call.cancel.cancel();
        }
        // A queued call never started: drop it now and free its place.
        if let Some(pos) = self.queue.iter().position(|(k, _)| *k == key) {
            self.queue.remove(pos);
            self.finish(key);
        }
    }

    /// Forgets `key`; returns its batch, if any.
    fn finish(&mut self, key: u64) -> Option<(Call, Option<u64>)> {
        let call = self.calls.remove(&key)?;
        self.by_id.remove(&call.id);
        let batch = call.batch;
        if let Some(b) = batch.and_then(|b| self.batches.get_mut(&b)) {
            b.pending = b.pending.saturating_sub(1);
        }
        Some((call, batch))
    }

    async fn on_done(&mut self, done: Done, out: &mut Output) {
        // Given back on the way out, once the answer is queued toward the
        // client (or kept with its batch, or dropped).
        let Done { key, answer, held } = done;
        let _held = held;
        let Some((call, batch)) = self.finish(key) else {
            return;
        };
        if call.bounded {
            self.running = self.running.saturating_sub(1);
            while self.running < self.config.max_concurrent_calls {
                let Some((key, future)) = self.queue.pop_front() else {
                    break;
                };
                self.start(key, future, true);
            }
        }
        let answer = if call.cancel.is_cancelled() {
            None
        } else {
            answer
        };
        match (answer, batch) {
            (None, Some(b)) => self.flush_batch(b, out).await,
            (None, None) => {}
            (Some(Finished::Response(mut r)), Some(b)) => {
                if r.id.is_none() {
                    r.id = Some(call.id.clone());
                }
                if let Some(batch) = self.batches.get_mut(&b) {
                    batch.responses.push(r);
                }
                self.flush_batch(b, out).await;
            }
            (Some(Finished::Response(r)), None) => out.response(&r).await,
            // Queued toward the client (charged there) before its charge
            // here is given back.
            (Some(Finished::Line { id, line, charge }), _) => {
                out.send(Route::Response(id), line).await;
                drop(charge);
            }
        }
    }

    async fn on_progress(&mut self, report: ProgressReport, out: &mut Output) {
        let Some(call) = self.calls.get_mut(&report.key) else {
            return; // finished: progress never follows the result
        };
        let Some(token) = &call.progress_token else {
            return;
        };
        if call.cancel.is_cancelled() {
            return;
        }
        let now = Instant::now();
        let last = report.total.is_some_and(|t| report.progress >= t);
        if !last
            && call
                .last_progress
                .is_some_and(|t| now.duration_since(t) < PROGRESS_INTERVAL)
        {
            return;
        }
        call.last_progress = Some(now);
        let line = render::progress(
            token,
            report.progress,
            report.total,
            report.message.as_deref(),
        );
        out.send(Route::Request(call.id.clone()), line).await;
    }
}

/// A line (or batch element) the core refused, with the core's `answer`,
/// as [`Service::refused`] reads it.
fn refused_line(bytes: &[u8], answer: Response) -> RefusedLine {
    RefusedLine {
        ids: super::recover::id_candidates(bytes),
        request: super::recover::names_string_member(bytes, "method"),
        answer,
    }
}

/// The `_meta.progressToken` of a request's params, when it is a string or
/// an integer (MCP "Progress").
fn progress_token(params: Option<&Value>) -> Option<Id> {
    let token = params?.get("_meta")?.get("progressToken")?;
    serde_json::from_value(token.clone()).ok()
}

struct Output {
    peer: Peer,
    open: bool,
    max_response_bytes: usize,
}

impl Output {
    async fn send(&mut self, route: Route, line: Vec<u8>) {
        if self.peer.send_line(route, line).await.is_err() {
            self.closed();
        }
    }

    async fn response(&mut self, r: &Response) {
        let line = render::response(r, self.max_response_bytes);
        self.send(Route::Response(r.id.clone()), line).await;
    }

    async fn end(&mut self) {
        if self.peer.put(Outgoing::End).await.is_err() {
            self.closed();
        }
    }

    fn closed(&mut self) {
        tracing::info!("output closed, stopping");
        self.open = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::transport::stdio;
    use serde_json::json;
    use std::time::Duration;

    /// `sleep` waits `params.ms` on a call slot; `task` the same unbounded;
    /// `notify` sends a session notification, then answers; `ping` answers
    /// at once.
    struct Toy;

    impl Service for Toy {
        fn request(&mut self, request: Request, ctx: CallContext) -> Handled {
            let ms = request
                .params
                .as_ref()
                .and_then(|p| p.get("ms"))
                .and_then(Value::as_u64)
                .unwrap_or(0);
            let id = request.id.clone();
            let peer = ctx.peer.clone();
            let work = async move {
                if let Some(p) = &ctx.progress {
                    p.report(1, Some(2), None);
                }
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Reply::Send(Response::result(id, json!({"slept": ms})))
            };
            match request.method.as_str() {
                "sleep" => Handled::Call(Box::pin(work)),
                "task" => Handled::Task(Box::pin(work)),
                "notify" => Handled::Task(Box::pin(async move {
                    let note = crate::engine::Outbound::Notification {
                        method: "notifications/message".into(),
                        params: None,
                    };
                    let _ = peer.send(note).await;
                    Reply::Send(Response::result(request.id, json!({})))
                })),
                _ => Handled::Reply(Reply::Send(Response::result(request.id, json!({})))),
            }
        }

        fn accept_batch(&mut self, _len: usize) -> Result<(), ErrorObject> {
            Ok(())
        }

        /// Takes a bad line naming the id `"mine"` and no method as its own.
        fn refused(&mut self, refused: RefusedLine) -> Option<Response> {
            let mine = Id::String("mine".into());
            (refused.request || !refused.ids.contains(&mine)).then_some(refused.answer)
        }
    }

    /// A refused line the service takes (attack s49 F27: a client's bad
    /// answer to a server request) gets no answer from the engine, single,
    /// in a batch or over the bound; any other keeps the core's answer.
    #[test]
    fn a_refused_line_the_service_takes_is_not_answered() {
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":"mine","result":"{}"}}"#,
            "a".repeat(200)
        );
        let input = [
            r#"{"jsonrpc":"2.0","id":"mine","result":{}} trailing"#,
            r#"[{"id":"mine","result":{}}]"#,
            big.as_str(),
            r#"{"jsonrpc":"2.0","id":"other","result":{}} trailing"#,
            r#"{"jsonrpc":"2.0","id":"mine","method":"ping","params":{},"params":{}}"#,
        ]
        .join("\n");
        let config = EngineConfig {
            max_line_bytes: 100,
            ..config(1, 1)
        };
        let out = session(&input, config);
        let ids: Vec<&Value> = out.iter().map(|v| &v["id"]).collect();
        assert_eq!(ids, [&json!("other"), &json!("mine")], "{out:?}");
        assert!(out.iter().all(|v| v["error"]["code"] == -32700), "{out:?}");
    }

    fn session(input: &str, config: EngineConfig) -> Vec<Value> {
        let (_, out) = stdio::serve(
            Toy,
            config,
            std::io::Cursor::new(input.as_bytes().to_vec()),
            Vec::new(),
        )
        .unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn config(calls: usize, queued: usize) -> EngineConfig {
        EngineConfig {
            max_concurrent_calls: calls,
            max_queued_calls: queued,
            ..EngineConfig::default()
        }
    }

    #[test]
    fn ping_overtakes_a_slow_call_and_cancellation_silences_one() {
        let rs = session(
            concat!(
                r#"{"jsonrpc":"2.0","id":1,"method":"sleep","params":{"ms":300}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":2,"method":"sleep","params":{"ms":5000}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77}}"#,
                "\n",
            ),
            config(2, 4),
        );
        let ids: Vec<_> = rs.iter().map(|r| r["id"].clone()).collect();
        assert_eq!(ids, [json!(3), json!(1)], "{rs:?}");
    }

    /// A progress token is held while its call runs: one of exactly
    /// `rpc::MAX_ID_BYTES` bytes is taken, a longer one (by one byte or
    /// two) is invalid params with its pointer and limit, the call never
    /// run (attack s72-A, F2).
    #[test]
    fn progress_tokens_are_bounded_in_bytes() {
        let mut input = String::new();
        for (id, len) in [
            (1, crate::rpc::MAX_ID_BYTES),
            (2, crate::rpc::MAX_ID_BYTES + 1),
            (3, crate::rpc::MAX_ID_BYTES + 2),
        ] {
            let line = json!({"jsonrpc": "2.0", "id": id, "method": "sleep",
                              "params": {"ms": 0, "_meta": {"progressToken": "t".repeat(len)}}});
            input.push_str(&format!("{line}\n"));
        }
        let rs = session(&input, config(4, 4));
        let by_id = |id: u64| rs.iter().find(|r| r["id"] == id).unwrap();
        assert_eq!(by_id(1)["result"]["slept"], 0, "{rs:?}");
        for id in [2, 3] {
            let e = &by_id(id)["error"];
            assert_eq!(e["code"], crate::rpc::INVALID_PARAMS, "{rs:?}");
            assert_eq!(e["data"]["kind"], "invalid_progress_token", "{rs:?}");
            assert_eq!(e["data"]["pointer"], "/params/_meta/progressToken");
            assert_eq!(e["data"]["limit"], crate::rpc::MAX_ID_BYTES);
        }
        assert_eq!(
            rs.iter()
                .filter(|r| r["method"] == "notifications/progress")
                .count(),
            1,
            "{rs:?}"
        );
    }

    #[test]
    fn beyond_the_queue_a_call_is_busy_at_once() {
        let mut input = String::new();
        for i in 1..=4 {
            input.push_str(&format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"sleep\",\"params\":{{\"ms\":100}}}}\n"
            ));
        }
        let rs = session(&input, config(1, 2));
        assert_eq!(rs.len(), 4);
        assert_eq!(rs[0]["id"], 4);
        assert_eq!(rs[0]["error"]["code"], SERVER_BUSY);
        assert_eq!(rs[0]["error"]["data"]["code"], "server_busy");
        let done: Vec<_> = rs[1..].iter().map(|r| r["id"].clone()).collect();
        assert_eq!(done, [json!(1), json!(2), json!(3)]);
    }

    #[test]
    fn a_batch_is_one_array_once_every_element_is_done() {
        let rs = session(
            concat!(
                r#"[{"jsonrpc":"2.0","id":1,"method":"sleep","params":{"ms":100}},"#,
                r#"{"jsonrpc":"2.0","id":2,"method":"ping"},"#,
                r#"{"jsonrpc":"2.0","method":"note"},"#,
                r#"{"jsonrpc":"2.0","id":3,"method":"task","params":{"ms":10}}]"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#,
                "\n",
            ),
            config(2, 4),
        );
        assert_eq!(rs.len(), 2, "{rs:?}");
        assert_eq!(rs[0]["id"], 4);
        let ids: Vec<_> = rs[1]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].clone())
            .collect();
        assert_eq!(ids, [json!(2), json!(3), json!(1)]);
    }

    #[test]
    fn progress_comes_before_the_result_and_carries_the_token() {
        let rs = session(
            concat!(
                r#"{"jsonrpc":"2.0","id":1,"method":"sleep","params":{"ms":50,"_meta":{"progressToken":"p"}}}"#,
                "\n",
            ),
            config(2, 4),
        );
        assert_eq!(rs.len(), 2, "{rs:?}");
        assert_eq!(rs[0]["method"], "notifications/progress");
        assert_eq!(rs[0]["params"]["progressToken"], "p");
        assert_eq!(rs[1]["id"], 1);
    }

    #[test]
    fn an_id_in_flight_is_not_reused() {
        let rs = session(
            concat!(
                r#"{"jsonrpc":"2.0","id":1,"method":"sleep","params":{"ms":100}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":1,"method":"sleep","params":{"ms":1}}"#,
                "\n",
            ),
            config(2, 4),
        );
        assert_eq!(rs.len(), 2);
        assert_eq!(rs[0]["error"]["code"], -32600);
        assert_eq!(rs[1]["result"]["slept"], 100);
    }

    /// What the engine hands its transport names where each message goes:
    /// a router that delivers by the route alone puts every response in
    /// the mailbox of the request it answers, progress before its
    /// response, and the end last.
    #[test]
    fn a_transport_routes_each_message_by_the_request_it_names() {
        let lines = [
            r#"{"jsonrpc":"2.0","id":1,"method":"sleep","params":{"ms":80,"_meta":{"progressToken":"p"}}}"#,
            r#"{"jsonrpc":"2.0","id":"b","method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"notify"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method"#,
            r#"{"jsonrpc":"2.0","id":6,"id":7,"method"#,
            r#"[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"sleep","params":{"ms":5}}]"#,
        ];
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let all = runtime.block_on(async {
            let (frame_tx, frames) = mpsc::channel(16);
            let (outgoing, mut rx) = mpsc::channel(64);
            let engine = Engine::new(Toy, config(2, 4));
            let drive = async move {
                for line in lines {
                    frame_tx
                        .send(Frame::Line(line.as_bytes().to_vec()))
                        .await
                        .unwrap();
                }
                frame_tx.send(Frame::Eof).await.unwrap();
                let mut all = Vec::new();
                while let Some(m) = rx.recv().await {
                    let end = m == Outgoing::End;
                    all.push(m);
                    if end {
                        break;
                    }
                }
                all
            };
            let (_, all) = tokio::join!(engine.run(Transport { frames, outgoing }), drive);
            all
        });
        assert_eq!(all.last(), Some(&Outgoing::End), "{all:?}");
        let mut mailboxes: HashMap<Id, Vec<Value>> = HashMap::new();
        let (mut unknown, mut session, mut batches) = (0, 0, 0);
        for m in &all[..all.len() - 1] {
            let Outgoing::Message { route, line, .. } = m else {
                panic!("End before the last message: {all:?}");
            };
            assert!(line.ends_with(b"\n"));
            let v: Value = serde_json::from_slice(line).unwrap();
            match route {
                Route::Response(Some(id)) => {
                    assert_eq!(v["id"], id.to_value(), "{v}");
                    mailboxes.entry(id.clone()).or_default().push(v);
                }
                Route::Response(None) => {
                    assert_eq!(v["id"], Value::Null, "{v}");
                    unknown += 1;
                }
                Route::Request(id) => {
                    assert_eq!(v["method"], "notifications/progress", "{v}");
                    let mailbox = mailboxes.entry(id.clone()).or_default();
                    assert!(mailbox.is_empty(), "progress after the response of {id}");
                    mailbox.push(v);
                }
                Route::Batch(ids) => {
                    let got: Vec<Value> = v
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|r| r["id"].clone())
                        .collect();
                    let named: Vec<Value> = ids
                        .iter()
                        .map(|i| i.as_ref().map_or(Value::Null, Id::to_value))
                        .collect();
                    assert_eq!(got, named);
                    assert_eq!(got, [json!(4), json!(5)]);
                    batches += 1;
                }
                Route::Session => {
                    assert_eq!(v["method"], "notifications/message", "{v}");
                    session += 1;
                }
            }
        }
        assert_eq!((unknown, session, batches), (1, 1, 1), "{all:?}");
        // A cut line naming one id is answered to that request's mailbox.
        assert_eq!(mailboxes[&Id::from(3)][0]["error"]["code"], -32700);
        let one = &mailboxes[&Id::from(1)];
        assert_eq!(one.len(), 2, "{one:?}");
        assert_eq!(one[0]["params"]["progressToken"], "p");
        assert_eq!(one[1]["result"]["slept"], 80);
        assert_eq!(mailboxes[&Id::from("b")][0]["result"], json!({}));
        assert_eq!(mailboxes[&Id::from(2)][0]["result"], json!({}));
        assert_eq!(mailboxes.len(), 4);
    }
}
