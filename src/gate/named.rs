//! What a client request names on the server ([`Named`]), read once from its
//! `params`: the decision on the request, the hiding of entries a listing hid,
//! the audit line and the `requestState` binding all take it from here.

use serde_json::Value;

use super::audit::{audit_name, audit_uri};

/// The members of a `subscriptions/listen` filter (`params.notifications`)
/// that list the resource URIs it subscribes: MCP's `resourceSubscriptions`,
/// and the snake_case name a server built on the Python SDK also reads
/// (its models take a field by its name as well as by its alias). A
/// request naming both is malformed (-32602).
pub(crate) const LISTEN_MEMBERS: [&str; 2] = ["resourceSubscriptions", "resource_subscriptions"];

/// The server-side entry a client request names. A member that is absent
/// or not a string names `""` (nothing the server lists).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Named<'a> {
    /// `tools/call`'s `name`.
    Tool(&'a str),
    /// `prompts/get`'s `name`; a `completion/complete` whose `ref.type`
    /// is `ref/prompt`, its `ref.name`.
    Prompt(&'a str),
    /// The `uri` of `resources/read`, `resources/subscribe` and
    /// `resources/unsubscribe`; a `completion/complete` whose `ref.type`
    /// is `ref/resource`, its `ref.uri`: a resource, or a URI a template
    /// expands to.
    Resource(&'a str),
    /// `subscriptions/listen`'s resource URIs ([`LISTEN_MEMBERS`]; none
    /// when it has none), each named as by a `resources/subscribe`.
    Subscriptions(&'a [Value]),
    /// A `completion/complete` whose `ref.type` is none of MCP's (`""`
    /// when absent).
    UnknownRef(&'a str),
    /// Any other method.
    Nothing,
}

impl<'a> Named<'a> {
    /// What the request `method` with `params` names.
    pub(crate) fn of(method: &str, params: Option<&'a Value>) -> Self {
        let text = |v: Option<&'a Value>, k: &str| {
            v.and_then(|v| v.get(k))
                .and_then(Value::as_str)
                .unwrap_or_default()
        };
        match method {
            "tools/call" => Self::Tool(text(params, "name")),
            "prompts/get" => Self::Prompt(text(params, "name")),
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                Self::Resource(text(params, "uri"))
            }
            "completion/complete" => {
                let target = params.and_then(|p| p.get("ref"));
                match text(target, "type") {
                    "ref/prompt" => Self::Prompt(text(target, "name")),
                    "ref/resource" => Self::Resource(text(target, "uri")),
                    other => Self::UnknownRef(other),
                }
            }
            "subscriptions/listen" => {
                Self::Subscriptions(listen_subscriptions(params).map_or(&[], Vec::as_slice))
            }
            _ => Self::Nothing,
        }
    }

    /// The text a `requestState` issued for the request is bound to
    /// ([`super::IssuedStates`]): the name or URI, the first URI of a
    /// `subscriptions/listen`, else `""`.
    pub(crate) fn subject(self) -> &'a str {
        match self {
            Self::Tool(s) | Self::Prompt(s) | Self::Resource(s) => s,
            Self::Subscriptions(uris) => uris.iter().find_map(Value::as_str).unwrap_or_default(),
            Self::UnknownRef(_) | Self::Nothing => "",
        }
    }

    /// What the request's audit line names: a tool or prompt by its
    /// name ([`audit_name`]), a URI without what may be a secret ([`audit_uri`]); `None`
    /// when it names nothing.
    pub(crate) fn audited(self) -> Option<String> {
        match self {
            Self::Tool(s) | Self::Prompt(s) => Some(audit_name(s)),
            Self::Resource(uri) => Some(audit_uri(uri)),
            Self::Subscriptions(uris) => uris.iter().find_map(Value::as_str).map(audit_uri),
            Self::UnknownRef(_) | Self::Nothing => None,
        }
    }
}

/// What a forwarded request named, kept (owned) until its answer: the
/// text its `requestState` is bound to ([`Named::subject`]) and, made only
/// when an audit line is written, how that line names it
/// ([`Named::audited`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeptName {
    subject: String,
    form: AuditForm,
}

/// How an audit line names a [`KeptName`]'s subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AuditForm {
    Name,
    Uri,
    Nothing,
}

impl KeptName {
    /// The text a `requestState` issued for the request is bound to.
    pub(crate) fn subject(&self) -> &str {
        &self.subject
    }

    /// What an audit line of the request's answer names (as
    /// [`Named::audited`] would).
    pub(crate) fn audited(&self) -> Option<String> {
        match self.form {
            AuditForm::Name => Some(audit_name(&self.subject)),
            AuditForm::Uri => Some(audit_uri(&self.subject)),
            AuditForm::Nothing => None,
        }
    }
}

impl Named<'_> {
    /// The owned form kept for the answer.
    pub(crate) fn kept(self) -> KeptName {
        let form = match self {
            Self::Tool(_) | Self::Prompt(_) => AuditForm::Name,
            Self::Resource(_) => AuditForm::Uri,
            Self::Subscriptions(uris) if uris.iter().any(Value::is_string) => AuditForm::Uri,
            Self::Subscriptions(_) | Self::UnknownRef(_) | Self::Nothing => AuditForm::Nothing,
        };
        KeptName {
            subject: self.subject().to_owned(),
            form,
        }
    }
}

/// The resource URIs a `subscriptions/listen` request's `params` subscribe
/// ([`LISTEN_MEMBERS`]), as an array of values; `None` when there is none.
pub(crate) fn listen_subscriptions(params: Option<&Value>) -> Option<&Vec<Value>> {
    subscriptions_in(params?.get("notifications")?.as_object()?)
}

/// The resource URIs a `subscriptions/listen` filter lists
/// ([`LISTEN_MEMBERS`]).
pub(crate) fn subscriptions_in(filter: &serde_json::Map<String, Value>) -> Option<&Vec<Value>> {
    LISTEN_MEMBERS
        .into_iter()
        .find_map(|m| filter.get(m).and_then(Value::as_array))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_method_names_its_entry() {
        let uris = [json!("demo://a"), json!(7), json!("demo://b")];
        let cases = [
            ("tools/call", json!({"name": "t"}), Named::Tool("t")),
            ("prompts/get", json!({"name": "p"}), Named::Prompt("p")),
            ("prompts/get", json!({"name": 1}), Named::Prompt("")),
            (
                "resources/read",
                json!({"uri": "demo://r"}),
                Named::Resource("demo://r"),
            ),
            (
                "resources/subscribe",
                json!({"uri": "demo://r"}),
                Named::Resource("demo://r"),
            ),
            ("resources/unsubscribe", json!({}), Named::Resource("")),
            (
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "p", "uri": "demo://x"}}),
                Named::Prompt("p"),
            ),
            (
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "name": "p", "uri": "demo://x"}}),
                Named::Resource("demo://x"),
            ),
            (
                "completion/complete",
                json!({"ref": {"type": "ref/tool", "name": "p"}}),
                Named::UnknownRef("ref/tool"),
            ),
            ("completion/complete", json!({}), Named::UnknownRef("")),
            (
                "subscriptions/listen",
                json!({"notifications": {"resourceSubscriptions": uris}}),
                Named::Subscriptions(&uris),
            ),
            (
                "subscriptions/listen",
                json!({"notifications": {"resource_subscriptions": uris}}),
                Named::Subscriptions(&uris),
            ),
            ("subscriptions/listen", json!({}), Named::Subscriptions(&[])),
            (
                "ping",
                json!({"name": "t", "uri": "demo://r"}),
                Named::Nothing,
            ),
        ];
        for (method, params, want) in cases {
            let named = Named::of(method, Some(&params));
            assert_eq!(named, want, "{method} {params}");
            // The kept form names it as the borrowed one does.
            let kept = named.kept();
            assert_eq!(kept.subject(), named.subject(), "{method} {params}");
            assert_eq!(kept.audited(), named.audited(), "{method} {params}");
        }
        assert_eq!(Named::of("prompts/get", None), Named::Prompt(""));
    }

    #[test]
    fn subjects_and_audit_names() {
        let uris = [json!(7), json!("demo://u:pw@a/?k=s"), json!("demo://b")];
        assert_eq!(Named::Tool("t").subject(), "t");
        assert_eq!(Named::Prompt("p").subject(), "p");
        assert_eq!(Named::Resource("demo://r").subject(), "demo://r");
        assert_eq!(Named::Subscriptions(&uris).subject(), "demo://u:pw@a/?k=s");
        assert_eq!(Named::Subscriptions(&[]).subject(), "");
        assert_eq!(Named::UnknownRef("x").subject(), "");
        assert_eq!(Named::Nothing.subject(), "");
        assert_eq!(Named::Tool("t").audited().as_deref(), Some("t"));
        assert_eq!(Named::Prompt("p").audited().as_deref(), Some("p"));
        assert_eq!(
            Named::Resource("demo://u:pw@r/?k=s#f").audited().as_deref(),
            Some("demo://r/")
        );
        assert_eq!(
            Named::Subscriptions(&uris).audited().as_deref(),
            Some("demo://a/")
        );
        assert_eq!(Named::Subscriptions(&[]).audited(), None);
        assert_eq!(Named::UnknownRef("x").audited(), None);
        assert_eq!(Named::Nothing.audited(), None);
    }
}
