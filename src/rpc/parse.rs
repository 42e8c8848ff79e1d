//! Parsing: one strict scan per input ([`crate::json`]'s scanner with the
//! member table of [`super::members`]), then the JSON-RPC 2.0 envelope and
//! MCP `tools/call` checks on what the scan located. Every failure is a
//! [`Rejected`] carrying the id by the rule stated there.
use std::borrow::Cow;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::error::{excerpt, EnvelopeError, MethodError, ParamsError, Rejected, RpcError};
use super::id::Id;
use super::members::{Captured, Envelope};
use super::message::{Incoming, Message, Notification, Request, ToolCallRequest};
use super::{MAX_BATCH_LEN, TOOLS_CALL};
use crate::json::{self, JsonError, Kind, Limits, Member, Span, MAX_SUPPORTED_DEPTH};

/// Which rules apply on top of JSON-RPC 2.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dialect {
    /// JSON-RPC 2.0 alone: `params`, when present, is an object or an array
    /// (§4.2); anything else is -32600 `params_not_structured`.
    #[default]
    JsonRpc,
    /// MCP: every method's `params` is an object, so `null`, a string, a
    /// number, a boolean or an array is -32602 `params_not_object` (what the
    /// official SDKs answer; JSON-RPC alone would say -32600 for a
    /// non-structured value); a request (with an `id`) whose method is named
    /// like a notification (`notifications/...`) is -32601
    /// `notification_method`.
    Mcp,
}

/// One scanned input: the text, what the scan located, and its verdict.
struct Scanned<'a> {
    text: &'a str,
    cap: Captured,
    fault: Option<JsonError>,
    /// The id by the rule of [`Rejected`].
    id: Option<Id>,
}

impl Scanned<'_> {
    fn reject(&self, error: impl Into<RpcError>) -> Rejected {
        Rejected {
            error: error.into(),
            id: self.id.clone(),
            notification: false,
        }
    }
}

/// Precheck + one strict scan that finishes after a depth or duplicate-key
/// fault (so the id rule can be decided), recording the envelope members.
fn scan<'a>(bytes: &'a [u8], limits: &Limits) -> Result<Scanned<'a>, Rejected> {
    let text = match json::precheck(bytes, limits) {
        Ok(text) => text,
        // Too costly to parse, not to scan (the scan builds no value): the
        // id is answered as for any other fault of a readable envelope, and
        // a notification gets nothing.
        Err(e @ JsonError::TooManyValues { .. }) => {
            let unbounded = Limits {
                max_values: usize::MAX,
                ..*limits
            };
            let s = scan(bytes, &unbounded)?;
            return Err(Rejected {
                error: e.into(),
                id: s.id,
                notification: s.cap.is_object() && s.cap.envelope.id.is_none(),
            });
        }
        Err(e) => return Err(Rejected::without_id(e.into())),
    };
    let mut cap = Captured::new(MAX_BATCH_LEN);
    let (fault, complete) = json::scan_strict(text, limits, true, &mut cap);
    let id = match cap.envelope.id {
        Some(m) if complete && cap.is_object() && cap.envelope.id_count == 1 => {
            decode_id(text, m).ok()
        }
        _ => None,
    };
    Ok(Scanned {
        text,
        cap,
        fault,
        id,
    })
}

/// `scan`, then any JSON fault becomes the rejection.
fn vet<'a>(bytes: &'a [u8], limits: &Limits) -> Result<Scanned<'a>, Rejected> {
    let s = scan(bytes, limits)?;
    if let Some(e) = &s.fault {
        return Err(s.reject(e.clone()));
    }
    Ok(s)
}

fn slice(text: &str, span: Span) -> &str {
    text.get(span.start..span.end).unwrap_or_default()
}

/// The top-level value must be an object (not a batch, not a scalar).
fn require_object(s: &Scanned<'_>) -> Result<(), Rejected> {
    let error = match s.cap.top {
        Some(Member {
            kind: Kind::Object, ..
        }) => return Ok(()),
        Some(Member {
            kind: Kind::Array, ..
        }) if s.cap.element_count == 0 => EnvelopeError::EmptyBatch,
        Some(Member {
            kind: Kind::Array, ..
        }) => EnvelopeError::Batch {
            len: s.cap.element_count,
        },
        Some(m) => EnvelopeError::NotAnObject {
            found: m.kind.name(),
        },
        None => return Err(s.reject(JsonError::Empty)),
    };
    Err(s.reject(error))
}

/// The raw content of a vetted string member when it has no escape (the
/// common case, read without `serde_json`).
fn unescaped_str(text: &str, m: Member) -> Option<&str> {
    if m.kind != Kind::String {
        return None;
    }
    let inner = text.get(m.span.start + 1..m.span.end.checked_sub(1)?)?;
    (!inner.contains('\\')).then_some(inner)
}

/// A vetted string member, borrowed when it has no escape.
fn decode_str(text: &str, m: Member) -> Option<Cow<'_, str>> {
    match unescaped_str(text, m) {
        Some(s) => Some(Cow::Borrowed(s)),
        None if m.kind == Kind::String => json::from_vetted::<String>(slice(text, m.span))
            .ok()
            .map(Cow::Owned),
        None => None,
    }
}

fn decode_string(text: &str, m: Member) -> Option<String> {
    if m.kind != Kind::String {
        return None;
    }
    if let Some(s) = unescaped_str(text, m) {
        return Some(s.to_owned());
    }
    json::from_vetted::<String>(slice(text, m.span)).ok()
}

/// Whether a string member equals `want` (after unescaping).
fn string_is(text: &str, m: Member, want: &str) -> bool {
    match unescaped_str(text, m) {
        Some(s) => s == want,
        None => decode_string(text, m).as_deref() == Some(want),
    }
}

fn decode_id(text: &str, m: Member) -> Result<Id, EnvelopeError> {
    let invalid = |found| EnvelopeError::InvalidId {
        found,
        offset: m.span.start,
    };
    let raw = slice(text, m.span);
    match m.kind {
        Kind::String if raw.len() > super::MAX_ID_BYTES + 2 => Err(EnvelopeError::IdTooLong {
            bytes: raw.len() - 2,
            limit: super::MAX_ID_BYTES,
            offset: m.span.start,
        }),
        Kind::String => decode_string(text, m)
            .map(Id::String)
            .ok_or_else(|| invalid("a string")),
        Kind::Number => {
            if raw.bytes().any(|c| matches!(c, b'.' | b'e' | b'E')) {
                return Err(invalid("a number with a fraction or exponent"));
            }
            if raw == "-0" {
                // serde_json reads `-0` as the float -0.0; it cannot echo as an integer.
                return Err(invalid("negative zero"));
            }
            if let Ok(n) = raw.parse::<i64>() {
                return Ok(Id::Number(n.into()));
            }
            match raw.parse::<u64>() {
                Ok(n) => Ok(Id::Number(n.into())),
                Err(_) => Err(invalid("an integer outside the 64-bit range")),
            }
        }
        other => Err(invalid(other.name())),
    }
}

/// The validated head of a single message (the method borrowed from the
/// input unless it holds an escape: `parse_tool_call` only compares it).
struct Head<'a> {
    id: Option<Id>,
    method: Cow<'a, str>,
}

/// JSON-RPC 2.0 §4: `jsonrpc` exactly "2.0", `id` a string or integer when
/// present, `method` a string.
fn head<'a>(s: &Scanned<'a>, env: &Envelope) -> Result<Head<'a>, Rejected> {
    let text = s.text;
    match env.jsonrpc {
        None => return Err(s.reject(EnvelopeError::InvalidJsonrpc { found: None })),
        Some(m) if string_is(text, m, "2.0") => {}
        Some(m) => {
            return Err(s.reject(EnvelopeError::InvalidJsonrpc {
                found: Some(excerpt(slice(text, m.span))),
            }))
        }
    }
    let id = match env.id {
        None => None,
        Some(m) => Some(decode_id(text, m).map_err(|e| s.reject(e))?),
    };
    let method = match env.method {
        None => return Err(s.reject(EnvelopeError::MissingMethod)),
        Some(m) => decode_str(text, m).ok_or_else(|| {
            s.reject(EnvelopeError::InvalidMethod {
                found: m.kind.name(),
                offset: m.span.start,
            })
        })?,
    };
    Ok(Head { id, method })
}

/// `params` by the dialect's rule, as a value.
fn params_value(text: &str, env: &Envelope, dialect: Dialect) -> Result<Option<Value>, RpcError> {
    let Some(m) = env.params else {
        return Ok(None);
    };
    let fits = match dialect {
        Dialect::JsonRpc => matches!(m.kind, Kind::Object | Kind::Array),
        Dialect::Mcp => m.kind == Kind::Object,
    };
    if !fits {
        let (found, offset) = (m.kind.name(), m.span.start);
        return Err(match dialect {
            Dialect::JsonRpc => EnvelopeError::ParamsNotStructured { found, offset }.into(),
            Dialect::Mcp => ParamsError::ParamsNotObject { found, offset }.into(),
        });
    }
    Ok(Some(json::from_vetted::<Value>(slice(text, m.span))?))
}

fn message_from(s: &Scanned<'_>, env: &Envelope, dialect: Dialect) -> Result<Message, Rejected> {
    let head = head(s, env)?;
    let notify_like = head.method.starts_with("notifications/");
    if let (Some(id), Dialect::Mcp, true) = (&head.id, dialect, notify_like) {
        return Err(Rejected {
            error: MethodError::NotificationMethod {
                method: excerpt(&head.method),
            }
            .into(),
            id: Some(id.clone()),
            notification: false,
        });
    }
    let params = params_value(s.text, env, dialect).map_err(|error| Rejected {
        error,
        id: head.id.clone(),
        notification: head.id.is_none(),
    })?;
    Ok(match head.id {
        Some(id) => {
            let call = (head.method == TOOLS_CALL).then(|| call_params(s.text, env, &id));
            Message::Request(Request {
                id,
                method: head.method.into_owned(),
                params,
                call,
            })
        }
        None => Message::Notification(Notification {
            method: head.method.into_owned(),
            params,
        }),
    })
}

/// MCP `tools/call` params (`{ name, arguments?, _meta? }`) from the scan.
fn call_params(text: &str, env: &Envelope, id: &Id) -> Result<ToolCallRequest, ParamsError> {
    match env.params {
        None => return Err(ParamsError::MissingParams),
        Some(m) if m.kind != Kind::Object => {
            return Err(ParamsError::ParamsNotObject {
                found: m.kind.name(),
                offset: m.span.start,
            })
        }
        Some(_) => {}
    }
    let name = match env.name {
        None => return Err(ParamsError::MissingName),
        Some(m) => decode_string(text, m).ok_or(ParamsError::InvalidName {
            found: m.kind.name(),
            offset: m.span.start,
        })?,
    };
    let arguments = match env.arguments {
        None => "{}".to_owned(),
        Some(m) if m.kind == Kind::Object => slice(text, m.span).to_owned(),
        Some(m) => {
            return Err(ParamsError::ArgumentsNotObject {
                found: m.kind.name(),
                offset: m.span.start,
            })
        }
    };
    let meta = match env.meta {
        None => None,
        // Vetted object text: serde_json cannot refuse it; stays total.
        Some(m) if m.kind == Kind::Object => {
            json::from_vetted::<Map<String, Value>>(slice(text, m.span)).ok()
        }
        Some(m) => {
            return Err(ParamsError::MetaNotObject {
                found: m.kind.name(),
                offset: m.span.start,
            })
        }
    };
    Ok(ToolCallRequest {
        id: id.clone(),
        name,
        arguments,
        meta,
    })
}

/// Parses one JSON-RPC 2.0 message (a request or a notification, any
/// method) from untrusted bytes, after the strict JSON layer, under
/// [`Dialect::JsonRpc`]. A `tools/call` request keeps its vetted call
/// ([`Request::tool_call`]).
///
/// Sources: JSON-RPC 2.0 §4 (request object), §4.1 (notification), §4.2
/// (params are structured); RFC 8259 §8.3 and RFC 7493 §2.3 (duplicate keys
/// refused at any depth); MCP (id is never null). Members other than
/// `jsonrpc`, `id`, `method`, `params` are vetted and ignored.
///
/// # Errors
///
/// A [`Rejected`] with the id by its rule and:
/// * -32700 ([`RpcError::Json`]: `TooLarge` (HTTP 413), `Empty`,
///   `WhitespaceOnly`, `ByteOrderMark`, `InvalidUtf8`, `Syntax`, `TooDeep`,
///   `DuplicateKey`): the strict JSON layer refused the bytes (see
///   [`crate::json::parse_strict`]).
/// * -32600 ([`RpcError::Envelope`]): `Batch` / `EmptyBatch` (a top-level
///   array: use [`parse_incoming`]), `NotAnObject`, `InvalidJsonrpc`,
///   `InvalidId`, `MissingMethod`, `InvalidMethod`, `ParamsNotStructured`.
pub fn parse_message(bytes: &[u8], limits: &Limits) -> Result<Message, Rejected> {
    parse_message_as(bytes, limits, Dialect::JsonRpc)
}

/// [`parse_message`] under a [`Dialect`].
///
/// # Errors
///
/// As [`parse_message`]; under [`Dialect::Mcp`] also -32602
/// `params_not_object` and -32601 `notification_method`.
pub fn parse_message_as(
    bytes: &[u8],
    limits: &Limits,
    dialect: Dialect,
) -> Result<Message, Rejected> {
    let s = vet(bytes, limits)?;
    require_object(&s)?;
    message_from(&s, &s.cap.envelope, dialect)
}

/// Parses one input that may be a single message or a batch (JSON-RPC 2.0
/// §6; MCP 2025-03-26 allows batches), under [`Dialect::JsonRpc`]. A batch's
/// elements are returned raw, each already vetted as part of the whole;
/// pass each to [`parse_message`] and answer (or not, for notifications)
/// element by element.
///
/// # Errors
///
/// As [`parse_message`] for a single message; for a batch,
/// [`EnvelopeError::EmptyBatch`] for `[]` and [`EnvelopeError::BatchTooLong`]
/// beyond [`MAX_BATCH_LEN`] elements (both -32600, id `null`).
pub fn parse_incoming(bytes: &[u8], limits: &Limits) -> Result<Incoming, Rejected> {
    parse_incoming_as(bytes, limits, Dialect::JsonRpc)
}

/// [`parse_incoming`] under a [`Dialect`] (the MCP server uses [`Dialect::Mcp`]).
///
/// # Errors
///
/// As [`parse_incoming`] and [`parse_message_as`].
pub fn parse_incoming_as(
    bytes: &[u8],
    limits: &Limits,
    dialect: Dialect,
) -> Result<Incoming, Rejected> {
    let s = vet(bytes, limits)?;
    if let Some(Member {
        kind: Kind::Array, ..
    }) = s.cap.top
    {
        if s.cap.element_count == 0 {
            return Err(s.reject(EnvelopeError::EmptyBatch));
        }
        if s.cap.element_count > MAX_BATCH_LEN {
            return Err(s.reject(EnvelopeError::BatchTooLong {
                len: s.cap.element_count,
                limit: MAX_BATCH_LEN,
            }));
        }
        let mut out = Vec::with_capacity(s.cap.elements.len());
        for (span, _) in &s.cap.elements {
            let raw = json::from_vetted::<Box<RawValue>>(slice(s.text, *span))
                .map_err(|e| s.reject(e))?;
            out.push(raw);
        }
        return Ok(Incoming::Batch(out));
    }
    require_object(&s)?;
    message_from(&s, &s.cap.envelope, dialect).map(Incoming::Single)
}

/// [`parse_tool_call_with`] under [`Limits::default()`].
///
/// # Errors
///
/// See [`parse_tool_call_with`].
pub fn parse_tool_call(bytes: &[u8]) -> Result<ToolCallRequest, Rejected> {
    parse_tool_call_with(bytes, &Limits::default())
}

/// Parses an MCP `tools/call` request (MCP 2025-06-18, Tools) from untrusted
/// bytes: the strict JSON layer, the JSON-RPC 2.0 envelope (§4), then
/// `params` = `{ name: string, arguments?: object, _meta?: object }`.
/// Total: every input yields a request or a typed error.
///
/// One scan checks grammar, depth and duplicate keys everywhere (inside
/// `arguments` too) and locates the members; only `id`, `name` and `_meta`
/// are then decoded, `arguments` is copied as vetted text.
///
/// # Errors
///
/// A [`Rejected`] with the id by its rule and:
/// * -32700 (HTTP 413 for `TooLarge`, else 400): [`RpcError::Json`] with
///   `TooLarge`, `Empty`, `WhitespaceOnly`, `ByteOrderMark`, `InvalidUtf8`,
///   `Syntax` (with offset), `TooDeep` and `DuplicateKey` (with pointer and
///   offset).
/// * -32600 ([`RpcError::Envelope`]): `Batch` / `EmptyBatch` (a top-level
///   array), `NotAnObject`, `InvalidJsonrpc`, `InvalidId` (null, fraction,
///   boolean, object, array), `MissingMethod`, `InvalidMethod`,
///   `Notification` (no `id`).
/// * -32601 ([`RpcError::MethodNotFound`]): `NotToolsCall` (any other method).
/// * -32602 ([`RpcError::Params`]): `MissingParams`, `ParamsNotObject`
///   (`null`, a string, a number, a boolean, an array: the same answer the
///   server gives under [`Dialect::Mcp`]), `MissingName`, `InvalidName`,
///   `ArgumentsNotObject`, `MetaNotObject`.
pub fn parse_tool_call_with(bytes: &[u8], limits: &Limits) -> Result<ToolCallRequest, Rejected> {
    let s = vet(bytes, limits)?;
    require_object(&s)?;
    let env = &s.cap.envelope;
    let head = head(&s, env)?;
    let Some(id) = head.id else {
        return Err(s.reject(EnvelopeError::Notification {
            method: excerpt(&head.method),
        }));
    };
    if head.method != TOOLS_CALL {
        return Err(s.reject(MethodError::NotToolsCall {
            method: excerpt(&head.method),
        }));
    }
    call_params(s.text, env, &id).map_err(|e| s.reject(e))
}

/// The id to answer a failure on `bytes` with (JSON-RPC 2.0 §5), by the
/// rule of [`Rejected`]: a thin wrapper for callers holding an [`RpcError`]
/// rather than the [`Rejected`] the parsers return (which already carries
/// it). `None` for [`JsonError::TooLarge`] (the bytes were over the bound).
///
/// Never returns an id that is not in `bytes`. Bounded like the parse
/// itself (one scan, with the input's own length as the bound).
pub fn detectable_error_id(bytes: &[u8], error: &RpcError) -> Option<Id> {
    if let RpcError::Json(JsonError::TooLarge { .. }) = error {
        return None;
    }
    let limits = Limits {
        max_payload_bytes: bytes.len(),
        max_depth: MAX_SUPPORTED_DEPTH,
        max_values: usize::MAX,
    };
    scan(bytes, &limits).ok()?.id
}
