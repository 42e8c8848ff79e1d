//! The session's lifecycle answers: `initialize` (checked as the official
//! SDKs check it), `server/discover`, and which batches an era allows. The
//! era state machine itself is the engine's [`Era`](crate::engine::Era).

use serde_json::{json, Map, Value};

use super::tools::PathScope;
use crate::engine::wire::{Id, ProtocolError};
use crate::engine::{stateless_versions, Revision, LATEST_HANDSHAKE, META_SERVER_INFO};

macro_rules! summary {
    () => {
        "PDF tools. `extract` returns the text of a PDF page by page (1-based pages, optional range \"N-M\" or \"N-\"); `get_metadata` returns version, page count, encryption and document info."
    };
}
macro_rules! errors {
    () => {
        " Failures are tool errors carrying a stable error kind."
    };
}
const ROOT: &str = " Paths are relative to the server's root directory;";
const UNCONFINED: &str =
    " UNCONFINED: this server was started with --unconfined and reads any path its process can read;";
const URLS_REFUSED: &str = " URLs are never fetched.";
const URLS_FETCHED: &str = " REMOTE FETCH IS ON (--allow-remote): http(s) URLs are downloaded through an SSRF-safe fetcher; private, loopback, link-local and cloud-metadata destinations are refused unless the operator allowed them.";

/// The server's instructions, saying what a `path` may name, as the tool
/// descriptions do ([`PathScope`]).
pub(super) fn instructions(scope: PathScope) -> String {
    let (paths, remote) = match scope {
        PathScope::Root { remote } => (ROOT, remote),
        PathScope::Unconfined { remote } => (UNCONFINED, remote),
    };
    let urls = if remote { URLS_FETCHED } else { URLS_REFUSED };
    [summary!(), paths, urls, errors!()].concat()
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
    scope: PathScope,
) -> Result<(Revision, Value), ProtocolError> {
    let rev = handshake_revision(id, params)?;
    let result = json!({
        "protocolVersion": rev.as_str(),
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": server_info(),
        "instructions": instructions(scope),
    });
    Ok((rev, result))
}

/// The revision an `initialize` is answered with: the client's when
/// served, else the newest handshake revision. `protocolVersion` must be a
/// string, `capabilities` an object and `clientInfo` an object.
///
/// # Errors
/// -32602 naming the member by JSON Pointer.
pub(super) fn handshake_revision(
    id: &Id,
    params: Option<&Map<String, Value>>,
) -> Result<Revision, ProtocolError> {
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
    Ok(rev)
}

/// The `server/discover` result (MCP 2026-07-28).
pub(super) fn discover(scope: PathScope) -> Value {
    let mut meta = Map::new();
    meta.insert(META_SERVER_INFO.into(), server_info());
    json!({
        "supportedVersions": stateless_versions(),
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": server_info(),
        "instructions": instructions(scope),
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": meta,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The instructions say what the tool descriptions say: confined or
    /// not, and whether URLs are fetched (they said "never fetched" with
    /// `--allow-remote`; found by a newcomer).
    #[test]
    fn instructions_follow_the_path_scope() {
        for remote in [false, true] {
            for scope in [PathScope::Root { remote }, PathScope::Unconfined { remote }] {
                let text = instructions(scope);
                assert_eq!(text.contains("REMOTE FETCH IS ON"), remote, "{text}");
                assert_eq!(text.contains("never fetched"), !remote, "{text}");
                let unconfined = matches!(scope, PathScope::Unconfined { .. });
                assert_eq!(text.contains("UNCONFINED"), unconfined, "{text}");
                assert_eq!(text.contains("root directory"), !unconfined, "{text}");
                assert!(text.starts_with("PDF tools.") && text.ends_with("error kind."));
                let answered = discover(scope);
                assert_eq!(answered["instructions"], text.as_str());
                let p = json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
                let (_, result) =
                    initialize(&Id::String("1".into()), p.as_object(), scope).unwrap();
                assert_eq!(result["instructions"], text.as_str());
            }
        }
    }
}
