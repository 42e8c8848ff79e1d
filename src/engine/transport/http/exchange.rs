//! One HTTP request: the head checks, the bounded body, the one parse, and
//! the answer the engine gives (or the transport's refusal).

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::channel::Channel;
use http_body_util::{BodyExt, Either, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderValue, CONTENT_LENGTH};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{json, Value};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

use super::guard::{self, Accepts, SESSION_HEADER};
use super::refusal::{Kind, Refusal};
use super::session::{Delivery, Session, Sessions};
use super::{mirror, HttpConfig, MakeService, BODY_READ_TIMEOUT, ENDPOINT_PATH};
use super::{RESOURCE_METADATA_PATH, RETRY_AFTER_SECONDS, SESSION_IDLE_TIMEOUT};
use crate::engine::wire::{Id, Parsed, Vetted};
use crate::engine::{has_stateless_envelope, Revision, Service};
use crate::json::Limits;
use crate::rpc::Message;

/// A response body: whole, or an event stream.
pub(super) type Body = Either<Full<Bytes>, Channel<Bytes, Infallible>>;

/// What every request of one endpoint shares.
pub(super) struct Shared<S> {
    make: MakeService<S>,
    config: HttpConfig,
    sessions: Sessions,
    /// Bodies being read (each a POST whose message is not known yet).
    reading: Arc<Semaphore>,
    /// Requests read and not yet answered.
    in_flight: Arc<Semaphore>,
}

impl<S: Service> Shared<S> {
    pub(super) fn new(make: MakeService<S>, config: HttpConfig) -> Self {
        Self {
            make,
            sessions: Sessions::new(config.max_sessions.max(1), SESSION_IDLE_TIMEOUT),
            reading: Arc::new(Semaphore::new(config.max_in_flight.max(1))),
            in_flight: Arc::new(Semaphore::new(config.max_in_flight.max(1))),
            config,
        }
    }

    fn limits(&self) -> Limits {
        Limits {
            max_payload_bytes: self.config.engine.max_line_bytes,
            ..Limits::default()
        }
    }

    fn start(&self, credential: [u8; 32]) -> Result<Session, Refusal> {
        let service = (self.make)().map_err(|e| {
            tracing::warn!(error = %e, "cannot start a session's service");
            Refusal::new(Kind::Busy, format!("cannot start a session: {e}"))
        })?;
        Ok(Session::start(service, self.config.engine, credential))
    }
}

/// Answers one request (never fails: every failure is a status).
pub(super) async fn handle<S: Service>(
    shared: Arc<Shared<S>>,
    req: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    let host = req
        .headers()
        .get(hyper::header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    Ok(match answer(&shared, req).await {
        Ok(r) => r,
        Err(refusal) => refused(&shared.config, host.as_deref(), &refusal),
    })
}

async fn answer<S: Service>(
    shared: &Shared<S>,
    req: Request<Incoming>,
) -> Result<Response<Body>, Refusal> {
    let (parts, body) = req.into_parts();
    let config = &shared.config;
    guard::check_origin_of(
        &parts.headers,
        parts.uri.authority().map(|a| a.as_str()),
        &config.allow,
    )?;
    let path = parts.uri.path();
    if let Some(issuer) = &config.issuer {
        if path == RESOURCE_METADATA_PATH
            || path == format!("{RESOURCE_METADATA_PATH}{ENDPOINT_PATH}")
        {
            return Ok(resource_metadata(&parts.headers, issuer));
        }
    }
    guard::check_bearer(&parts.headers, config.token.as_ref())?;
    if path != ENDPOINT_PATH {
        return Err(Refusal::new(
            Kind::NotFound,
            format!("no MCP endpoint here: it is {ENDPOINT_PATH}"),
        ));
    }
    match parts.method {
        Method::POST => post(shared, &parts.headers, body).await,
        Method::DELETE => delete(shared, &parts.headers),
        _ => Err(Refusal::new(
            Kind::MethodNotAllowed,
            "the endpoint takes POST (and DELETE to end a session); no GET stream is offered",
        )),
    }
}

fn delete<S: Service>(shared: &Shared<S>, headers: &HeaderMap) -> Result<Response<Body>, Refusal> {
    let Some(id) = guard::session_id(headers)? else {
        return Err(Refusal::new(
            Kind::MethodNotAllowed,
            "DELETE ends a session: send its Mcp-Session-Id",
        ));
    };
    if shared.sessions.remove(id, &guard::credential(headers)) {
        Ok(status_only(StatusCode::NO_CONTENT))
    } else {
        Err(unknown_session())
    }
}

fn unknown_session() -> Refusal {
    Refusal::new(
        Kind::UnknownSession,
        "no such session (it ended, or another credential created it): send initialize again",
    )
}

async fn post<S: Service>(
    shared: &Shared<S>,
    headers: &HeaderMap,
    body: Incoming,
) -> Result<Response<Body>, Refusal> {
    guard::check_content_type(headers)?;
    let accepts = guard::check_accept(headers)?;
    // Refused once the body names the request's id (an error answer
    // carries it).
    let version_read = guard::protocol_version(headers);
    let credential = guard::credential(headers);
    let session = match guard::session_id(headers)? {
        Some(id) => Some(
            shared
                .sessions
                .get(id, &credential)
                .ok_or_else(unknown_session)?,
        ),
        None => None,
    };
    // Two bounds: bodies being read, and requests waiting for their
    // answers. A client's answer to a server request, or a notification,
    // needs only the first (held while its body is read): requests in
    // flight, even all of them waiting on the client, never keep the
    // client's answer out.
    let reading = Arc::clone(&shared.reading)
        .try_acquire_owned()
        .map_err(|_| Refusal::new(Kind::Busy, "too many requests being read; retry later"))?;
    let bytes = read_body(headers, body, shared.config.engine.max_line_bytes).await?;
    drop(reading);
    let vetted = Vetted::parse(bytes, &shared.limits());
    let in_flight = || {
        Arc::clone(&shared.in_flight)
            .try_acquire_owned()
            .map_err(|_| Refusal::new(Kind::Busy, "too many requests in flight; retry later"))
    };
    let (id, envelope) = match &vetted.parsed {
        Parsed::Single(Message::Request(r)) => (
            Some(r.id.clone()),
            has_stateless_envelope(r.params.as_ref().and_then(Value::as_object)),
        ),
        _ => (None, false),
    };
    // The revisions a request of its era could name (as server/discover
    // and the engine's -32022 list them).
    let supported = if envelope {
        crate::engine::stateless_versions()
    } else {
        crate::engine::supported_versions()
    };
    let version = version_read.map_err(|r| {
        r.with_id(id.clone())
            .with_data("supported", supported.into())
    })?;
    if let (Some(s), Some(v)) = (&session, version) {
        if let Some(agreed) = s.revision().filter(|a| *a != v) {
            return Err(Refusal::new(
                Kind::BadProtocolVersion,
                format!(
                    "MCP-Protocol-Version {} is not this session's revision {}",
                    v.as_str(),
                    agreed.as_str()
                ),
            )
            .with_data("supported", vec![agreed.as_str()].into())
            .with_data("requested", v.as_str().into())
            .with_id(id));
        }
    }
    let request = match &vetted.parsed {
        Parsed::Answer(Some(r)) => {
            let line = crate::engine::render::response(r, shared.config.engine.max_response_bytes);
            return Ok(json_response(StatusCode::BAD_REQUEST, line));
        }
        Parsed::Answer(None) => return Ok(status_only(StatusCode::ACCEPTED)),
        Parsed::Response(_) => {
            if let Some(s) = &session {
                let _ = s.send(vetted).await;
            }
            return Ok(status_only(StatusCode::ACCEPTED));
        }
        Parsed::Batch(items) => {
            let answered = items.iter().any(|i| {
                !matches!(
                    crate::engine::wire::classify_element(i.get().as_bytes(), &shared.limits()),
                    Parsed::Single(Message::Notification(_))
                        | Parsed::Response(_)
                        | Parsed::Answer(None)
                )
            });
            let permit = if answered { Some(in_flight()?) } else { None };
            let r = batch(session, version, vetted, answered, accepts).await;
            drop(permit);
            return r;
        }
        Parsed::Single(Message::Notification(n)) => {
            let params = n.params.as_ref().and_then(Value::as_object);
            if stateless(version, params) {
                mirror::check(headers, false, &n.method, params)?;
            }
            // Read before the message moves to the engine, which acts on
            // it first (the request's answer is then never sent).
            let cancelled = (n.method == "notifications/cancelled")
                .then(|| params?.get("requestId"))
                .flatten()
                .and_then(|v| serde_json::from_value::<Id>(v.clone()).ok());
            if let Some(s) = &session {
                let _ = s.send(vetted).await;
                if let Some(id) = cancelled {
                    s.cancelled(&id);
                }
            }
            return Ok(status_only(StatusCode::ACCEPTED));
        }
        Parsed::Single(Message::Request(r)) => r,
    };
    let id = request.id.clone();
    let params = request.params.as_ref().and_then(Value::as_object);
    let is_stateless = stateless(version, params) || request.method == "server/discover";
    if is_stateless {
        mirror::check(headers, true, &request.method, params)
            .map_err(|r| r.with_id(Some(id.clone())))?;
        // The header names the stateless revision: the body must carry its
        // envelope (the engine would take a bare request for the other era).
        if !has_stateless_envelope(params) && request.method != "server/discover" {
            if let Err(e) = crate::engine::stateless_envelope(&id, params) {
                let body = e.to_response().to_string().into_bytes();
                return Ok(json_response(StatusCode::BAD_REQUEST, body));
            }
        }
        if request.method == "initialize" {
            return Err(Refusal::new(
                Kind::MethodNotFound,
                "method not found: initialize (not a 2026-07-28 method: carry the _meta envelope in every request)",
            )
            .with_id(Some(id)));
        }
    }
    let permit = in_flight().map_err(|r| r.with_id(Some(id.clone())))?;
    let initialize = request.method == "initialize";
    // Whatever the service sends about the request before its answer
    // (progress, log messages, a request for the client) opens an event
    // stream; an answer that comes alone is sent whole.
    let stream = accepts.sse;
    let call = Call {
        id,
        accepts,
        stream,
        stateless: is_stateless,
        permit,
    };
    match session {
        Some(s) => call.run::<S>(s, vetted, false, None).await,
        None if initialize && !is_stateless => {
            let s = Arc::new(shared.start(credential)?);
            let call = Call {
                stream: false,
                ..call
            };
            call.run(Arc::clone(&s), vetted, false, Some((shared, s))).await
        }
        None if is_stateless => {
            let s = Arc::new(shared.start(credential)?);
            call.run::<S>(s, vetted, true, None).await
        }
        None => Err(Refusal::new(
            Kind::SessionRequired,
            "send initialize first and carry its Mcp-Session-Id, or carry the 2026-07-28 _meta envelope",
        )
        .with_id(Some(call.id))),
    }
}

/// Whether a message is of the stateless era: its header or its `_meta`
/// names a stateless revision.
fn stateless(version: Option<Revision>, params: Option<&serde_json::Map<String, Value>>) -> bool {
    version.is_some_and(|v| !v.is_handshake()) || has_stateless_envelope(params)
}

async fn batch(
    session: Option<Arc<Session>>,
    version: Option<Revision>,
    vetted: Vetted,
    answered: bool,
    accepts: Accepts,
) -> Result<Response<Body>, Refusal> {
    let allowed = version.is_none_or(Revision::allows_batches)
        && session
            .as_ref()
            .is_some_and(|s| s.revision().is_some_and(Revision::allows_batches));
    let Some(s) = session.filter(|_| allowed) else {
        return Err(Refusal::new(
            Kind::BatchNotAllowed,
            "JSON-RPC batches are accepted only in a 2025-03-26 session",
        ));
    };
    if !answered {
        let _ = s.send(vetted).await;
        return Ok(status_only(StatusCode::ACCEPTED));
    }
    let mut rx = s
        .wait_for(None)
        .ok_or_else(|| Refusal::new(Kind::Busy, "another batch of this session is in flight"))?;
    s.send(vetted)
        .await
        .map_err(|()| Refusal::new(Kind::Busy, "the session has ended"))?;
    match answer_line(&mut rx).await {
        Some(Delivery::Answer(line)) => Ok(whole(accepts, line, None)),
        _ => Err(Refusal::new(
            Kind::Busy,
            "the session ended before answering",
        )),
    }
}

/// One request on its way through a session.
struct Call {
    id: Id,
    accepts: Accepts,
    /// Answer with an event stream as messages come (progress).
    stream: bool,
    /// A 2026-07-28 request: an error answer's status tells its class
    /// ([`stateless_status`]).
    stateless: bool,
    permit: OwnedSemaphorePermit,
}

/// Forgets the request's waiter when the POST is dropped before its
/// answer; in the stateless era it cancels the request too.
struct Pending {
    session: Arc<Session>,
    id: Id,
    cancel: bool,
    done: bool,
}

impl Drop for Pending {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        self.session.forget(&self.id);
        if self.cancel {
            let line = json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": self.id.to_value(), "reason": "the HTTP client went away"},
            });
            self.session.try_send_line(line.to_string().into_bytes());
        }
    }
}

impl Call {
    async fn run<S: Service>(
        self,
        session: Arc<Session>,
        vetted: Vetted,
        cancel_on_drop: bool,
        new_session: Option<(&Shared<S>, Arc<Session>)>,
    ) -> Result<Response<Body>, Refusal> {
        let Some(mut rx) = session.wait_for(Some(&self.id)) else {
            // As the engine answers an id in flight: 200 in the handshake
            // era, 400 in the stateless one.
            let r = crate::engine::dispatch::duplicate_id(self.id.clone());
            let status = if self.stateless {
                StatusCode::BAD_REQUEST
            } else {
                StatusCode::OK
            };
            return Ok(json_response(
                status,
                crate::engine::render::response(&r, usize::MAX),
            ));
        };
        let mut pending = Pending {
            session: Arc::clone(&session),
            id: self.id.clone(),
            cancel: cancel_on_drop,
            done: false,
        };
        session.send(vetted).await.map_err(|()| {
            Refusal::new(Kind::Busy, "the session has ended").with_id(Some(self.id.clone()))
        })?;
        // An event stream only once a progress notification comes first: an
        // answer that comes alone is sent whole (as JSON when the client
        // takes it; clients bound one event, the Python SDK to 1 MiB).
        let first = if self.stream {
            match rx.recv().await {
                Some(Delivery::Progress(p)) => {
                    return Ok(stream(p, rx, pending, self.permit));
                }
                other => other,
            }
        } else {
            answer_line(&mut rx).await
        };
        pending.done = true;
        let line = match first {
            Some(Delivery::Answer(line)) => line,
            Some(Delivery::Unanswered) => return Ok(no_answer(self.accepts)),
            Some(Delivery::Progress(_)) | None => {
                pending.done = false;
                return Err(
                    Refusal::new(Kind::Busy, "the session ended before answering")
                        .with_id(Some(self.id.clone())),
                );
            }
        };
        drop(self.permit);
        let session_id = match new_session {
            Some((shared, s)) => match agreed(&line) {
                Some(rev) => {
                    s.set_revision(rev);
                    Some(shared.sessions.insert(s).ok_or_else(|| {
                        Refusal::new(
                            Kind::Busy,
                            "every session is in use: retry later (its initialize was not kept)",
                        )
                        .with_id(Some(self.id.clone()))
                    })?)
                }
                None => None,
            },
            None => None,
        };
        let status = if self.stateless {
            stateless_status(&line)
        } else {
            StatusCode::OK
        };
        let mut r = whole(self.accepts, line, session_id);
        *r.status_mut() = status;
        Ok(r)
    }
}

/// The status of a 2026-07-28 answer: 404 for a method not found, 400 for
/// an invalid request or params, a parse error, mirrored headers unlike the
/// body, a missing client capability or a revision not served; 200
/// otherwise (a tool's failure is a result).
fn stateless_status(line: &[u8]) -> StatusCode {
    use crate::engine::wire::code;
    match crate::engine::render::error_code(line) {
        Some(crate::rpc::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            crate::rpc::INVALID_REQUEST
            | crate::rpc::INVALID_PARAMS
            | crate::rpc::PARSE_ERROR
            | code::UNSUPPORTED_PROTOCOL_VERSION
            | code::MISSING_CLIENT_CAPABILITY
            | code::HEADER_MISMATCH,
        ) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// An event stream of `first`, then every delivery up to the answer; the
/// request stays pending (and in flight) until the answer is written.
fn stream(
    first: Vec<u8>,
    mut rx: mpsc::Receiver<Delivery>,
    mut pending: Pending,
    permit: OwnedSemaphorePermit,
) -> Response<Body> {
    let (mut tx, body) = Channel::new(super::session::MAX_WAITING_DELIVERIES);
    tokio::spawn(async move {
        let mut next = Some(Delivery::Progress(first));
        while let Some(d) = next.take() {
            let (line, last) = match d {
                Delivery::Progress(l) => (l, false),
                Delivery::Answer(l) => (l, true),
                // Cancelled: the stream ends with no answer.
                Delivery::Unanswered => {
                    pending.done = true;
                    break;
                }
            };
            if last {
                pending.done = true;
            }
            if tx.send_data(sse_event(&line)).await.is_err() || last {
                break;
            }
            next = rx.recv().await;
        }
        drop(pending);
        drop(permit);
    });
    let mut r = Response::new(Either::Right(body));
    set_sse_headers(r.headers_mut());
    r
}

/// The revision a successful `initialize` answer agreed; `None` for an
/// error (no session is kept then).
fn agreed(line: &[u8]) -> Option<Revision> {
    let v: Value = serde_json::from_slice(line).ok()?;
    Revision::parse(v.get("result")?.get("protocolVersion")?.as_str()?)
}

/// The answer ([`Delivery::Answer`], or [`Delivery::Unanswered`] for a
/// cancelled request), skipping progress nobody streams; `None` when the
/// session ended first.
async fn answer_line(rx: &mut mpsc::Receiver<Delivery>) -> Option<Delivery> {
    while let Some(d) = rx.recv().await {
        if !matches!(d, Delivery::Progress(_)) {
            return Some(d);
        }
    }
    None
}

/// The POST of a request the client cancelled: no JSON-RPC answer follows
/// (MCP cancellation), so an empty event stream when the client takes
/// one, else 204.
fn no_answer(accepts: Accepts) -> Response<Body> {
    if accepts.sse {
        let mut r = Response::new(Either::Left(Full::new(Bytes::new())));
        set_sse_headers(r.headers_mut());
        r
    } else {
        status_only(StatusCode::NO_CONTENT)
    }
}

/// A whole answer: JSON when the client takes it, else a one-event stream.
fn whole(accepts: Accepts, line: Vec<u8>, session_id: Option<String>) -> Response<Body> {
    let mut r = if accepts.json {
        json_response(StatusCode::OK, line)
    } else {
        let mut r = Response::new(Either::Left(Full::new(sse_event(&line))));
        set_sse_headers(r.headers_mut());
        r
    };
    if let Some(id) = session_id.and_then(|id| HeaderValue::from_str(&id).ok()) {
        r.headers_mut().insert(SESSION_HEADER, id);
    }
    r
}

fn set_sse_headers(h: &mut HeaderMap) {
    h.insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(
        hyper::header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache"),
    );
}

/// One server-sent event carrying one message (its line has no newline
/// inside, so one `data:` line holds it).
fn sse_event(line: &[u8]) -> Bytes {
    let json = line.strip_suffix(b"\n").unwrap_or(line);
    let mut out = Vec::with_capacity(json.len() + 24);
    out.extend_from_slice(b"event: message\ndata: ");
    out.extend_from_slice(json);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

fn json_response(status: StatusCode, line: Vec<u8>) -> Response<Body> {
    let mut line = line;
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    let mut r = Response::new(Either::Left(Full::new(Bytes::from(line))));
    *r.status_mut() = status;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

fn status_only(status: StatusCode) -> Response<Body> {
    let mut r = Response::new(Either::Left(Full::new(Bytes::new())));
    *r.status_mut() = status;
    r
}

/// The body, at most `max` bytes, within [`BODY_READ_TIMEOUT`]: a declared
/// length over the bound is refused before a byte is read, any other body
/// as soon as it passes the bound.
async fn read_body(headers: &HeaderMap, body: Incoming, max: usize) -> Result<Vec<u8>, Refusal> {
    let too_large = || {
        Refusal::new(
            Kind::PayloadTooLarge,
            format!("the body is over the payload bound of {max} bytes"),
        )
    };
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return Err(too_large());
    }
    let collected = tokio::time::timeout(BODY_READ_TIMEOUT, Limited::new(body, max).collect())
        .await
        .map_err(|_| {
            Refusal::new(
                Kind::RequestTimeout,
                format!(
                    "the body did not arrive within {} s",
                    BODY_READ_TIMEOUT.as_secs()
                ),
            )
        })?;
    match collected {
        Ok(c) => Ok(c.to_bytes().to_vec()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Err(e) => Err(Refusal::new(
            Kind::BadBody,
            format!("cannot read the body: {e}"),
        )),
    }
}

/// A refusal as its status, headers and JSON-RPC error body.
/// (`host` names the resource metadata of a 401; a 401 comes only after the
/// `Host` check passed.)
fn refused(config: &HttpConfig, host: Option<&str>, refusal: &Refusal) -> Response<Body> {
    let status = StatusCode::from_u16(refusal.kind.status()).unwrap_or(StatusCode::BAD_REQUEST);
    let mut r = json_response(status, refusal.body().to_string().into_bytes());
    let h = r.headers_mut();
    match refusal.kind {
        Kind::Busy => {
            h.insert(
                hyper::header::RETRY_AFTER,
                HeaderValue::from(RETRY_AFTER_SECONDS),
            );
        }
        Kind::MethodNotAllowed => {
            h.insert(
                hyper::header::ALLOW,
                HeaderValue::from_static("POST, DELETE"),
            );
        }
        Kind::Unauthorized => {
            // RFC 6750 §3: an error code only when a token was presented.
            let mut params = Vec::new();
            if let Some(code) = refusal.data.get("error").and_then(Value::as_str) {
                params.push(format!("error=\"{code}\""));
            }
            if let (Some(_), Some(host)) = (&config.issuer, host) {
                params.push(format!(
                    "resource_metadata=\"http://{host}{RESOURCE_METADATA_PATH}{ENDPOINT_PATH}\""
                ));
            }
            let challenge = if params.is_empty() {
                String::from("Bearer")
            } else {
                format!("Bearer {}", params.join(", "))
            };
            if let Ok(v) = HeaderValue::from_str(&challenge) {
                h.insert(hyper::header::WWW_AUTHENTICATE, v);
            }
        }
        _ => {}
    }
    r
}

/// RFC 9728 protected-resource metadata: this endpoint, its authorization
/// server, bearer tokens in the header only.
fn resource_metadata(headers: &HeaderMap, issuer: &str) -> Response<Body> {
    let host = headers
        .get(hyper::header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("localhost");
    let body = json!({
        "resource": format!("http://{host}{ENDPOINT_PATH}"),
        "authorization_servers": [issuer],
        "bearer_methods_supported": ["header"],
    });
    json_response(StatusCode::OK, body.to_string().into_bytes())
}
