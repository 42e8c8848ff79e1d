//! The headers a 2026-07-28 request mirrors from its body (`Mcp-Method`,
//! `Mcp-Name`, `MCP-Protocol-Version`), checked byte for byte against the
//! body: an intermediary routes and decides on the headers, the server on
//! the body, so the two must say the same thing or the request is refused
//! ([`HEADER_MISMATCH`](super::refusal::HEADER_MISMATCH)). Policy is decided
//! on the body only.

use base64::Engine as _;
use hyper::header::{HeaderMap, HeaderValue};
use serde_json::{Map, Value};

use super::refusal::{Kind, Refusal};
use crate::engine::META_PROTOCOL_VERSION;

/// The `Mcp-Method` header.
pub const METHOD_HEADER: &str = "mcp-method";
/// The `Mcp-Name` header.
pub const NAME_HEADER: &str = "mcp-name";

/// The body member `Mcp-Name` mirrors for `method`: `params.name` of
/// `tools/call` and `prompts/get`, `params.uri` of `resources/read`.
pub fn named_member(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    }
}

/// A header value's bytes as meant: `=?base64?…?=` (the markers in this
/// case exactly) is standard base64 of the bytes; anything else is itself.
fn decoded(value: &HeaderValue) -> Option<Vec<u8>> {
    let bytes = value.as_bytes();
    match bytes
        .strip_prefix(b"=?base64?")
        .and_then(|b| b.strip_suffix(b"?="))
    {
        Some(inner) => base64::engine::general_purpose::STANDARD.decode(inner).ok(),
        None => Some(bytes.to_vec()),
    }
}

fn mismatch(message: String) -> Refusal {
    Refusal::new(Kind::HeaderMismatch, message)
}

/// The one value of `name`, decoded; `Ok(None)` when absent.
fn one(headers: &HeaderMap, name: &str) -> Result<Option<Vec<u8>>, Refusal> {
    let mut all = headers.get_all(name).iter();
    let first = all.next();
    if all.next().is_some() {
        return Err(mismatch(format!("{name} appears more than once")));
    }
    match first {
        None => Ok(None),
        Some(v) => decoded(v)
            .map(Some)
            .ok_or_else(|| mismatch(format!("{name} is not valid base64 inside =?base64?…?="))),
    }
}

/// Checks a 2026-07-28 message's mirrored headers against its `method` and
/// `params`: `MCP-Protocol-Version` equal to `_meta`'s version,
/// `Mcp-Method` present (on a request) and equal to the method,
/// `Mcp-Name` present and equal to the member [`named_member`] names when
/// the body has it as a string, absent when it has not.
///
/// # Errors
/// [`Kind::HeaderMismatch`] naming the header.
pub fn check(
    headers: &HeaderMap,
    request: bool,
    method: &str,
    params: Option<&Map<String, Value>>,
) -> Result<(), Refusal> {
    let body_version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .and_then(Value::as_str);
    let header_version = one(headers, super::guard::PROTOCOL_VERSION_HEADER)?;
    match (header_version, body_version) {
        (Some(h), Some(b)) if h != b.as_bytes() => {
            return Err(mismatch(format!(
                "MCP-Protocol-Version differs from /params/_meta/{META_PROTOCOL_VERSION} ({b:?})"
            )))
        }
        (None, Some(_)) => {
            return Err(mismatch(
                "MCP-Protocol-Version is required with a per-request protocol version".into(),
            ))
        }
        _ => {}
    }
    match one(headers, METHOD_HEADER)? {
        Some(h) if h != method.as_bytes() => {
            return Err(mismatch(format!(
                "Mcp-Method differs from the body's method {method:?}"
            )))
        }
        None if request => return Err(mismatch("Mcp-Method is required".into())),
        _ => {}
    }
    let body_name =
        named_member(method).and_then(|m| params.and_then(|p| p.get(m)).map(|v| (m, v.as_str())));
    match (one(headers, NAME_HEADER)?, body_name) {
        (None, Some((member, Some(_)))) => Err(mismatch(format!(
            "Mcp-Name is required for {method} (it mirrors /params/{member})"
        ))),
        (Some(h), Some((member, Some(name)))) if h != name.as_bytes() => {
            Err(mismatch(format!("Mcp-Name differs from /params/{member}")))
        }
        (Some(_), None | Some((_, None))) => Err(mismatch(format!(
            "Mcp-Name given, but the body of {method} names nothing it mirrors"
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::guard::tests::headers;
    use super::*;
    use serde_json::json;

    fn call(name: &str) -> Map<String, Value> {
        json!({"name": name, "_meta": {META_PROTOCOL_VERSION: "2026-07-28"}})
            .as_object()
            .unwrap()
            .clone()
    }

    fn ok(pairs: &[(&str, &str)], method: &str, params: &Map<String, Value>) -> bool {
        check(&headers(pairs), true, method, Some(params)).is_ok()
    }

    const V: (&str, &str) = ("mcp-protocol-version", "2026-07-28");

    #[test]
    fn every_mirrored_header_must_equal_the_body() {
        let p = call("extract");
        assert!(ok(
            &[V, ("mcp-method", "tools/call"), ("mcp-name", "extract")],
            "tools/call",
            &p
        ));
        // Byte for byte: no case folding, no trimming of what the body has.
        assert!(!ok(
            &[V, ("mcp-method", "TOOLS/CALL"), ("mcp-name", "extract")],
            "tools/call",
            &p
        ));
        assert!(!ok(
            &[V, ("mcp-method", "tools/call"), ("mcp-name", "Extract")],
            "tools/call",
            &p
        ));
        assert!(!ok(
            &[V, ("mcp-method", "tools/list"), ("mcp-name", "extract")],
            "tools/call",
            &p
        ));
        // Missing ones.
        assert!(!ok(&[V, ("mcp-name", "extract")], "tools/call", &p));
        assert!(!ok(&[V, ("mcp-method", "tools/call")], "tools/call", &p));
        assert!(!ok(
            &[("mcp-method", "tools/call"), ("mcp-name", "extract")],
            "tools/call",
            &p
        ));
        // Twice.
        assert!(!ok(
            &[
                V,
                ("mcp-method", "tools/call"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "extract")
            ],
            "tools/call",
            &p
        ));
        // The version differs.
        assert!(!ok(
            &[
                ("mcp-protocol-version", "2025-11-25"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "extract")
            ],
            "tools/call",
            &p
        ));
        // A name where the method mirrors none.
        let list = json!({"_meta": {META_PROTOCOL_VERSION: "2026-07-28"}})
            .as_object()
            .unwrap()
            .clone();
        assert!(ok(&[V, ("mcp-method", "tools/list")], "tools/list", &list));
        assert!(!ok(
            &[V, ("mcp-method", "tools/list"), ("mcp-name", "x")],
            "tools/list",
            &list
        ));
    }

    #[test]
    fn base64_sentinel_values() {
        let p = call("résumé");
        let b64 = format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode("résumé")
        );
        assert!(ok(
            &[V, ("mcp-method", "tools/call"), ("mcp-name", &b64)],
            "tools/call",
            &p
        ));
        assert!(!ok(
            &[
                V,
                ("mcp-method", "tools/call"),
                ("mcp-name", "=?base64?!!?=")
            ],
            "tools/call",
            &p
        ));
        // The markers are case-sensitive: anything else is the value itself.
        let q = call("=?BASE64?eA==?=");
        assert!(ok(
            &[
                V,
                ("mcp-method", "tools/call"),
                ("mcp-name", "=?BASE64?eA==?=")
            ],
            "tools/call",
            &q
        ));
    }

    #[test]
    fn resources_read_mirrors_the_uri() {
        let p = json!({"uri": "file:///a.pdf", "_meta": {META_PROTOCOL_VERSION: "2026-07-28"}})
            .as_object()
            .unwrap()
            .clone();
        assert!(ok(
            &[
                V,
                ("mcp-method", "resources/read"),
                ("mcp-name", "file:///a.pdf")
            ],
            "resources/read",
            &p
        ));
        assert!(!ok(
            &[
                V,
                ("mcp-method", "resources/read"),
                ("mcp-name", "file:///b.pdf")
            ],
            "resources/read",
            &p
        ));
    }

    #[test]
    fn notifications_need_no_method_header() {
        assert!(check(&headers(&[]), false, "notifications/cancelled", None).is_ok());
        assert!(check(
            &headers(&[("mcp-method", "x")]),
            false,
            "notifications/cancelled",
            None
        )
        .is_err());
    }
}
