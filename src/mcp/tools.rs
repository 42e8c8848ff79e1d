//! The tool registry: `extract` and `get_metadata`, their schemas, argument
//! validation, and the `tools/call` result shapes (MCP "Tools" section:
//! `content`, `structuredContent`, `isError`).
//!
//! Argument problems (unknown key, wrong type, bad page range) are tool
//! execution errors (`isError: true`), not protocol errors, so a model can
//! read and correct them (MCP 2025-11-25, "Error Handling"). Only an unknown
//! tool name is a protocol error (-32602).

use serde_json::{json, Map, Value};

use super::backend::{PageRange, ToolFailure};
use crate::engine::Revision;

pub use crate::pdf::MAX_PAGE_NUMBER;

/// The two tools, in listing order.
pub const TOOL_NAMES: &[&str] = &["extract", "get_metadata"];

/// A validated `tools/call`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolCall {
    /// `extract { path, pages?, password? }`.
    Extract {
        /// File path or URL.
        path: String,
        /// Inclusive 1-based page range.
        pages: Option<PageRange>,
        /// Password for an encrypted file.
        password: Option<String>,
    },
    /// `get_metadata { path, password? }`.
    GetMetadata {
        /// File path or URL.
        path: String,
        /// Password for an encrypted file.
        password: Option<String>,
    },
}

impl ToolCall {
    /// The `path` argument.
    pub fn path(&self) -> &str {
        match self {
            Self::Extract { path, .. } | Self::GetMetadata { path, .. } => path,
        }
    }
}

/// Whether `name` is a tool this server serves.
pub fn is_tool(name: &str) -> bool {
    TOOL_NAMES.contains(&name)
}

/// Validates `arguments` for tool `name` (which must satisfy [`is_tool`]).
///
/// # Errors
/// A [`ToolFailure`] of kind `invalid_arguments` naming the offending key.
pub fn validate(name: &str, arguments: &Map<String, Value>) -> Result<ToolCall, ToolFailure> {
    let allowed: &[&str] = match name {
        "extract" => &["path", "pages", "password"],
        _ => &["path", "password"],
    };
    if let Some(unknown) = arguments.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(invalid(format!(
            "unknown argument {unknown:?} for tool {name}; allowed: {}",
            allowed.join(", ")
        )));
    }
    let path = match arguments.get("path") {
        Some(Value::String(p)) if !p.is_empty() => p.clone(),
        Some(Value::String(_)) => return Err(invalid("argument \"path\" must not be empty")),
        Some(_) => return Err(invalid("argument \"path\" must be a string")),
        None => return Err(invalid("missing required argument \"path\"")),
    };
    let password = optional_string(arguments, "password")?;
    if name == "extract" {
        let pages = match optional_string(arguments, "pages")? {
            Some(p) => Some(parse_pages(&p)?),
            None => None,
        };
        Ok(ToolCall::Extract {
            path,
            pages,
            password,
        })
    } else {
        Ok(ToolCall::GetMetadata { path, password })
    }
}

/// An optional string argument: absent and `null` are the same (clients
/// write `null` for an argument they leave unset).
fn optional_string(args: &Map<String, Value>, key: &str) -> Result<Option<String>, ToolFailure> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(invalid(format!("argument {key:?} must be a string"))),
    }
}

fn invalid(message: impl Into<String>) -> ToolFailure {
    ToolFailure::new("invalid_arguments", message)
}

/// Parses a 1-based page selection as the CLI's `--pages` does
/// ([`crate::pdf::PageRange`]'s `FromStr`): `"N"`, `"N-M"` (inclusive,
/// `N <= M`) or `"N-"` (page N to the end), ASCII digits only, each number
/// in `1..=MAX_PAGE_NUMBER`. An open end is `last = MAX_PAGE_NUMBER`, which
/// the extractor clamps to the last page.
///
/// # Errors
/// `invalid_arguments` saying what is wrong with the string.
pub fn parse_pages(s: &str) -> Result<PageRange, ToolFailure> {
    let range: crate::pdf::PageRange = s
        .parse()
        .map_err(|e| invalid(format!("argument \"pages\": {e}")))?;
    Ok(PageRange {
        first: range.first,
        last: range.last.unwrap_or(MAX_PAGE_NUMBER),
    })
}

/// What a tool's `path` may name: the tool descriptions say which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathScope {
    /// Files under the server's root directory (`--root`); `remote`: also
    /// `http(s)` URLs, fetched ([`super::Config::remote`]).
    Root { remote: bool },
    /// Any path the server process can read (`--unconfined`); `remote` as
    /// for [`PathScope::Root`].
    Unconfined { remote: bool },
}

impl PathScope {
    /// Whether `http(s)` URLs are fetched.
    pub fn remote(self) -> bool {
        match self {
            PathScope::Root { remote } | PathScope::Unconfined { remote } => remote,
        }
    }
}

// The parts of the `path` argument's description ([`path_description`]).
macro_rules! root_files {
    () => {
        "The PDF file: a path relative to the server's root directory (or an absolute path inside it). Paths that resolve outside the root, through `..` or symlinks, are refused with error kind path.outside_root."
    };
}
macro_rules! unconfined_files {
    () => {
        "The PDF file: any path this server process can read. UNCONFINED: the server was started with --unconfined, so no root directory limits which files are read. Relative paths are taken from the server's working directory."
    };
}
macro_rules! urls_refused {
    () => {
        " URLs are never fetched: private, loopback, link-local and cloud-metadata destinations are refused with an ssrf.* kind, other URLs with remote_disabled."
    };
}
macro_rules! urls_fetched {
    () => {
        " REMOTE FETCH IS ON (--allow-remote): an http(s) URL is downloaded through an SSRF-safe fetcher, no larger than the file bound. Private, loopback, link-local and cloud-metadata destinations, and redirects to them, are refused with an ssrf.* kind unless the operator allowed them; plain http only if the operator allowed it (else fetch.insecure_scheme)."
    };
}

/// The `tools/list` entries, shaped for `rev` (fields a revision does not
/// define are left out: `annotations` from 2025-03-26, `title` and
/// `outputSchema` from 2025-06-18), describing `path` as `scope` allows.
pub fn definitions(rev: Revision, scope: PathScope) -> &'static [Value] {
    use std::sync::OnceLock;
    // Built once per revision and scope: tools/list is answered from these.
    static CACHE: [[OnceLock<Vec<Value>>; 5]; 4] = [const { [const { OnceLock::new() }; 5] }; 4];
    let by_scope = match scope {
        PathScope::Root { remote: false } => &CACHE[0],
        PathScope::Unconfined { remote: false } => &CACHE[1],
        PathScope::Root { remote: true } => &CACHE[2],
        PathScope::Unconfined { remote: true } => &CACHE[3],
    };
    let slot = match rev {
        Revision::V2024_11_05 => &by_scope[0],
        Revision::V2025_03_26 => &by_scope[1],
        Revision::V2025_06_18 => &by_scope[2],
        Revision::V2025_11_25 => &by_scope[3],
        Revision::V2026_07_28 => &by_scope[4],
    };
    slot.get_or_init(|| {
        vec![
            extract_definition(rev, scope),
            metadata_definition(rev, scope),
        ]
    })
}

/// The `path` argument's description under `scope`.
pub fn path_description(scope: PathScope) -> &'static str {
    match scope {
        PathScope::Root { remote: false } => concat!(root_files!(), urls_refused!()),
        PathScope::Unconfined { remote: false } => concat!(unconfined_files!(), urls_refused!()),
        PathScope::Root { remote: true } => concat!(root_files!(), urls_fetched!()),
        PathScope::Unconfined { remote: true } => concat!(unconfined_files!(), urls_fetched!()),
    }
}

const PASSWORD_DESCRIPTION: &str =
    "Password for an encrypted PDF (user or owner password). Omit for unencrypted files.";

fn warnings_schema() -> Value {
    json!({
        "type": "array",
        "description": "What could not be read: per page (1-based) or for the whole document (page null).",
        "items": {
            "type": "object",
            "properties": {
                "page": {"type": ["integer", "null"]},
                "limit": {"type": ["string", "null"], "description": "The limit reached, when that is the reason (e.g. output_chars, pages_per_call, max_response_bytes)."},
                "message": {"type": "string"}
            },
            "required": ["page", "limit", "message"]
        }
    })
}

/// The tools' annotations: read-only and idempotent; open-world only when
/// they fetch remote URLs.
fn annotations(title: &str, scope: PathScope) -> Value {
    json!({
        "title": title,
        "readOnlyHint": true,
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": scope.remote()
    })
}

fn finish(
    mut tool: Map<String, Value>,
    rev: Revision,
    scope: PathScope,
    title: &str,
    output: Value,
) -> Value {
    if rev.has_tool_annotations() {
        tool.insert("annotations".into(), annotations(title, scope));
    }
    if rev.has_structured_content() {
        tool.insert("title".into(), Value::from(title));
        tool.insert("outputSchema".into(), output);
    }
    Value::Object(tool)
}

fn extract_definition(rev: Revision, scope: PathScope) -> Value {
    let path = path_description(scope);
    let Value::Object(tool) = json!({
        "name": "extract",
        "description": "Extract the text of a PDF file, page by page, in reading order. Returns pageCount (pages in the document) and pages: one {page, text} entry per selected page, page numbers 1-based. Select pages with `pages` (\"3\" or \"2-5\"); all pages when omitted. Failures (missing file, not a PDF, damaged or hostile file, wrong password, refused path) come back as a tool error whose text names a stable error kind.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1, "description": path},
                "pages": {
                    "type": "string",
                    "pattern": "^[0-9]+(-[0-9]*)?$",
                    "description": "1-based page or inclusive page range: \"N\", \"N-M\" with N <= M, or \"N-\" for page N to the end, e.g. \"1\", \"1-3\" or \"2-\". All pages when omitted or null."
                },
                "password": {"type": "string", "description": PASSWORD_DESCRIPTION}
            },
            "required": ["path"],
            "additionalProperties": false
        }
    }) else {
        return Value::Null;
    };
    finish(
        tool,
        rev,
        scope,
        "Extract PDF text",
        json!({
            "type": "object",
            "properties": {
                "pageCount": {"type": "integer", "minimum": 0, "description": "Number of pages in the document."},
                "pages": {
                    "type": "array",
                    "description": "The selected pages in order.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "page": {"type": "integer", "minimum": 1, "description": "1-based page number."},
                            "text": {"type": "string", "description": "The page's text."}
                        },
                        "required": ["page", "text"]
                    }
                },
                "truncated": {"type": "boolean", "description": "A per-call limit (pages, output size, per-page work) cut the result short; warnings say which."},
                "warnings": warnings_schema()
            },
            "required": ["pageCount", "pages", "truncated", "warnings"]
        }),
    )
}

fn metadata_definition(rev: Revision, scope: PathScope) -> Value {
    let path = path_description(scope);
    let Value::Object(tool) = json!({
        "name": "get_metadata",
        "description": "Read a PDF file's metadata without extracting text: PDF version, page count, whether it is encrypted, the document Info dictionary (Title, Author, Subject, Keywords, Creator, Producer, CreationDate, ModDate, ...) and the XMP metadata packet when present. Failures come back as a tool error whose text names a stable error kind.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1, "description": path},
                "password": {"type": "string", "description": PASSWORD_DESCRIPTION}
            },
            "required": ["path"],
            "additionalProperties": false
        }
    }) else {
        return Value::Null;
    };
    finish(
        tool,
        rev,
        scope,
        "Read PDF metadata",
        json!({
            "type": "object",
            "properties": {
                "pdfVersion": {"type": "string", "description": "Version from the file header, e.g. \"1.7\"."},
                "pageCount": {"type": "integer", "minimum": 0},
                "encrypted": {"type": "boolean"},
                "info": {
                    "type": "object",
                    "description": "Document Info dictionary entries, as text.",
                    "additionalProperties": {"type": "string"}
                },
                "xmp": {"type": ["string", "null"], "description": "The XMP metadata packet (XML), or null."},
                "warnings": warnings_schema()
            },
            "required": ["pdfVersion", "pageCount", "encrypted", "info", "xmp", "warnings"]
        }),
    )
}

/// A successful `tools/call` result: the structured value, mirrored as JSON
/// text in `content` (MCP "Structured Content": a tool returning structured
/// content SHOULD also return it serialized in a text block).
pub fn success(structured: Value, rev: Revision) -> Value {
    let text = serde_json::to_string(&structured).unwrap_or_default();
    let mut result = Map::new();
    result.insert("content".into(), json!([{"type": "text", "text": text}]));
    if rev.has_structured_content() {
        result.insert("structuredContent".into(), structured);
    }
    result.insert("isError".into(), Value::Bool(false));
    Value::Object(result)
}

/// A failed `tools/call` result (`isError: true`). The text is a JSON object
/// `{"error": {"kind", "message", ...}}` so both a model and a program can
/// read the stable kind. No `structuredContent`: it would have to match the
/// success `outputSchema`, and some clients validate it even on errors.
pub fn failure(f: &ToolFailure) -> Value {
    let mut error = Map::new();
    error.insert("kind".into(), Value::from(f.kind.clone()));
    error.insert("message".into(), Value::from(f.message.clone()));
    let text = serde_json::to_string(&json!({ "error": error })).unwrap_or_default();
    json!({
        "content": [{"type": "text", "text": text}],
        "isError": true
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn pages_forms() {
        assert_eq!(parse_pages("1-3").unwrap(), PageRange { first: 1, last: 3 });
        assert_eq!(
            parse_pages("2-").unwrap(),
            PageRange {
                first: 2,
                last: MAX_PAGE_NUMBER
            }
        );
        assert!(parse_pages("-").is_err());
        assert!(parse_pages("-3").is_err());
        assert_eq!(parse_pages("7").unwrap(), PageRange { first: 7, last: 7 });
        for bad in [
            "",
            "0",
            "3-1",
            "-",
            "0-",
            "-3",
            "a",
            " 1",
            "1 - 3",
            "1-2-3",
            "+1",
            "99999999999",
        ] {
            assert_eq!(
                parse_pages(bad).unwrap_err().kind,
                "invalid_arguments",
                "{bad:?}"
            );
        }
    }

    #[test]
    fn unknown_and_mistyped_arguments_fail_loudly() {
        let e = validate("extract", &args(json!({"path": "a.pdf", "page": "1"}))).unwrap_err();
        assert!(e.message.contains("\"page\""), "{}", e.message);
        assert!(validate(
            "get_metadata",
            &args(json!({"path": "a.pdf", "pages": "1"}))
        )
        .is_err());
        assert!(validate("extract", &args(json!({"path": 1}))).is_err());
        assert!(validate("extract", &args(json!({}))).is_err());
        assert_eq!(
            validate("extract", &args(json!({"path": "r.pdf", "pages": "1-3"}))).unwrap(),
            ToolCall::Extract {
                path: "r.pdf".into(),
                pages: Some(PageRange { first: 1, last: 3 }),
                password: None
            }
        );
    }

    #[test]
    fn unconfined_descriptions_say_so() {
        for rev in [Revision::V2024_11_05, Revision::V2025_11_25] {
            for (scope, word) in [
                (PathScope::Root { remote: false }, "root directory"),
                (PathScope::Unconfined { remote: false }, "UNCONFINED"),
            ] {
                for t in definitions(rev, scope) {
                    let d = t["inputSchema"]["properties"]["path"]["description"]
                        .as_str()
                        .unwrap();
                    assert!(d.contains(word), "{scope:?}: {d}");
                }
            }
        }
        let d = definitions(
            Revision::V2025_11_25,
            PathScope::Unconfined { remote: false },
        )[0]["inputSchema"]["properties"]["path"]["description"]
            .as_str()
            .unwrap();
        assert!(!d.contains("server's root directory"));
    }

    #[test]
    fn remote_descriptions_say_urls_are_fetched() {
        for files in [true, false] {
            let scope = |remote| {
                if files {
                    PathScope::Root { remote }
                } else {
                    PathScope::Unconfined { remote }
                }
            };
            let on = path_description(scope(true));
            let off = path_description(scope(false));
            assert!(
                on.contains("REMOTE FETCH IS ON") && !on.contains("never fetched"),
                "{on}"
            );
            assert!(
                off.contains("never fetched") && !off.contains("REMOTE"),
                "{off}"
            );
            for t in definitions(Revision::V2025_11_25, scope(true)) {
                assert_eq!(t["inputSchema"]["properties"]["path"]["description"], on);
                assert_eq!(t["annotations"]["openWorldHint"], true);
            }
            for t in definitions(Revision::V2025_11_25, scope(false)) {
                assert_eq!(t["annotations"]["openWorldHint"], false);
            }
        }
    }

    #[test]
    fn schemas_are_closed_and_read_only() {
        for t in definitions(Revision::V2025_11_25, PathScope::Root { remote: false }) {
            assert_eq!(t["inputSchema"]["additionalProperties"], false);
            assert_eq!(t["annotations"]["readOnlyHint"], true);
            assert_eq!(t["annotations"]["openWorldHint"], false);
            assert!(t["outputSchema"].is_object());
        }
        for t in definitions(Revision::V2024_11_05, PathScope::Root { remote: false }) {
            assert!(t.get("annotations").is_none() && t.get("outputSchema").is_none());
        }
    }
}
