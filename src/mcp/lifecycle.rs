//! The session's lifecycle answers: `initialize` (checked as the official
//! SDKs check it), `server/discover`, and which batches an era allows. The
//! era state machine itself is the engine's [`Era`].

use serde_json::{json, Map, Value};

use crate::engine::wire::{code, Id, ProtocolError};
use crate::engine::{
    stateless_versions, Era, ErrorObject, Revision, LATEST_HANDSHAKE, META_SERVER_INFO,
};

const INSTRUCTIONS: &str = "PDF tools. `extract` returns the text of a PDF page by page (1-based pages, optional range \"N-M\" or \"N-\"); `get_metadata` returns version, page count, encryption and document info. Paths are relative to the server's root directory; URLs are never fetched. Failures are tool errors carrying a stable error kind.";
const INSTRUCTIONS_UNCONFINED: &str = "PDF tools. `extract` returns the text of a PDF page by page (1-based pages, optional range \"N-M\" or \"N-\"); `get_metadata` returns version, page count, encryption and document info. UNCONFINED: this server was started with --unconfined and reads any path its process can read; URLs are never fetched. Failures are tool errors carrying a stable error kind.";

/// The server's instructions, saying whether paths are confined.
pub(super) fn instructions(confined: bool) -> &'static str {
    if confined {
        INSTRUCTIONS
    } else {
        INSTRUCTIONS_UNCONFINED
    }
}

pub(super) fn server_info() -> Value {
    json!({"name": "toolgate", "version": env!("CARGO_PKG_VERSION")})
}

/// `initialize`: the revision to answer with (the client's when served,
/// else the newest handshake revision: a result, not an error) and the
/// result. `protocolVersion` must be a string, `capabilities` an object and
/// `clientInfo` an object, as the official SDKs require (-32602 otherwise).
///
/// # Errors
/// -32602 naming the member by JSON Pointer.
pub(super) fn initialize(
    id: &Id,
    params: Option<&Map<String, Value>>,
    confined: bool,
) -> Result<(Revision, Value), ProtocolError> {
    let member = |name: &str| params.and_then(|p| p.get(name));
    let offered = match member("protocolVersion") {
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
    for name in ["capabilities", "clientInfo"] {
        match member(name) {
            Some(Value::Object(_)) => {}
            Some(_) => {
                return Err(ProtocolError::invalid_params(
                    id,
                    &format!("/params/{name} must be an object"),
                ))
            }
            None => {
                return Err(ProtocolError::invalid_params(
                    id,
                    &format!("initialize requires /params/{name} (an object)"),
                ))
            }
        }
    }
    let rev = Revision::parse(&offered)
        .filter(|r| r.is_handshake())
        .unwrap_or(LATEST_HANDSHAKE);
    tracing::info!(offered = %offered, answered = rev.as_str(), "initialize");
    let result = json!({
        "protocolVersion": rev.as_str(),
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": server_info(),
        "instructions": instructions(confined),
    });
    Ok((rev, result))
}

/// The `server/discover` result (MCP 2026-07-28).
pub(super) fn discover(confined: bool) -> Value {
    let mut meta = Map::new();
    meta.insert(META_SERVER_INFO.into(), server_info());
    json!({
        "supportedVersions": stateless_versions(),
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": server_info(),
        "instructions": instructions(confined),
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": meta,
    })
}

/// Whether a JSON-RPC batch may be served in `era` (2025-03-26 only).
///
/// # Errors
/// The error object (-32600) answering the whole batch.
pub(super) fn accept_batch(era: Era) -> Result<(), ErrorObject> {
    let message = match era {
        Era::Handshake { rev, .. } if rev.allows_batches() => {
            tracing::debug!(rev = rev.as_str(), "batch");
            return Ok(());
        }
        Era::Handshake { rev, .. } => format!(
            "protocol revision {} does not allow JSON-RPC batches (only 2025-03-26 does)",
            rev.as_str()
        ),
        Era::Stateless => "protocol revision 2026-07-28 does not allow JSON-RPC batches".into(),
        Era::Fresh => {
            "JSON-RPC batches are refused before initialize (and initialize must not be batched)"
                .into()
        }
    };
    Err(ErrorObject {
        code: code::INVALID_REQUEST,
        message,
        data: None,
    })
}
