//! The protocol era of a session, and how each request moves it.
//!
//! Era selection follows the reference SDK's dual-era stdio server and MCP
//! 2026-07-28's stdio backward compatibility: the first request that
//! *succeeds* in an era decides, once. A successful `initialize` opens a
//! handshake-era session (2024-11-05 .. 2025-11-25); a successful request
//! carrying the 2026-07-28 `_meta` envelope ([`META_PROTOCOL_VERSION`])
//! opens a stateless one — except `server/discover`, the probe a client
//! sends before it chooses, and except a request that failed (an envelope
//! naming an unsupported version, a missing capability object, an unknown
//! method): neither fixes the era, so a client may probe and still fall
//! back to the handshake. Once fixed, a claim from the other era is refused:
//! `initialize` on a stateless session gets -32022 naming the stateless
//! versions, an enveloped request or a second `initialize` on a handshake
//! session gets -32600.
//!
//! Every service answers in the revision its session uses
//! ([`Era::revision`]): `toolgate mcp` for its results, `toolgate gate` for
//! the answers it writes itself.

use serde_json::{json, Map, Value};

use super::message::ErrorObject;
use super::revision::{Revision, HANDSHAKE_REVISIONS, STATELESS_REVISIONS};
use super::wire::{code, Id, ProtocolError};

/// `_meta` key carrying a stateless request's protocol version.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key carrying a stateless request's client capabilities.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key carrying the server identity on stateless results.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// A session's protocol era.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Era {
    /// No request decided the era yet.
    #[default]
    Fresh,
    /// `initialize` answered with `rev`.
    Handshake {
        /// The revision the handshake agreed on.
        rev: Revision,
        /// Whether `notifications/initialized` has arrived.
        initialized: bool,
    },
    /// 2026-07-28: every request carries its own version.
    Stateless,
}

/// Where a request stands once [`Era::admit`] has let it in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admitted {
    /// No era yet, and this request does not choose one (`ping`,
    /// `server/discover`, anything else before `initialize`).
    Fresh,
    /// `initialize` on a fresh session: the service checks it and, when it
    /// answers with a result, calls [`Era::enter_handshake`].
    Initialize,
    /// A request of the handshake era, at the agreed revision.
    Handshake(Revision),
    /// A stateless request whose `_meta` envelope names this revision.
    Stateless(Revision),
}

impl Era {
    /// The revision the session uses, once decided.
    pub fn revision(self) -> Option<Revision> {
        match self {
            Self::Fresh => None,
            Self::Handshake { rev, .. } => Some(rev),
            Self::Stateless => Some(Revision::V2026_07_28),
        }
    }

    /// Whether the session is stateless (2026-07-28).
    pub fn is_stateless(self) -> bool {
        self == Self::Stateless
    }

    /// Whether a result written now carries `resultType`.
    pub fn has_result_type(self) -> bool {
        self.is_stateless() || self.revision().is_some_and(Revision::has_result_type)
    }

    /// Whether a JSON-RPC batch may be served now: only in a handshake
    /// session of a revision that allows batches (2025-03-26). Both services
    /// ask this for every batch a client sends.
    ///
    /// # Errors
    /// The error object (-32600) answering the whole batch, naming why.
    pub fn accept_batch(self) -> Result<(), ErrorObject> {
        let message = match self {
            Self::Handshake { rev, .. } if rev.allows_batches() => {
                tracing::debug!(rev = rev.as_str(), "batch");
                return Ok(());
            }
            Self::Handshake { rev, .. } => format!(
                "protocol revision {} does not allow JSON-RPC batches (only 2025-03-26 does)",
                rev.as_str()
            ),
            Self::Stateless => {
                "protocol revision 2026-07-28 does not allow JSON-RPC batches".into()
            }
            Self::Fresh => {
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

    /// Decides on request `id` calling `method` with `params`. On a fresh
    /// session, a request whose 2026-07-28 envelope is valid makes the
    /// session stateless, except `server/discover` (the probe); a refused
    /// envelope leaves it fresh. `initialize` moves the era only once the
    /// service answers it ([`enter_handshake`](Self::enter_handshake)). A
    /// service that then fails such a request may put the era back as it
    /// was before admitting it (the era is `Copy`).
    ///
    /// # Errors
    /// The error answer (carrying `id`) for a request from the other era,
    /// a second `initialize`, or a stateless request whose envelope fails
    /// [`stateless_envelope`].
    pub fn admit(
        &mut self,
        id: &Id,
        method: &str,
        params: Option<&Map<String, Value>>,
    ) -> Result<Admitted, ProtocolError> {
        let enveloped = has_stateless_envelope(params);
        match *self {
            Self::Fresh if method == "initialize" => Ok(Admitted::Initialize),
            Self::Fresh if enveloped => {
                let admitted = admit_stateless(id, method, params)?;
                if method != "server/discover" {
                    *self = Self::Stateless;
                    tracing::info!("stateless session (2026-07-28)");
                }
                Ok(admitted)
            }
            Self::Fresh => Ok(Admitted::Fresh),
            Self::Handshake { rev, .. } => {
                if method == "initialize" {
                    return Err(ProtocolError::new(
                        code::INVALID_REQUEST,
                        format!("already initialized (protocol revision {}): initialize may be sent once per session", rev.as_str()),
                        Some(id.clone()),
                    ));
                }
                if enveloped {
                    return Err(ProtocolError::new(
                        code::INVALID_REQUEST,
                        "this session uses the initialize handshake; requests carrying the 2026-07-28 _meta envelope are not accepted on it",
                        Some(id.clone()),
                    ));
                }
                Ok(Admitted::Handshake(rev))
            }
            Self::Stateless => admit_stateless(id, method, params),
        }
    }

    /// [`Era::admit`] for a party that passes requests on and leaves
    /// judging them to the server (the gateway): a request other than
    /// `server/discover` that carries the 2026-07-28 envelope's version key
    /// naming a stateless revision served makes a fresh session stateless
    /// even when the rest of the envelope is not valid (a client that
    /// leaves out its capabilities is still in that era; attack s76-A,
    /// F1), so what the party writes itself follows it. A version not
    /// served fixes nothing (the client may fall back).
    pub fn pass(&mut self, id: &Id, method: &str, params: Option<&Map<String, Value>>) {
        let admitted = self.admit(id, method, params);
        let version = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(META_PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .and_then(Revision::parse);
        if admitted.is_err()
            && matches!(self, Self::Fresh)
            && method != "server/discover"
            && version.is_some_and(|v| STATELESS_REVISIONS.contains(&v))
        {
            *self = Self::Stateless;
            tracing::info!("stateless session (2026-07-28), its first request not valid");
        }
    }

    /// The handshake answered with `rev`: the session's era from now on.
    pub fn enter_handshake(&mut self, rev: Revision) {
        *self = Self::Handshake {
            rev,
            initialized: false,
        };
    }

    /// A notification arrived; returns whether it moved the era
    /// (`notifications/initialized` on a handshake session).
    pub fn notified(&mut self, method: &str) -> bool {
        match (method, self) {
            ("notifications/initialized", Self::Handshake { initialized, .. }) => {
                *initialized = true;
                true
            }
            _ => false,
        }
    }
}

fn admit_stateless(
    id: &Id,
    method: &str,
    params: Option<&Map<String, Value>>,
) -> Result<Admitted, ProtocolError> {
    if method == "initialize" {
        let requested = params
            .and_then(|p| p.get("protocolVersion"))
            .cloned()
            .unwrap_or(Value::Null);
        return Err(ProtocolError::new(
            code::UNSUPPORTED_PROTOCOL_VERSION,
            "this session serves the stateless 2026-07-28 protocol; the initialize handshake is not accepted on it",
            Some(id.clone()),
        )
        .with_data(json!({"supported": stateless_versions(), "requested": requested})));
    }
    stateless_envelope(id, params).map(Admitted::Stateless)
}

/// The stateless revisions' wire forms.
pub fn stateless_versions() -> Vec<&'static str> {
    STATELESS_REVISIONS.iter().map(|r| r.as_str()).collect()
}

/// Every revision served, handshake ones first.
pub fn supported_versions() -> Vec<&'static str> {
    HANDSHAKE_REVISIONS
        .iter()
        .chain(STATELESS_REVISIONS)
        .map(|r| r.as_str())
        .collect()
}

/// Whether `params._meta` names a protocol version (the 2026-07-28
/// envelope), valid or not.
pub fn has_stateless_envelope(params: Option<&Map<String, Value>>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .is_some_and(|m| m.contains_key(META_PROTOCOL_VERSION))
}

/// The stateless validation ladder (2026-07-28 "Per-request protocol
/// fields"): `_meta` must carry a string protocol version and an object of
/// client capabilities, and the version must be one served.
///
/// # Errors
/// -32602 naming the member (an RFC 6901 pointer) for a missing or
/// mistyped field; -32022 with `data: {"supported", "requested"}` for a
/// version not served.
pub fn stateless_envelope(
    id: &Id,
    params: Option<&Map<String, Value>>,
) -> Result<Revision, ProtocolError> {
    let meta = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .ok_or_else(|| {
            ProtocolError::invalid_params(
                id,
                &format!("/params/_meta must be an object carrying {META_PROTOCOL_VERSION:?} and {META_CLIENT_CAPABILITIES:?}"),
            )
        })?;
    let version = match meta.get(META_PROTOCOL_VERSION) {
        Some(Value::String(v)) => v,
        Some(_) => {
            return Err(ProtocolError::invalid_params(
                id,
                &format!(
                    "/params/_meta/{} must be a string",
                    pointer_token(META_PROTOCOL_VERSION)
                ),
            ))
        }
        None => {
            return Err(ProtocolError::invalid_params(
                id,
                &format!("/params/_meta is missing {META_PROTOCOL_VERSION:?}"),
            ))
        }
    };
    match meta.get(META_CLIENT_CAPABILITIES) {
        Some(Value::Object(_)) => {}
        Some(_) => {
            return Err(ProtocolError::invalid_params(
                id,
                &format!(
                    "/params/_meta/{} must be an object",
                    pointer_token(META_CLIENT_CAPABILITIES)
                ),
            ))
        }
        None => {
            return Err(ProtocolError::invalid_params(
                id,
                &format!("/params/_meta is missing {META_CLIENT_CAPABILITIES:?}"),
            ))
        }
    }
    match Revision::parse(version).filter(|r| STATELESS_REVISIONS.contains(r)) {
        Some(rev) => Ok(rev),
        None => Err(ProtocolError::new(
            code::UNSUPPORTED_PROTOCOL_VERSION,
            format!("unsupported protocol version {version:?}"),
            Some(id.clone()),
        )
        .with_data(json!({"supported": stateless_versions(), "requested": version}))),
    }
}

/// `key` as an RFC 6901 reference token (`~` is `~0`, `/` is `~1`), for
/// JSON Pointers in messages: the `_meta` keys contain `/`.
fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(version: &str) -> Map<String, Value> {
        let v = json!({"_meta": {
            META_PROTOCOL_VERSION: version,
            META_CLIENT_CAPABILITIES: {},
        }});
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn the_first_deciding_request_fixes_the_era() {
        let id = Id::from(1);
        let mut era = Era::default();
        assert_eq!(era.admit(&id, "ping", None), Ok(Admitted::Fresh));
        assert_eq!(era.admit(&id, "initialize", None), Ok(Admitted::Initialize));
        assert_eq!(
            era,
            Era::Fresh,
            "initialize moves the era only once answered"
        );
        era.enter_handshake(Revision::V2025_06_18);
        assert!(era.notified("notifications/initialized"));
        assert_eq!(
            era.admit(&id, "tools/list", None),
            Ok(Admitted::Handshake(Revision::V2025_06_18))
        );
        let second = era.admit(&id, "initialize", None).unwrap_err();
        assert_eq!(second.code, code::INVALID_REQUEST);
        let other = era
            .admit(&id, "tools/list", Some(&envelope("2026-07-28")))
            .unwrap_err();
        assert_eq!(other.code, code::INVALID_REQUEST);
        assert!(!era.has_result_type());

        let mut era = Era::default();
        let admitted = era.admit(&id, "tools/list", Some(&envelope("2026-07-28")));
        assert_eq!(admitted, Ok(Admitted::Stateless(Revision::V2026_07_28)));
        assert!(era.is_stateless() && era.has_result_type());
        let init = era.admit(&id, "initialize", None).unwrap_err();
        assert_eq!(init.code, code::UNSUPPORTED_PROTOCOL_VERSION);
        let unknown = era
            .admit(&id, "tools/list", Some(&envelope("2099-01-01")))
            .unwrap_err();
        assert_eq!(unknown.code, code::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(unknown.id, Some(id));
    }

    /// MCP 2026-07-28, stdio backward compatibility: a `server/discover`
    /// probe, or a stateless request that failed, leaves the session free
    /// to fall back to the handshake.
    #[test]
    fn a_probe_or_a_failed_stateless_request_leaves_the_era_open() {
        let id = Id::from(1);
        let stateless = Admitted::Stateless(Revision::V2026_07_28);
        let mut era = Era::default();
        let probe = era.admit(&id, "server/discover", Some(&envelope("2026-07-28")));
        assert_eq!(probe, Ok(stateless));
        assert_eq!(era, Era::Fresh, "a probe fixes nothing");
        let bad = era.admit(&id, "tools/list", Some(&envelope("2099-01-01")));
        assert_eq!(
            bad.map_err(|e| e.code),
            Err(code::UNSUPPORTED_PROTOCOL_VERSION)
        );
        assert_eq!(era, Era::Fresh, "a refused envelope fixes nothing");
        let mut no_caps = envelope("2026-07-28");
        if let Some(Value::Object(meta)) = no_caps.get_mut("_meta") {
            meta.remove(META_CLIENT_CAPABILITIES);
        }
        let bad = era.admit(&id, "tools/list", Some(&no_caps));
        assert_eq!(bad.map_err(|e| e.code), Err(code::INVALID_PARAMS));
        assert_eq!(era, Era::Fresh, "a missing capability object fixes nothing");
        assert_eq!(era.admit(&id, "initialize", None), Ok(Admitted::Initialize));
        era.enter_handshake(Revision::V2025_11_25);
        assert_eq!(era.revision(), Some(Revision::V2025_11_25));

        // A party passing requests on follows the version key alone.
        let mut era = Era::default();
        era.pass(&id, "server/discover", Some(&no_caps));
        era.pass(&id, "tools/list", Some(&envelope("2099-01-01")));
        assert_eq!(
            era,
            Era::Fresh,
            "a probe or a version not served fixes nothing"
        );
        era.pass(&id, "tools/call", Some(&no_caps));
        assert!(era.is_stateless() && era.has_result_type());
        let mut era = Era::default();
        era.pass(&id, "tools/list", Some(&envelope("2026-07-28")));
        assert!(era.is_stateless());
        let mut era = Era::default();
        era.pass(&id, "tools/list", None);
        assert_eq!(era, Era::Fresh);
    }

    /// JSON-RPC batches exist only in 2025-03-26: every other state of the
    /// session refuses them with -32600 and says why.
    #[test]
    fn batches_only_where_the_revision_allows_them() {
        let batch = |era: Era| era.accept_batch().map_err(|e| (e.code, e.message));
        let hs = |rev| Era::Handshake {
            rev,
            initialized: true,
        };
        assert_eq!(batch(hs(Revision::V2025_03_26)), Ok(()));
        for (era, says) in [
            (hs(Revision::V2024_11_05), "2024-11-05 does not allow"),
            (hs(Revision::V2025_06_18), "2025-06-18 does not allow"),
            (hs(Revision::V2025_11_25), "2025-11-25 does not allow"),
            (Era::Stateless, "2026-07-28 does not allow"),
            (Era::Fresh, "before initialize"),
        ] {
            let (c, message) = batch(era).unwrap_err();
            assert_eq!(c, code::INVALID_REQUEST, "{era:?}");
            assert!(message.contains(says), "{era:?}: {message}");
        }
    }

    #[test]
    fn versions_list_handshake_revisions_first() {
        let all = supported_versions();
        assert_eq!(all.last(), Some(&"2026-07-28"));
        assert_eq!(all.first(), Some(&"2024-11-05"));
        assert_eq!(stateless_versions(), vec!["2026-07-28"]);
    }
}
