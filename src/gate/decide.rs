//! The one decision function: whether a tool exists for the client
//! ([`Gatekeeper::tool_decision`], used both to filter `tools/list` and to
//! refuse `tools/call`), and whether a call's arguments may reach the child
//! ([`Gatekeeper::check_arguments`]).

use serde_json::Value;

use super::code::{GateCode, Refusal};
use super::listing::{listing_members, ToolView};
use super::literals;
use super::named::{Named, LISTEN_MEMBERS};
use super::paths::{
    address_name, content_name, drive_rest, host_member_name, host_name, is_path_name,
    settings_name, uri_name, PathLists, Roots,
};
use super::pin::{Pins, MAX_TOOLS};
use super::poison::{self, PoisonMode};
use super::policy::{ArgKind, ArgRule, GlobList, Policy};
use super::resolve::note_name;
use super::settings::{comma_items, config_items, config_name, settings_items};
use super::unquote::decodings;
use super::urls::{
    has_scheme, host_argument, idna2003_name, lenient_form, list_space, looks_like_url,
    other_readings, scheme_less_name, scp_name, vet_url, HostPlace, PendingName,
};
use super::yaml::{
    after_leading_comments, both_readings, may_be_yaml_block, python_residue, read_yaml,
    read_yaml_forms, yaml_loader_form, YamlRead,
};

/// A JSON number with an integral value as JavaScript's `String(n)` writes
/// it, without a fraction or an exponent (`2130706433.0` is `2130706433`,
/// `-0.0` is `0`); `None` for a number with a fraction, or at or past
/// 10^21, which JavaScript writes with an exponent.
fn js_integer(n: &serde_json::Number) -> Option<String> {
    let f = n.as_f64()?;
    if !f.is_finite() || f.fract() != 0.0 || f.abs() >= 1e21 {
        return None;
    }
    Some(if f == 0.0 {
        "0".to_owned()
    } else {
        format!("{f:.0}")
    })
}

/// Most strings of one call's `arguments` the gateway inspects, object
/// keys counted (each is read for a URL or a path), those of JSON held in
/// a string too; a call with more is refused
/// (`policy.arguments_too_complex`) rather than half-checked.
pub const MAX_SCANNED_STRINGS: usize = 16_384;

/// Client methods that name no server-side operation to vet: forwarded
/// (their answers are screened, lists filtered). `tools/call`,
/// `prompts/get`, `resources/read`/`subscribe`/`unsubscribe`,
/// `subscriptions/listen` (2026-07-28) and `completion/complete` are
/// mediated; any other method is refused (`policy.method_denied`) unless
/// `[methods] allow` names it.
pub const PASSED_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "logging/setLevel",
    "tasks/get",
    "tasks/list",
    "tasks/result",
    "tasks/cancel",
];

/// Most resource URIs one `subscriptions/listen` may name
/// (`notifications.resourceSubscriptions`); a longer list is invalid
/// params (-32602), each URI being decided as a `resources/subscribe` is.
pub const MAX_LISTEN_SUBSCRIPTIONS: usize = 1024;

/// What the gateway last saw of a tool's definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolState {
    /// [`super::pin::definition_hash`] of the whole definition as the child sent it.
    pub hash: String,
    /// `true` when a string of the definition (its name aside) carries
    /// invisible or deceptive characters.
    pub poisoned: bool,
    /// `true` when two keys of one object of the definition are equal once
    /// their hidden characters are removed ([`super::poison::Findings::collisions`]):
    /// under `--poison strip` such a tool is hidden and refused.
    pub colliding: bool,
    /// `true` when one listing (its pages together) gave this name two
    /// different definitions: the tool is refused until a later listing
    /// gives it one ([`super::listing::ToolView`]).
    pub conflicting: bool,
}

/// Checks the members a mediated request names its operation by: each must
/// have the type the MCP schema gives it, or the request is invalid
/// (-32602) rather than decided on a guess (`{"name": ["fetch"]}` is not
/// the tool `fetch`, nor no tool). `tools/call`: `name` a string,
/// `arguments` an object when present; `prompts/get`: `name` a string,
/// `arguments` an object of strings when present; `resources/read`,
/// `subscribe`, `unsubscribe`: `uri` a string; `completion/complete`:
/// `ref` an object whose `type` is a string and whose `name`
/// (`ref/prompt`) or `uri` (`ref/resource`) is a string, `argument` an
/// object with string `name` and `value`, `context.arguments` an object of
/// strings when present; `subscriptions/listen`: `notifications` an
/// object whose `resourceSubscriptions`, when present, is an array of at
/// most [`MAX_LISTEN_SUBSCRIPTIONS`] strings. Other methods: `params` an
/// object when present.
///
/// # Errors
/// The RFC 6901 pointer of the first member of the wrong type, and what
/// it should be.
pub fn params_shape(method: &str, params: Option<&Value>) -> Result<(), ParamsShapeError> {
    let Some(params) = params else {
        return match method {
            "tools/call"
            | "prompts/get"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "completion/complete"
            | "subscriptions/listen" => Err(shape("/params", "is missing")),
            _ => Ok(()),
        };
    };
    let Some(p) = params.as_object() else {
        return Err(shape("/params", "must be an object"));
    };
    let string = |v: Option<&Value>, at: &str| match v {
        Some(Value::String(_)) => Ok(()),
        _ => Err(shape(at, "must be a string")),
    };
    let object_of_strings = |v: Option<&Value>, at: &str| match v {
        None => Ok(()),
        Some(Value::Object(m)) => match m.iter().find(|(_, v)| !v.is_string()) {
            None => Ok(()),
            Some((k, _)) => Err(shape(
                format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                "must be a string",
            )),
        },
        Some(_) => Err(shape(at, "must be an object")),
    };
    match method {
        "tools/call" => {
            string(p.get("name"), "/params/name")?;
            match p.get("arguments") {
                None | Some(Value::Object(_)) => Ok(()),
                Some(_) => Err(shape("/params/arguments", "must be an object")),
            }
        }
        "prompts/get" => {
            string(p.get("name"), "/params/name")?;
            object_of_strings(p.get("arguments"), "/params/arguments")
        }
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            string(p.get("uri"), "/params/uri")
        }
        "subscriptions/listen" => {
            let Some(Value::Object(n)) = p.get("notifications") else {
                return Err(shape("/params/notifications", "must be an object"));
            };
            let given: Vec<&str> = LISTEN_MEMBERS
                .into_iter()
                .filter(|m| n.get(*m).is_some_and(|v| !v.is_null()))
                .collect();
            if given.len() > 1 {
                return Err(shape(
                    "/params/notifications",
                    "must name its resource subscriptions once (resourceSubscriptions or resource_subscriptions)",
                ));
            }
            let Some(member) = given.first() else {
                return Ok(());
            };
            match n.get(*member) {
                Some(Value::Array(uris)) if uris.len() > MAX_LISTEN_SUBSCRIPTIONS => Err(shape(
                    format!("/params/notifications/{member}"),
                    format!("must hold at most {MAX_LISTEN_SUBSCRIPTIONS} URIs"),
                )),
                Some(Value::Array(uris)) => match uris.iter().position(|u| !u.is_string()) {
                    None => Ok(()),
                    Some(i) => Err(shape(
                        format!("/params/notifications/{member}/{i}"),
                        "must be a string",
                    )),
                },
                _ => Err(shape(
                    format!("/params/notifications/{member}"),
                    "must be an array",
                )),
            }
        }
        "completion/complete" => {
            let Some(Value::Object(r)) = p.get("ref") else {
                return Err(shape("/params/ref", "must be an object"));
            };
            string(r.get("type"), "/params/ref/type")?;
            match r.get("type").and_then(Value::as_str) {
                Some("ref/prompt") => string(r.get("name"), "/params/ref/name")?,
                Some("ref/resource") => string(r.get("uri"), "/params/ref/uri")?,
                _ => {}
            }
            let Some(Value::Object(a)) = p.get("argument") else {
                return Err(shape("/params/argument", "must be an object"));
            };
            string(a.get("name"), "/params/argument/name")?;
            string(a.get("value"), "/params/argument/value")?;
            match p.get("context") {
                None => Ok(()),
                Some(Value::Object(c)) => {
                    object_of_strings(c.get("arguments"), "/params/context/arguments")
                }
                Some(_) => Err(shape("/params/context", "must be an object")),
            }
        }
        _ => Ok(()),
    }
}

/// A member of a request's `params` of the wrong type, or missing
/// ([`params_shape`]); shown as `"{pointer} {expected}"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamsShapeError {
    /// The member's RFC 6901 pointer in the message (`/params/name`).
    pub pointer: String,
    /// What it must be (`must be a string`, `is missing`).
    pub expected: String,
}

impl ParamsShapeError {
    /// The stable machine-readable name, as the core names the same
    /// faults of `tools/call` ([`crate::rpc::RpcError::code`]):
    /// `missing_params`, `params_not_object`, `invalid_name` (a `name`
    /// that is no string), `arguments_not_object`, and `invalid_params`
    /// for any other member.
    pub fn kind(&self) -> &'static str {
        match (self.pointer.as_str(), self.expected.as_str()) {
            ("/params", "is missing") => "missing_params",
            ("/params", _) => "params_not_object",
            ("/params/name", _) => "invalid_name",
            ("/params/arguments", "must be an object") => "arguments_not_object",
            _ => "invalid_params",
        }
    }
}

impl std::fmt::Display for ParamsShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.pointer, self.expected)
    }
}

impl std::error::Error for ParamsShapeError {}

fn shape(pointer: impl Into<String>, expected: impl Into<String>) -> ParamsShapeError {
    ParamsShapeError {
        pointer: pointer.into(),
        expected: expected.into(),
    }
}

/// The static part of every decision: the policy, the roots, the poison mode.
#[derive(Debug, Clone, Default)]
pub struct Gatekeeper {
    /// The policy (file and flags merged).
    pub policy: Policy,
    /// The canonical roots, when any.
    pub roots: Option<Roots>,
    /// `--poison`.
    pub poison: PoisonMode,
}

const URL_RULE: &str = "builtin url check";

impl Gatekeeper {
    /// May tool `name` be shown and called? `view` holds what the gateway
    /// saw of each tool's definition in the child's latest listings; `pins` is the
    /// pin set under `--pin`.
    ///
    /// # Errors
    /// `tool.poisoned` (a name with hidden characters, or a poisoned
    /// definition under `--poison refuse`), `policy.tool_denied`, and under
    /// `--pin`: `tool.not_listed`, `tool.not_pinned`, `tool.definition_changed`;
    /// `tool.not_listed` also for a tool `view` does not hold once it
    /// [`overflowed`](ToolView::overflowed).
    ///
    /// A tool is decided with every other tool of `view` whose name folds
    /// as `name` does ([`ToolView::twins`], [`super::policy::fold_name`]): a
    /// server that folds case or normalises compatibility characters may
    /// read `evil`, `ＥＶＩＬ` or `ﬁle_x` as the tool `Evil` or `file_x` it listed, so
    /// a twin refused by its state (poisoned, colliding, listed twice with
    /// different definitions, and under `--pin` not pinned or changed)
    /// refuses `name` too, with the twin's code.
    pub fn tool_decision(
        &self,
        name: &str,
        view: &ToolView,
        pins: Option<&Pins>,
    ) -> Result<(), Refusal> {
        self.decide_one(name, view.get(name), pins)?;
        if view.overflowed() && view.get(name).is_none() {
            return Err(Refusal::new(
                GateCode::NotListed,
                format!(
                    "tool `{name}` is not among the tools the gateway recorded: the child listed more than {MAX_TOOLS} tools"
                ),
                "builtin listing bound",
            ));
        }
        // A twin refused by its name too (hidden characters a server
        // stripping them reads past: `read\u{200B}_file` for `read_file`).
        for (twin, state) in view.twins(name) {
            if let Err(r) = self.decide_one(twin, Some(state), pins) {
                return Err(r.named_as(&format!(
                    "tool `{name}` may be read as the listed tool `{twin}` (names folded): "
                )));
            }
        }
        Ok(())
    }

    /// `name` decided by its own name and `current`, the state of exactly
    /// that name (none of its twins).
    pub(crate) fn decide_one(
        &self,
        name: &str,
        current: Option<&ToolState>,
        pins: Option<&Pins>,
    ) -> Result<(), Refusal> {
        let lists = NameLists {
            kind: "tool",
            section: "tools",
            deny: &self.policy.tools_deny,
            allow: self.policy.tools_allow.as_ref(),
            poisoned: GateCode::Poisoned,
            denied: GateCode::ToolDenied,
        };
        lists.decide(name)?;
        self.state_decision(name, current, pins)
    }

    /// The refusals of a tool by its state: `current` (`None`: not listed)
    /// and, under `--pin`, its pin.
    fn state_decision(
        &self,
        name: &str,
        current: Option<&ToolState>,
        pins: Option<&Pins>,
    ) -> Result<(), Refusal> {
        if current.is_some_and(|c| c.conflicting) {
            return Err(Refusal::new(
                GateCode::BadResponse,
                format!("tool `{name}` was listed twice with different definitions"),
                "builtin listing check",
            ));
        }
        if self.poison == PoisonMode::Strip && current.is_some_and(|c| c.colliding) {
            return Err(Refusal::new(
                GateCode::Poisoned,
                format!("the definition of `{name}` has keys equal to other keys once their hidden characters are removed"),
                "--poison strip",
            ));
        }
        if self.poison == PoisonMode::Refuse && current.is_some_and(|c| c.poisoned) {
            return Err(Refusal::new(
                GateCode::Poisoned,
                format!("the definition of `{name}` carries invisible or deceptive characters"),
                "--poison refuse",
            ));
        }
        if let Some(pins) = pins {
            let Some(current) = current else {
                return Err(Refusal::new(
                    GateCode::NotListed,
                    format!("tool `{name}` is not in the child's tool list"),
                    "--pin",
                ));
            };
            match pins.get(name) {
                None => {
                    return Err(Refusal::new(
                        GateCode::NotPinned,
                        format!("tool `{name}` is not in the pin file; accept it with --pin-update"),
                        "--pin",
                    ))
                }
                Some(h) if h != current.hash => {
                    return Err(Refusal::new(
                        GateCode::DefinitionChanged,
                        format!(
                            "the definition of `{name}` changed since it was pinned; accept it with --pin-update"
                        ),
                        "--pin",
                    ))
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// May prompt `name` be shown (`prompts/list`) and used (`prompts/get`,
    /// `completion/complete`)? The one decision for both.
    ///
    /// # Errors
    /// `policy.prompt_denied`.
    pub fn prompt_decision(&self, name: &str) -> Result<(), Refusal> {
        NameLists {
            kind: "prompt",
            section: "prompts",
            deny: &self.policy.prompts_deny,
            allow: self.policy.prompts_allow.as_ref(),
            poisoned: GateCode::PromptDenied,
            denied: GateCode::PromptDenied,
        }
        .decide(name)
    }

    /// `true` when `text` is a URI of a scheme `[resources] schemes` names
    /// as the server's own (an opaque name, not a URL to vet).
    pub(crate) fn is_own_resource(&self, text: &str) -> bool {
        if self.policy.resource_schemes.is_empty() {
            return false;
        }
        let form = lenient_form(text);
        form.split_once(':').is_some_and(|(scheme, _)| {
            self.policy
                .resource_schemes
                .iter()
                .any(|s| s.eq_ignore_ascii_case(scheme))
        })
    }

    /// May the resource at `uri` be shown (`resources/list`) and used
    /// (`resources/read`, `subscribe`, `completion/complete`)? The one
    /// decision for both: a `file:` URI, and a URI without a scheme, is a
    /// path on the server's machine (the path check, when roots are set;
    /// the second also gets the URL check, `//host/x` being both); a URI of a scheme `[resources]
    /// schemes` names is the server's own name and passes (an `[[args]]`
    /// rule still applies); any other URI gets the URL check
    /// ([`Gatekeeper::check_arguments`] with `method` as the operation name,
    /// so an `[[args]]` rule for `resources/read` with pointer `/uri`
    /// applies). A URI that carries invisible or deceptive characters is
    /// refused first (`tool.poisoned`), in every `--poison` mode, as a
    /// tool or prompt name is: stripped, it would name another resource.
    ///
    /// # Errors
    /// The first refusal.
    pub fn resource_decision(&self, method: &str, uri: &str) -> Result<Vec<PendingName>, Refusal> {
        uri_within_bound(uri)?;
        let (found, _) = poison::clean(uri);
        if !found.is_clean() {
            return Err(Refusal::new(
                GateCode::Poisoned,
                format!("the resource URI carries {}", found.summary()),
                "builtin poison check (names)",
            ));
        }
        if let Some(roots) = &self.roots {
            let form = lenient_form(uri);
            match url::Url::parse(&form) {
                // No scheme: a server reads it as a path on its machine
                // (the TypeScript SDK hands the string over as it is).
                Err(url::ParseError::RelativeUrlWithoutBase) => roots.check(
                    &form,
                    "builtin path check (a resource URI without a scheme)",
                )?,
                Ok(u) if u.scheme() == "file" => {
                    let rule = "builtin path check (file: resource)";
                    if u.query().is_some() || u.fragment().is_some() {
                        // A server that strips `file://` would read them as
                        // part of the path.
                        return Err(Refusal::from_denial(
                            &crate::net::Denial::outside_root(
                                "a file: URI with a query or fragment",
                            ),
                            rule,
                        ));
                    }
                    let Ok(path) = u.to_file_path() else {
                        return Err(Refusal::from_denial(
                            &crate::net::Denial::outside_root(
                                "a file: URI that names no local path",
                            ),
                            rule,
                        ));
                    };
                    roots.check(&path.to_string_lossy(), rule)?;
                    // The path as written too: a server that takes the
                    // URL's path (Python's `urlparse(uri).path`) or strips
                    // `file://` hands `R/sub//../..` to the system, which
                    // names R's parent, where the URL parser's `..` takes
                    // the empty segment off (`R`). An RFC 6570 expansion
                    // of a variable not given writes that `//`.
                    roots.check(written_file_path(&form), rule)?;
                    return Ok(Vec::new());
                }
                _ => {}
            }
        }
        self.check_arguments(method, &serde_json::json!({ "uri": uri }))
    }

    /// Decides a request other than `tools/call` that names a server-side
    /// operation: the same argument checks, and the same hiding decisions
    /// as the lists ([`Gatekeeper::filter_list_page`]); a method not in
    /// [`PASSED_METHODS`] nor mediated here is refused unless `[methods]
    /// allow` names it.
    ///
    /// # Errors
    /// The first refusal.
    pub fn check_request(
        &self,
        method: &str,
        params: Option<&Value>,
    ) -> Result<Vec<PendingName>, Refusal> {
        let keeper = self;
        let params_value = params;
        let known: &[&str] = match method {
            "prompts/get" => &["name", "arguments"],
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => &["uri"],
            "completion/complete" => &["ref", "argument", "context"],
            "subscriptions/listen" => &["notifications"],
            _ => &[],
        };
        if !known.is_empty() {
            let mut names = keeper.check_other_params(params_value, known)?;
            names.extend(keeper.decide_request(method, params_value)?);
            return Ok(names);
        }
        keeper.decide_request(method, params_value)
    }

    /// [`check_request`](Self::check_request) on the members each method names.
    fn decide_request(
        &self,
        method: &str,
        params_value: Option<&Value>,
    ) -> Result<Vec<PendingName>, Refusal> {
        let keeper = self;
        let params = params_value.and_then(Value::as_object);
        let text = |m: Option<&serde_json::Map<String, Value>>, k: &str| {
            m.and_then(|p| p.get(k))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let named = Named::of(method, params_value);
        match (method, named) {
            (m, _) if PASSED_METHODS.contains(&m) => Ok(Vec::new()),
            ("prompts/get", Named::Prompt(name)) => {
                keeper.prompt_decision(name)?;
                let args = params
                    .and_then(|p| p.get("arguments"))
                    .cloned()
                    .unwrap_or(Value::Null);
                keeper.check_arguments(name, &args)
            }
            (_, Named::Resource(uri)) if method != "completion/complete" => {
                keeper.resource_decision(method, uri)
            }
            (_, Named::Subscriptions(uris)) => {
                // Each URI as its `resources/subscribe` (the method it
                // replaces); the filter's other members as arguments are.
                let mut names = Vec::new();
                for uri in uris.iter().filter_map(Value::as_str) {
                    names.extend(
                        keeper
                            .resource_decision("resources/subscribe", uri)
                            .map_err(|r| r.about(uri))?,
                    );
                }
                let filter = params
                    .and_then(|p| p.get("notifications"))
                    .and_then(Value::as_object);
                if let Some(n) = filter {
                    keeper.walk_members(n, |k| LISTEN_MEMBERS.contains(&k), &mut names)?;
                }
                Ok(names)
            }
            ("completion/complete", named) => {
                let target_ref = params.and_then(|p| p.get("ref")).and_then(Value::as_object);
                let mut names = Vec::new();
                let target = match named {
                    Named::Prompt(n) => {
                        keeper.prompt_decision(n)?;
                        n
                    }
                    Named::Resource(u) => {
                        names.extend(keeper.completion_decision(u, &Given::new(params))?);
                        u
                    }
                    Named::UnknownRef(other) => {
                        return Err(Refusal::new(
                            GateCode::MethodDenied,
                            format!("completion/complete for an unknown ref type `{other}`"),
                            "builtin method table",
                        ))
                    }
                    _ => "",
                };
                // Members of `ref` beside the ones the spec names (`type`,
                // and `name` and `title` or `uri`): a server may read them.
                if let Some(r) = target_ref {
                    keeper.walk_members(r, |k| matches!(k, "type" | "name" | "uri"), &mut names)?;
                }
                if let Some(a) = params
                    .and_then(|p| p.get("argument"))
                    .and_then(Value::as_object)
                {
                    let mut one = serde_json::Map::new();
                    one.insert(
                        text(Some(a), "name"),
                        a.get("value").cloned().unwrap_or(Value::Null),
                    );
                    names.extend(keeper.check_arguments(target, &Value::Object(one))?);
                }
                if let Some(c) = params
                    .and_then(|p| p.get("context"))
                    .and_then(|c| c.get("arguments"))
                {
                    names.extend(keeper.check_arguments(target, c)?);
                }
                Ok(names)
            }
            (m, _) if keeper.policy.methods_allow.first_match(m).is_some() => {
                let mut p = params.cloned().map_or(Value::Null, Value::Object);
                if let Some(o) = p.as_object_mut() {
                    o.remove("_meta");
                }
                keeper.check_arguments(m, &p)
            }
            _ => Err(Refusal::new(
                GateCode::MethodDenied,
                format!("method `{method}` is not mediated by the gateway"),
                "[methods] allow",
            )),
        }
    }

    /// Takes out of a `tools/list` or `prompts/list` page (`method`; any
    /// other is left alone) every entry whose `name` is longer than
    /// [`MAX_NAME_BYTES`]: the gateway records each name it shows for the
    /// session, and a name no client calls needs no room (attack s72-A,
    /// F2: ten names of 1.4 MB a listing kept 48 MiB each, never given
    /// back). Returns each name taken out, cut to its first
    /// [`SHOWN_NAME_BYTES`] bytes, with why (`tool.bad_response`).
    pub fn drop_overlong_names(method: &str, result: &mut Value) -> Vec<(String, Refusal)> {
        let member = match method {
            "tools/list" => "tools",
            "prompts/list" => "prompts",
            _ => return Vec::new(),
        };
        let mut dropped = Vec::new();
        if let Some(items) = result.get_mut(member).and_then(Value::as_array_mut) {
            items.retain(|item| {
                let Some(name) = item.get("name").and_then(Value::as_str) else {
                    return true;
                };
                if name.len() <= MAX_NAME_BYTES {
                    return true;
                }
                let refusal = Refusal::new(
                    GateCode::BadResponse,
                    format!(
                        "a {member} entry whose name is {} bytes long (more than {MAX_NAME_BYTES})",
                        name.len()
                    ),
                    "builtin name length",
                );
                dropped.push((cut_name(name), refusal));
                false
            });
        }
        dropped
    }

    /// Filters one page of `prompts/list`, `resources/list` or
    /// `resources/templates/list` in place: every entry the same decision
    /// refuses when it is used ([`Gatekeeper::prompt_decision`],
    /// [`Gatekeeper::resource_decision`]) is removed, so shown = usable. A
    /// resource template (RFC 6570) is decided on its representative
    /// expansion ([`representative_expansion`]): one whose fixed parts
    /// alone are refused (a refused scheme or host, a `file:` path outside
    /// the roots) is hidden, and so is one with a variable in its scheme or
    /// authority (the gateway cannot vouch for its hosts); every URI read from a
    /// shown template is still decided by `resources/read`. An entry
    /// without its string key (`name`, `uri`, `uriTemplate`) is hidden
    /// (`tool.bad_response`). Returns each entry hidden, by its key's text
    /// (none for an entry without it), with why.
    pub fn filter_list_page(
        &self,
        method: &str,
        result: &mut Value,
    ) -> Vec<(Option<String>, Refusal)> {
        let mut hidden = Vec::new();
        let Some((member @ ("prompts" | "resources" | "resourceTemplates"), key)) =
            listing_members(method)
        else {
            return hidden;
        };
        let Some(items) = result.get_mut(member).and_then(Value::as_array_mut) else {
            return hidden;
        };
        items.retain(|item| {
            let text = item.get(key).and_then(Value::as_str);
            let decided = match (member, text) {
                (_, None) => Err(Refusal::new(
                    GateCode::BadResponse,
                    format!("a {member} entry without a string `{key}`"),
                    "builtin listing check",
                )),
                ("prompts", Some(name)) => self.prompt_decision(name),
                ("resources", Some(uri)) => {
                    self.resource_decision("resources/read", uri).map(|_| ())
                }
                (_, Some(template)) => representative_expansion(template)
                    .and_then(|uri| self.resource_decision("resources/read", &uri).map(|_| ())),
            };
            match decided {
                Ok(()) => true,
                Err(r) => {
                    hidden.push((text.map(str::to_owned), r));
                    false
                }
            }
        });
        hidden
    }

    /// The whole decision on a `tools/call`: [`Gatekeeper::tool_decision`]
    /// (the same one that filters `tools/list`), then
    /// [`Gatekeeper::check_arguments`].
    ///
    /// # Errors
    /// The first refusal.
    pub fn check_call(
        &self,
        name: &str,
        view: &ToolView,
        pins: Option<&Pins>,
        args: &Value,
    ) -> Result<Vec<PendingName>, Refusal> {
        self.tool_decision(name, view, pins)?;
        self.check_arguments(name, args)
    }

    /// [`path_list_parts`] of a path text, none under `[paths] lists =
    /// "whole"` (the child takes it as one path).
    fn path_list_parts<'s>(&self, s: &'s str) -> impl Iterator<Item = &'s str> {
        let split = self.policy.lists == PathLists::Split;
        path_list_parts(s).filter(move |_| split)
    }

    /// Checks a call's `arguments` (an object, or anything: only objects
    /// hold arguments): the `[[args]]` rules of the tool, then every other
    /// string (URLs; path-named arguments when roots are set). Returns the
    /// host names the child will resolve, for `--resolve`.
    ///
    /// # Errors
    /// The first refusal found.
    pub fn check_arguments(&self, tool: &str, args: &Value) -> Result<Vec<PendingName>, Refusal> {
        let mut names = Vec::new();
        let mut exempt: Vec<&Value> = Vec::new();
        let mut budget = MAX_SCANNED_STRINGS;
        for rule in self.policy.args.iter().filter(|r| r.applies_to(tool)) {
            match args.pointer(&rule.pointer) {
                Some(v) => {
                    // A rule matched only by a folded name restricts, and
                    // lifts no default check (attack s66, A-F1).
                    if rule.exempts(tool) {
                        exempt.push(v);
                    }
                    self.apply_rule(rule, v, &mut names, &mut budget)?;
                }
                // The pointer may lead into JSON held in a string (a server
                // on the Python SDK decodes it): the rule applies there too.
                None => {
                    for v in pointer_through_strings(args, &rule.pointer) {
                        self.apply_rule(rule, &v, &mut names, &mut budget)?;
                    }
                }
            }
        }
        self.walk_values(args, &exempt, &mut budget, &mut names)?;
        Ok(names)
    }

    /// Checks the members of a mediated request's `params` beside the ones
    /// its method names (`known`), `_meta` and `inputResponses` (checked as
    /// the client's answers are, [`check_client_answer`](Self::check_client_answer)), as arguments are checked
    /// (URLs anywhere, path-named members): a server may read a member
    /// the protocol does not define. Returns the host names to resolve.
    ///
    /// # Errors
    /// The first refusal found.
    pub fn check_other_params(
        &self,
        params: Option<&Value>,
        known: &[&str],
    ) -> Result<Vec<PendingName>, Refusal> {
        let Some(p) = params.and_then(Value::as_object) else {
            return Ok(Vec::new());
        };
        let mut names = Vec::new();
        self.walk_members(
            p,
            |k| matches!(k, "_meta" | "inputResponses") || known.contains(&k),
            &mut names,
        )?;
        Ok(names)
    }

    /// Walks the members of `m` that `skip` leaves, as arguments are
    /// walked (URLs anywhere, path-named members); host names to resolve
    /// go to `names`.
    fn walk_members(
        &self,
        m: &serde_json::Map<String, Value>,
        skip: impl Fn(&str) -> bool,
        names: &mut Vec<PendingName>,
    ) -> Result<(), Refusal> {
        let rest: serde_json::Map<String, Value> = m
            .iter()
            .filter(|(k, _)| !skip(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if rest.is_empty() {
            return Ok(());
        }
        let mut budget = MAX_SCANNED_STRINGS;
        self.walk_values(&Value::Object(rest), &[], &mut budget, names)
    }

    /// Checks what the client sends the server as an answer rather than as
    /// arguments: the `result` of its response to a server's request
    /// (`sampling/createMessage`, `elicitation/create`, …) or its `error`
    /// object, and the `inputResponses` of a 2026-07-28 request. Every
    /// string is checked as an argument's would be (URLs anywhere,
    /// path-named members); no `[[args]]` rule applies. One thing only is
    /// the client's to give unchecked: the `file:` URIs of this machine
    /// (no host, or `localhost`) in a roots list standing where an answer
    /// to `roots/list` stands (the `roots` member of the result of the
    /// server's `roots/list`, or of an input response that has no other
    /// member: [`Answered`]); a `roots`
    /// member anywhere else, or a root of another scheme, is checked like
    /// any other value (with `--root` the gateway answers `roots/list`
    /// with its own). Returns the host names the child will resolve, for
    /// `--resolve`.
    ///
    /// # Errors
    /// The first refusal found.
    pub fn check_client_answer(
        &self,
        answer: &Value,
        form: Answered,
    ) -> Result<Vec<PendingName>, Refusal> {
        let mut exempt = Vec::new();
        match form {
            // With `--root` the gateway answers `roots/list` itself: no
            // client result is an answer to it.
            // With `--root` the gateway answers `roots/list` itself: no
            // client result is an answer to it.
            Answered::Result => {}
            Answered::RootsList if self.roots.is_some() => {}
            Answered::RootsList => root_file_uris(answer, &mut exempt),
            Answered::Inputs => {
                // An entry is a roots list when it has no other member
                // (a sampled or elicited answer has `role` or `action`).
                if let Value::Object(m) = answer {
                    for v in m.values() {
                        let roots_only = v
                            .as_object()
                            .is_some_and(|e| e.keys().all(|k| k == "roots" || k == "_meta"));
                        if roots_only {
                            root_file_uris(v, &mut exempt);
                        }
                    }
                }
            }
        }
        let mut names = Vec::new();
        let mut budget = MAX_SCANNED_STRINGS;
        self.walk_values(answer, &exempt, &mut budget, &mut names)?;
        Ok(names)
    }

    /// Keeps `name` for `--resolve` (`[net] resolve`), once per host and
    /// port; without it no name is looked up, and none is kept.
    ///
    /// # Errors
    /// `policy.arguments_too_complex` past [`super::MAX_RESOLVED_NAMES`].
    pub(crate) fn note(
        &self,
        names: &mut Vec<PendingName>,
        name: PendingName,
    ) -> Result<(), Refusal> {
        if !self.policy.resolve {
            return Ok(());
        }
        // The name as IDNA 2003 reads it too, where that differs (`ß` is
        // `ss` to a Python server, `xn--zca` to the core): a server may
        // look up either.
        if let Some(other) = idna2003_name(name.host()) {
            match self
                .policy
                .net
                .classify_url(&format!("http://{other}:{}/", name.port()))
            {
                Ok(a) => note_name(names, name.renamed(a))?,
                Err(d) => return Err(Refusal::from_denial(&d, URL_RULE)),
            }
        }
        note_name(names, name)
    }

    /// The generic walk of [`check_arguments`](Self::check_arguments): every
    /// string and key under `root` but the `exempt` values, each read as its
    /// place says ([`Place`]); host names to resolve go to `names`.
    fn walk_values(
        &self,
        root: &Value,
        exempt: &[&Value],
        budget: &mut usize,
        names: &mut Vec<PendingName>,
    ) -> Result<(), Refusal> {
        let mut scan = Scan {
            budget,
            names,
            nesting: 0,
            prose: false,
        };
        self.walk_from(root, Place::Plain, exempt, &mut scan)
    }

    /// [`walk_values`](Self::walk_values) from `root` in `start`'s place.
    /// A string that holds a JSON array or object ([`embedded_json`]) is
    /// checked as well as what it holds, in the string's place, down to
    /// [`MAX_EMBEDDED_JSON_DEPTH`] texts deep.
    fn walk_from(
        &self,
        root: &Value,
        start: Place,
        exempt: &[&Value],
        scan: &mut Scan<'_>,
    ) -> Result<(), Refusal> {
        // Each value with how its place reads it (`Place`).
        // Each value with its place and whether it is an element of an
        // array (a record of the tool's schema, not a map of the caller's).
        let mut stack: Vec<(&Value, Place, bool)> = vec![(root, start, false)];
        while let Some((v, place, element)) = stack.pop() {
            if exempt.iter().any(|e| std::ptr::eq(*e, v)) {
                continue;
            }
            match v {
                Value::String(s) => {
                    spend(scan.budget)?;
                    // One value, both readings: a path-named argument that
                    // looks like a URL gets the URL check and the path
                    // check. The one it is written as first, so that a
                    // refusal names what the text says: a URL with a
                    // scheme is checked as a URL first, a path without one
                    // (`//tmp/x`, also a network-path URL to host `tmp`)
                    // as a path first.
                    let checked = match place {
                        Place::Path => true,
                        Place::InPath => reads_as_a_path(s),
                        Place::FileUri => !looks_like_url(s),
                        Place::Uri => !looks_like_url(s) && reads_as_a_path(s),
                        Place::Plain
                        | Place::Settings
                        | Place::Config
                        | Place::Host
                        | Place::InHost
                        | Place::Address => false,
                    } && (!scan.prose || reads_as_a_path(s));
                    let path_check = |scan: &mut Scan<'_>| -> Result<(), Refusal> {
                        if let (true, Some(roots)) = (checked, &self.roots) {
                            roots.check(s, "builtin path check (by argument name)")?;
                            for part in self.path_list_parts(s) {
                                spend(scan.budget)?;
                                roots.check(part, "builtin path check (by argument name)")?;
                            }
                        }
                        Ok(())
                    };
                    let as_url = has_scheme(&lenient_form(s));
                    if !as_url {
                        path_check(scan)?;
                    }
                    self.vet_url_forms(s, scan)?;
                    if as_url {
                        path_check(scan)?;
                    }
                    // A host-named value is a host, whatever it looks
                    // like: an address in any notation is vetted (`::1`,
                    // `127.1`), and under `--resolve` a name is looked up.
                    // Under `--resolve`, a scheme-less name under a
                    // URI-named key is looked up as a server that adds
                    // `http://` would (#20 F7); no answer: it was text.
                    // A URI-named one is read as a server that adds
                    // `http://` reads it (#20 F7): an address or a name the
                    // operator denies is refused, resolved or not.
                    match place {
                        Place::Host | Place::InHost => {
                            self.vet_host(s, place, scan)?;
                            // A list of URLs the host list reads as one
                            // (`https://a.example/,http://127.0.0.1/`):
                            // each element as the first (attack s80 on
                            // #20, 1).
                            self.walk_settings(comma_items(s), scan)?;
                        }
                        // Under an `address` key only a text with a dot or
                        // a colon (`::1`, `127.1`, `10.0.0.1:80`): a bare
                        // number there is a memory, wallet or bus address
                        // (`0x401000`, `0x48`).
                        Place::Address if s.contains(['.', ':']) => {
                            self.vet_host(s, Place::InHost, scan)?;
                        }
                        Place::Uri => {
                            for n in scheme_less_name(&self.policy.net, s, URL_RULE)? {
                                self.note(scan.names, n)?;
                            }
                            // A list of URLs or hosts with ports: each
                            // element as the first (`example.com,[::1]:8080`;
                            // attack s80 on #20, 1).
                            self.walk_settings(comma_items(s), scan)?;
                        }
                        _ => {}
                    }
                    self.walk_embedded(s, place, scan)?;
                    // Configuration text that is no JSON or YAML: TOML,
                    // env or query text (`host = "db"`, `HOST=db`,
                    // `host=db&port=1`), read as settings text.
                    if place == Place::Settings
                        || (place == Place::Config
                            && !matches!(embedded_json(s), Embedded::Json(_) | Embedded::Block(_)))
                    {
                        self.walk_settings(settings_items(s), scan)?;
                    }
                    // Configuration text in the shapes settings text has
                    // not: TOML over several lines, INI's `key: value`,
                    // properties' `key value`, XML element text (attack
                    // s78-A, B1, B2).
                    if place == Place::Config
                        && !matches!(embedded_json(s), Embedded::Json(_) | Embedded::Block(_))
                    {
                        self.walk_settings(config_items(s), scan)?;
                    }
                }
                // A number where a host goes is the address it spells
                // (`{"host": 2130706433}`: `getaddrinfo` reads
                // `"2130706433"` as 127.0.0.1).
                Value::Number(n) if matches!(place, Place::Host | Place::InHost) => {
                    let written = n.to_string();
                    self.vet_host(&written, place, scan)?;
                    // As JavaScript's `String(n)` writes it too (a server
                    // that builds `http://${host}/`): `2130706433.0` and
                    // `2.130706433e9` are `2130706433`, `-0.0` is `0`.
                    if let Some(js) = js_integer(n).filter(|js| *js != written) {
                        self.vet_host(&js, place, scan)?;
                    }
                }
                Value::Array(a) => stack.extend(a.iter().map(|e| (e, place, true))),
                Value::Object(m) => {
                    // Keys are text a server can read as well: a URL key gets
                    // the URL check, and a key that reads as a path (a
                    // separator, or a leading `~` or `.`) of an object under a
                    // path-named key, or in an array under one (a map from
                    // path to anything), the path check. Other keys there
                    // (`type`, `content`) are member names, not paths.
                    let under_path = !matches!(
                        place,
                        Place::Plain
                            | Place::Settings
                            | Place::Config
                            | Place::Host
                            | Place::InHost
                            | Place::Address
                    );
                    let under_host = matches!(place, Place::Host | Place::InHost);
                    for k in m.keys() {
                        // Each key is a string looked at, counted as a
                        // value is (attack s72-A, F5: 240,000 plain keys in
                        // JSON held in a string were each read for a URL).
                        spend(scan.budget)?;
                        // The check of what it is written as first, as for
                        // a value.
                        let path_check = || -> Result<(), Refusal> {
                            match &self.roots {
                                Some(roots) if under_path && looks_like_a_path(k) => {
                                    roots.check(k, "builtin path check (by argument name)")
                                }
                                _ => Ok(()),
                            }
                        };
                        let as_url = has_scheme(&lenient_form(k));
                        if !as_url {
                            path_check()?;
                        }
                        if k.contains('%') || looks_like_url(k) {
                            self.vet_url_forms(k, scan)?;
                        }
                        if as_url {
                            path_check()?;
                        }
                        // A map under a host-named key is keyed by host
                        // as likely as by name (`{"hosts": {"::1": 8080}}`).
                        if under_host {
                            self.vet_host(k, Place::InHost, scan)?;
                        }
                    }
                    // A path-named member is a path wherever it sits; any
                    // other member of an object under a path-named key
                    // (`{"files": [{"a": "/etc/passwd"}]}`) is checked when
                    // its text reads as one.
                    // A record that names a file beside what it holds
                    // (`{"path": …, "content": …}`), or an element of an
                    // array (`edits: [{"oldText", "newText"}]`): its
                    // content members are text. A map's keys are the
                    // caller's to choose (`{"paths": {"data":
                    // "/etc/passwd"}}`: attack s80-B, N1).
                    let describes_a_file = element || m.keys().any(|k| is_path_name(k));
                    stack.extend(m.iter().map(|(k, v)| {
                        let inner = match (is_path_name(k), uri_name(k)) {
                            (true, _) => Place::Path,
                            (false, Some(true)) => Place::FileUri,
                            // What a file holds (`content`, `newText`):
                            // text, as under any other key (attack s79-B,
                            // F2).
                            (false, None) if under_path && describes_a_file && content_name(k) => {
                                Place::Plain
                            }
                            (false, _) if under_path => Place::InPath,
                            (false, Some(false)) => Place::Uri,
                            (false, None) if host_name(k) => Place::Host,
                            // The address of a host described by an object
                            // (`{"server": {"address": "127.1"}}`).
                            (false, None) if under_host && host_member_name(k) => Place::Host,
                            (false, None) if under_host => Place::InHost,
                            // `address`, `remote_address`: the words of a
                            // host (attack s55, F9).
                            (false, None) if address_name(k) => Place::Address,
                            (false, None) if settings_name(k) => Place::Settings,
                            (false, None) if config_name(k) => Place::Config,
                            (false, None) => Place::Plain,
                        };
                        (v, inner, false)
                    }));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// [`host_argument`] of `text` in `place` ([`Place::Host`] or
    /// [`Place::InHost`]), each element against the scan's budget; under
    /// `--resolve`, the names it holds go to `scan`.
    ///
    /// # Errors
    /// The first refusal, or the budget's.
    fn vet_host(&self, text: &str, place: Place, scan: &mut Scan<'_>) -> Result<(), Refusal> {
        // One reading wherever the host-named key is read from: JSON,
        // JSON in a string, a YAML block (`host: db`, `server:\n  host:
        // kubernetes.default`), settings text (`HOST=db`, `host =
        // "db"`, `host=db&port=1`).
        let host_place = if place == Place::Host {
            HostPlace::Named
        } else {
            HostPlace::Member
        };
        let budget = &mut *scan.budget;
        let hosts = host_argument(&self.policy.net, text, URL_RULE, host_place, &mut || {
            spend(budget)
        })?;
        if self.policy.resolve {
            for n in hosts {
                self.note(scan.names, n)?;
            }
        }
        Ok(())
    }

    /// The URL check of `text` as written and as each percent-decoding of
    /// it ([`percent_forms`]: a server that unquotes its argument fetches
    /// `http%3A%2F%2F127.0.0.1%2F` as `http://127.0.0.1/`), for each that
    /// is a URL ([`looks_like_url`]) and not a resource of the server's
    /// own; the host names to resolve go to `scan`.
    ///
    /// # Errors
    /// The first refusal.
    fn vet_url_forms(&self, text: &str, scan: &mut Scan<'_>) -> Result<(), Refusal> {
        // As a server that drops hidden characters and folds compatibility
        // forms reads it (`http\u{200B}://10.0.0.1/`, `ｈttp://…`: attack
        // s73-B): a URL so is checked as one too.
        if let Some(shown) = shown_form(text).filter(|s| looks_like_url(s)) {
            self.vet_url_readings(&shown, scan)?;
        }
        self.vet_url_readings(text, scan)
    }

    /// [`vet_url_forms`](Self::vet_url_forms) of one text as written.
    fn vet_url_readings(&self, text: &str, scan: &mut Scan<'_>) -> Result<(), Refusal> {
        if !text.contains('%') {
            return self.vet_url_form(text, scan);
        }
        let decoded = decodings(text);
        let written = url_origin(text);
        // Deeper than the gateway decodes, where the decodings still change
        // the scheme or authority: a server that decodes once more could
        // fetch anything.
        if decoded.deeper().any(|f| url_origin(f) != written) {
            return Err(Refusal::from_denial(
                &crate::net::Denial::of(
                    crate::net::DenialCode::Ambiguous,
                    format!(
                        "a text percent-encoded more than {} times: a server that decodes it again reads what no check saw",
                        super::MAX_PERCENT_DECODINGS
                    ),
                ),
                URL_RULE,
            ));
        }
        for (i, form) in decoded.forms().iter().enumerate() {
            // A decoding that leaves the scheme and authority as written
            // names the same destination (`https://a.example/my%20file`):
            // only the written URL is vetted.
            if i == 0 || url_origin(form) != written {
                self.vet_url_form(form, scan)?;
            }
        }
        Ok(())
    }

    /// The URL check of one reading of a text, when it is a URL
    /// ([`looks_like_url`]) and not a resource of the server's own.
    ///
    /// # Errors
    /// The core's denial.
    fn vet_url_form(&self, form: &str, scan: &mut Scan<'_>) -> Result<(), Refusal> {
        // Each other reading of the text (a curl glob's expansion) counts
        // against the scan's bound.
        for _ in 0..other_readings(form) {
            spend(scan.budget)?;
        }
        if looks_like_url(form) && !self.is_own_resource(form) {
            for n in vet_url(&self.policy.net, form, URL_RULE)? {
                self.note(scan.names, n)?;
            }
        } else if looks_like_url(form) {
            self.walk_own_uri(form, scan)?;
        }
        // An scp-like remote's host name, which git and scp look up
        // (`git@name.example:x`; attack s50, F39).
        if self.policy.resolve {
            if let Some(n) = scp_name(&self.policy.net, form) {
                self.note(scan.names, n)?;
            }
        }
        Ok(())
    }

    /// What a server may take out of `uri`, a URI of its own scheme
    /// (`[resources] schemes`), as values of the template it matches
    /// ([`own_uri_values`]: its authority and the addresses in its path
    /// segments, read as hosts; each rest of its path after a `/`, the
    /// `{+var}` reading; each path parameter and its value, `{;var}`; each
    /// query item and value; the fragment), walked as arguments are: a URL a server's template hands
    /// its handler (`demo://fetch/http://169.254.169.254/`, percent-encoded
    /// or not) gets the URL check (attack s66, A-F3), an address in the
    /// authority the host check (A-F2). At most [`MAX_EMBEDDED_JSON_DEPTH`]
    /// such URIs deep.
    ///
    /// # Errors
    /// The first refusal; `policy.arguments_too_complex` past
    /// [`MAX_OWN_URI_VALUES`] values or the depth.
    fn walk_own_uri(&self, uri: &str, scan: &mut Scan<'_>) -> Result<(), Refusal> {
        let too_complex = |why: String| {
            Err(Refusal::new(
                GateCode::ArgumentsTooComplex,
                why,
                "builtin scan bound",
            ))
        };
        let Some((addresses, values)) = own_uri_values(uri) else {
            return too_complex(format!(
                "a URI of the server's own scheme with more than {MAX_OWN_URI_VALUES} values (path segments, path parameters, query items and values, fragment) or addresses in its path: too many a template could take out of it"
            ));
        };
        if scan.nesting >= MAX_EMBEDDED_JSON_DEPTH {
            return too_complex(format!(
                "URIs of the server's own scheme held in each other more than {MAX_EMBEDDED_JSON_DEPTH} deep"
            ));
        }
        let mut parts = serde_json::Map::new();
        parts.insert(
            "address".into(),
            Value::Array(addresses.into_iter().map(Value::String).collect()),
        );
        parts.insert(
            "values".into(),
            Value::Array(values.into_iter().map(Value::String).collect()),
        );
        scan.nesting += 1;
        let walked = self.walk_from(&Value::Object(parts), Place::Plain, &[], scan);
        scan.nesting -= 1;
        walked
    }

    /// The items read from settings or configuration text
    /// ([`settings_items`], [`config_items`]), each walked in its key's
    /// place, as texts in texts are: at most [`MAX_EMBEDDED_JSON_DEPTH`]
    /// deep.
    ///
    /// # Errors
    /// The first refusal, or `policy.arguments_too_complex` past the depth.
    fn walk_settings(&self, items: Option<Value>, scan: &mut Scan<'_>) -> Result<(), Refusal> {
        let Some(items) = items else {
            return Ok(());
        };
        if scan.nesting >= MAX_EMBEDDED_JSON_DEPTH {
            return Err(Refusal::new(
                GateCode::ArgumentsTooComplex,
                format!(
                    "settings text holds settings more than {MAX_EMBEDDED_JSON_DEPTH} texts deep"
                ),
                "builtin scan bound",
            ));
        }
        scan.nesting += 1;
        let walked = self.walk_from(&items, Place::Plain, &[], scan);
        scan.nesting -= 1;
        walked
    }

    /// Checks what a string holding JSON holds ([`embedded_json`]), in the
    /// string's `place`: a decoded array or object is walked as if it
    /// stood there; of a text that does not parse, every string literal.
    ///
    /// # Errors
    /// The first refusal inside; `policy.arguments_too_complex` for JSON
    /// nested in strings past [`MAX_EMBEDDED_JSON_DEPTH`], or holding a
    /// duplicate key or nesting past the core's depth bound (a server
    /// could read it in a way this check does not).
    fn walk_embedded(&self, s: &str, place: Place, scan: &mut Scan<'_>) -> Result<(), Refusal> {
        let embedded = embedded_json(s);
        if matches!(embedded, Embedded::Text) {
            return Ok(());
        }
        if scan.nesting >= MAX_EMBEDDED_JSON_DEPTH {
            return Err(Refusal::new(
                GateCode::ArgumentsTooComplex,
                format!("a string argument holds JSON in JSON more than {MAX_EMBEDDED_JSON_DEPTH} texts deep"),
                "builtin scan bound",
            ));
        }
        scan.nesting += 1;
        let checked = match embedded {
            Embedded::Text => Ok(()),
            Embedded::Json(readings) => readings
                .iter()
                .try_for_each(|v| self.walk_from(v, place, &[], scan)),
            Embedded::Block(readings) => {
                let was = std::mem::replace(&mut scan.prose, true);
                let walked = readings
                    .iter()
                    .try_for_each(|v| self.walk_from(v, place, &[], scan));
                scan.prose = was;
                walked
            }
            Embedded::Literals(literals) => literals
                .into_iter()
                .try_for_each(|l| self.walk_from(&Value::String(l), place, &[], scan)),
            Embedded::Unreadable(why) => Err(Refusal::new(
                GateCode::ArgumentsTooComplex,
                format!("a string argument holds JSON a server could read otherwise than this check: {why}"),
                "builtin scan bound",
            )),
        };
        scan.nesting -= 1;
        checked
    }

    fn apply_rule(
        &self,
        rule: &ArgRule,
        v: &Value,
        names: &mut Vec<PendingName>,
        budget: &mut usize,
    ) -> Result<(), Refusal> {
        if let Some(max) = rule.max_bytes {
            let size = match v {
                Value::String(s) => s.len(),
                other => serde_json::to_string(other).map_or(usize::MAX, |t| t.len()),
            };
            if size > max {
                return Err(Refusal::new(
                    GateCode::ArgTooLarge,
                    format!("argument {} is {size} bytes, over {max}", rule.pointer),
                    rule.label(),
                ));
            }
        }
        // Every kind, `text` too, names a string or an array of strings: an
        // object under a `text` pointer would exempt every member in it
        // (`{"content": {"path": "/etc/passwd"}}`).
        let strings: Vec<&str> = match v {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) if a.iter().all(Value::is_string) => {
                a.iter().filter_map(Value::as_str).collect()
            }
            _ => {
                return Err(Refusal::new(
                    GateCode::ArgKind,
                    format!(
                        "argument {} must be a string or an array of strings for kind {:?}",
                        rule.pointer, rule.kind
                    ),
                    rule.label(),
                ))
            }
        };
        if rule.kind == ArgKind::Text {
            return Ok(());
        }
        for s in strings {
            spend(budget)?;
            match rule.kind {
                ArgKind::Url => {
                    for n in vet_url(&self.policy.net, s, &rule.label())? {
                        self.note(names, n)?;
                    }
                }
                ArgKind::Path => {
                    if looks_like_url(s) {
                        for n in vet_url(&self.policy.net, s, &rule.label())? {
                            self.note(names, n)?;
                        }
                    }
                    match &self.roots {
                        Some(r) => {
                            r.check(s, &rule.label())?;
                            for part in self.path_list_parts(s) {
                                spend(budget)?;
                                r.check(part, &rule.label())?;
                            }
                        }
                        None => {
                            return Err(Refusal::from_denial(
                                &crate::net::Denial::outside_root("no root is configured"),
                                rule.label(),
                            ))
                        }
                    }
                }
                ArgKind::Text => {}
            }
            // A string holding JSON: what it holds, read in the rule's way.
            let place = if rule.kind == ArgKind::Path {
                Place::Path
            } else {
                Place::Plain
            };
            let mut scan = Scan {
                budget: &mut *budget,
                names: &mut *names,
                nesting: 0,
                prose: false,
            };
            self.walk_embedded(s, place, &mut scan)?;
        }
        Ok(())
    }
}

/// The URI a resource template (RFC 6570) stands for when each of its
/// expressions expands to `x` as its operator says (`{v}` and `{+v}` to
/// `x`, `{/v}` to `/x`, `{.v}` to `.x`, `{#v}` to `#x`, `{;v}` to `;v=x`,
/// `{?v}` to `?v=x`, `{&v}` to `&v=x`): its fixed parts, which every
/// expansion shares.
///
/// # Errors
/// `tool.bad_response` for an unclosed or nested `{` or a stray `}`, and
/// for a template with an expression in its scheme or authority (host,
/// port, user info): the gateway cannot vouch for the hosts it expands to.
pub fn representative_expansion(template: &str) -> Result<String, Refusal> {
    expansion(template, Fill::Nothing, Expansion::PLACEHOLDER)
}

/// How a template library names an expression's variables and expands an
/// expression of several: a server completing a template names the
/// request's values as its library does, so each is a reading of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Naming {
    /// RFC 6570: the operators `+ # . / ; ? &`, a name up to its modifier
    /// (`v` of `v:3` and `v*`), an expression of several names with its
    /// operator's prefix and separator (`{/x,y}` to `/a/b`).
    Rfc6570,
    /// The MCP TypeScript SDK's `UriTemplate`: the operators `+ # . / ? &`
    /// only (`;` is part of the name), a name with its first `*` removed,
    /// then trimmed (JavaScript's `trim`), its `:3` kept, empty names
    /// dropped (an expression of none but a query's reads the variable
    /// `undefined`); an expression of several names other than a query's
    /// expands to the values given joined by `,`, without its prefix
    /// (`R{/x,y}` with `y` = `_sib` to `R_sib`), and a query expression
    /// after another starts with `&`.
    TsSdk,
    /// A server that replaces `{text}` with the value it names `text`,
    /// whatever the text holds (`str.replace`): no operator, no modifier,
    /// the value as it is (`{.x}` with `..` to `..`).
    Literal,
}

/// How [`expansion`] expands a template, one of the readings of a server
/// that expands a template it is asked to complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Expansion {
    /// How the server's library names the variables.
    naming: Naming,
    /// A variable the request does not give expands to nothing, and an
    /// expression of such variables to the empty string (RFC 6570 §3.2.1,
    /// the MCP TypeScript SDK's `UriTemplate`); otherwise to `x`.
    undefined_empty: bool,
    /// A prefix modifier (`{v:3}`) keeps that many characters of the
    /// value (RFC 6570 §2.4.1); otherwise the whole value.
    prefix: bool,
}

impl Expansion {
    /// RFC 6570's names, every variable a placeholder, every value whole.
    const PLACEHOLDER: Self = Self {
        naming: Naming::Rfc6570,
        undefined_empty: false,
        prefix: false,
    };
}

/// The readings a `completion/complete` template is decided under, each
/// a refusal of its own: each library's names, a placeholder (it can
/// absorb a `..` that RFC 6570's empty expansion leaves: `{/dir}{/name}`
/// with `..`) and the empty expansion, and a prefix applied (it can cut a
/// value to a `..`: `{v:2}` with `..root`) and not. `str.replace` leaves
/// a variable it is not given as written, `{/dir}`, which names nothing
/// on its own: its empty reading stands for both.
const EXPANSION_READINGS: [Expansion; 7] = [
    Expansion::PLACEHOLDER,
    Expansion {
        naming: Naming::Rfc6570,
        undefined_empty: true,
        prefix: true,
    },
    Expansion {
        naming: Naming::Rfc6570,
        undefined_empty: true,
        prefix: false,
    },
    Expansion {
        naming: Naming::Rfc6570,
        undefined_empty: false,
        prefix: true,
    },
    Expansion {
        naming: Naming::TsSdk,
        undefined_empty: true,
        prefix: false,
    },
    Expansion {
        naming: Naming::TsSdk,
        undefined_empty: false,
        prefix: false,
    },
    Expansion {
        naming: Naming::Literal,
        undefined_empty: true,
        prefix: false,
    },
];

/// The values [`expansion`] gives a template's variables.
#[derive(Clone, Copy)]
enum Fill<'a> {
    /// None: no variable is given.
    Nothing,
    /// Each variable the value given for its name, as the reading names it.
    Named(&'a Given<'a>),
    /// Every variable of every expression this value, whatever its name.
    Every(&'a str),
    /// The variable at this place (the template's variables counted in
    /// the order written, from 0, as the reading names them) this value;
    /// each other its value by name when values are given (as
    /// [`Fill::Named`]), else none.
    One(usize, &'a str, Option<&'a Given<'a>>),
}

impl<'a> Fill<'a> {
    /// The value of the variable `name` at `place`, if given.
    fn value(self, place: usize, name: &str) -> Option<&'a str> {
        match self {
            Fill::Nothing => None,
            Fill::Named(given) => given.named(name),
            Fill::Every(v) => Some(v),
            Fill::One(at, v, _) if at == place => Some(v),
            Fill::One(_, _, others) => others.and_then(|given| given.named(name)),
        }
    }
}

/// One variable of an expression, as a reading names it.
struct Variable<'t> {
    /// Its name.
    name: std::borrow::Cow<'t, str>,
    /// Its prefix modifier's length (`3` of `v:3`), if any.
    prefix: Option<usize>,
}

/// One part of a template: its text outside braces, or an expression.
enum Part<'t> {
    /// Text kept as it is.
    Text(&'t str),
    /// An expression: its operator, if any, and its variables.
    Expression(Option<char>, Vec<Variable<'t>>),
}

/// JavaScript's `String.prototype.trim` whitespace: Unicode's spaces and
/// line ends and the BOM, not U+0085.
fn js_space(c: char) -> bool {
    c == '\u{feff}' || (c.is_whitespace() && c != '\u{85}')
}

impl Naming {
    /// The text between an expression's braces as this naming reads it.
    fn expression(self, text: &str) -> Part<'_> {
        let operator = |operators: &str| {
            let o = text.chars().next().filter(|c| operators.contains(*c));
            let list = o.map_or(text, |o| text.get(o.len_utf8()..).unwrap_or_default());
            (o, list)
        };
        match self {
            Naming::Rfc6570 => {
                let (o, list) = operator("+#./;?&");
                let variables = list
                    .split(',')
                    .map(|v| Variable {
                        name: std::borrow::Cow::Borrowed(
                            v.split([':', '*']).next().unwrap_or_default(),
                        ),
                        prefix: v.split_once(':').and_then(|(_, n)| n.parse().ok()),
                    })
                    .collect();
                Part::Expression(o, variables)
            }
            Naming::TsSdk => {
                let (o, list) = operator("+#./?&");
                let mut variables: Vec<Variable<'_>> = list
                    .split(',')
                    .map(|v| match v.contains('*') {
                        true => v
                            .replacen('*', "", 1)
                            .trim_matches(js_space)
                            .to_owned()
                            .into(),
                        false => std::borrow::Cow::Borrowed(v.trim_matches(js_space)),
                    })
                    .filter(|n| !n.is_empty())
                    .map(|name| Variable { name, prefix: None })
                    .collect();
                if variables.is_empty() && !matches!(o, Some('?' | '&')) {
                    // `variables[names[0]]` of no names.
                    variables.push(Variable {
                        name: "undefined".into(),
                        prefix: None,
                    });
                }
                Part::Expression(o, variables)
            }
            Naming::Literal => Part::Expression(
                None,
                vec![Variable {
                    name: text.into(),
                    prefix: None,
                }],
            ),
        }
    }
}

/// The refusal of a template the gateway cannot read.
/// The values a server whose resource template is `template` (RFC 6570)
/// hands its handler for `uri`, when `uri` matches it: each expression
/// matches the text up to the next literal part (the last one, up to the
/// final literal, which must end `uri`), its operator's prefix taken off
/// (`.`, `/`, `;`, `?`, `&`, `#`), split by its separator among its
/// variables (the last takes the rest), `name=` taken off for `;`, `?`
/// and `&`; a value stays as written (the argument checks decode it).
/// Two readings, each when `uri` matches: every expression before the
/// last taking the shortest text, and the longest (a server's pattern may
/// be greedy: `{a}-{h}` on `x-y-10.0.0.1` hands `h` either `y-10.0.0.1`
/// or `10.0.0.1`). None when `uri` does not match or the template has no
/// expression.
pub(crate) fn template_values(template: &str, uri: &str) -> Vec<serde_json::Map<String, Value>> {
    let mut readings: Vec<serde_json::Map<String, Value>> = Vec::with_capacity(2);
    for greedy in [false, true] {
        if let Some(m) = template_reading(template, uri, greedy) {
            if !readings.contains(&m) {
                readings.push(m);
            }
        }
    }
    readings
}

/// One reading of [`template_values`]: each expression before the last
/// up to the first (`greedy`: the last) place its next literal part is
/// found.
fn template_reading(
    template: &str,
    uri: &str,
    greedy: bool,
) -> Option<serde_json::Map<String, Value>> {
    let parts = template_parts(template, Naming::Rfc6570).ok()?;
    let last = parts.len().checked_sub(1)?;
    let mut values = serde_json::Map::new();
    let mut rest = uri;
    let mut pending: Option<(Option<char>, &[Variable<'_>])> = None;
    for (i, part) in parts.iter().enumerate() {
        match part {
            Part::Expression(op, vars) => pending = Some((*op, vars)),
            Part::Text(t) => {
                let Some((op, vars)) = pending.take() else {
                    rest = rest.strip_prefix(*t)?;
                    continue;
                };
                let at = if i == last {
                    rest.strip_suffix(*t).map(str::len)?
                } else if greedy {
                    rest.rfind(*t)?
                } else {
                    rest.find(*t)?
                };
                let (capture, after) = rest.split_at(at);
                take_values(op, vars, capture, &mut values);
                rest = after.get(t.len()..).unwrap_or_default();
            }
        }
    }
    (!values.is_empty()).then_some(values)
}

/// The variables of one expression (`op`, `vars`) out of the text it
/// matched ([`template_values`]).
fn take_values(
    op: Option<char>,
    vars: &[Variable<'_>],
    capture: &str,
    values: &mut serde_json::Map<String, Value>,
) {
    let body = match op {
        Some(c @ ('#' | '.' | '/' | ';' | '?' | '&')) => capture.strip_prefix(c).unwrap_or(capture),
        _ => capture,
    };
    let separator = match op {
        Some('.') => '.',
        Some('/') => '/',
        Some(';') => ';',
        Some('?' | '&') => '&',
        _ => ',',
    };
    let named = matches!(op, Some(';' | '?' | '&'));
    let mut pieces = body.splitn(vars.len().max(1), separator);
    for var in vars {
        let piece = pieces.next().unwrap_or_default();
        let value = match (named, piece.split_once('=')) {
            (true, Some((_, v))) => v,
            _ => piece,
        };
        values.insert(var.name.to_string(), Value::String(value.to_owned()));
    }
}

/// Most values `own_uri_values` takes out of one URI of the server's own
/// scheme (each path segment's rest, each path parameter and its value,
/// each query item and its value, the fragment; and, counted apart, the
/// addresses in its path segments):
/// past it the URI is refused (`policy.arguments_too_complex`), since a
/// template could take any of them.
pub const MAX_OWN_URI_VALUES: usize = 32;

/// The values a server's URI template may take out of `uri`, a URI of its
/// own scheme: the addresses in it, its authority without userinfo (`None`
/// without `//`) and each path segment that is an address literal or a
/// name the classifier refuses (`demo:x/169.254.169.254/p`, which
/// `demo:x/{h}/p` hands its handler; attack s67, verification); and the
/// texts a variable may match: the rest of the URI after `scheme:` (with
/// no authority) and after each `/` of its path, rootless or not (a
/// `{+var}` takes `/`, `?` and what follows), each `;` parameter of a
/// path segment and its value after `=` (`{;var}`), each `&`- or
/// `;`-separated query item and its value (`{?var}`), and the fragment
/// (`{#var}`). `None` past [`MAX_OWN_URI_VALUES`].
fn own_uri_values(uri: &str) -> Option<(Vec<String>, Vec<String>)> {
    let (_, rest) = uri.split_once(':')?;
    let mut values = Vec::new();
    let mut addresses = Vec::new();
    // `false` when the value would pass the bound.
    let push = |v: &str, values: &mut Vec<String>| {
        if v.is_empty() {
            return true;
        }
        if values.len() >= MAX_OWN_URI_VALUES {
            return false;
        }
        values.push(v.to_owned());
        true
    };
    let before_query = |s: &str| s.split(['?', '#']).next().unwrap_or_default().to_owned();
    let path = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find(['/', '?', '#']).unwrap_or(after.len());
            let (authority, path) = after.split_at(end);
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            if !host.is_empty() {
                addresses.push(host.to_owned());
            }
            before_query(path)
        }
        None => {
            if !push(rest, &mut values) {
                return None;
            }
            before_query(rest)
        }
    };
    for (at, _) in path.match_indices('/') {
        if !push(path.get(at + 1..).unwrap_or_default(), &mut values) {
            return None;
        }
    }
    for segment in path.split('/') {
        let params = segment.split_once(';').map_or("", |(_, p)| p);
        for form in decodings(segment).into_forms() {
            for piece in form.split(['/', '\\', ',', ';']) {
                if let Some(address) = segment_address(piece) {
                    if !push(&address, &mut addresses) {
                        return None;
                    }
                }
            }
        }
        for param in params.split(';') {
            let value = param.split_once('=').map_or("", |(_, v)| v);
            if !push(param, &mut values) || !push(value, &mut values) {
                return None;
            }
        }
    }
    let query = rest.split_once('?').map_or("", |(_, q)| q);
    let query = query.split('#').next().unwrap_or_default();
    for item in query.split(['&', ';']) {
        let value = item.split_once('=').map_or("", |(_, v)| v);
        if !push(item, &mut values) || !push(value, &mut values) {
            return None;
        }
    }
    if let Some((_, fragment)) = rest.split_once('#') {
        if !push(fragment, &mut values) {
            return None;
        }
    }
    Some((addresses, values))
}

/// The address a piece of an own-scheme URI's path names, when a handler
/// that takes it as a host would reach one it must not: an IP address in
/// any notation the WHATWG host parser reads (`169.254.169.254`,
/// `0xa9fea9fe`, `0251.0376.0251.0376`, `[fd00::1]`; a zone identifier
/// dropped, `[fd00::1%eth0]`; not a plain number nor a short dotted form,
/// `0.4.2`, a version) that is no global address, or a name the classifier
/// refuses (`localhost`, `metadata.google.internal`), white space and
/// control characters around it dropped. `None` for a global address
/// (`8.8.8.8`) and any other
/// name (verification of s67; attack s68-A, N1–N3, FP1).
fn segment_address(piece: &str) -> Option<String> {
    let piece = piece.trim_matches(|c: char| c.is_whitespace() || c.is_control());
    if piece.is_empty() {
        return None;
    }
    let bare = piece
        .strip_prefix('[')
        .and_then(|p| p.strip_suffix(']'))
        .unwrap_or(piece);
    // A plain number (`1`, `42`: an id far more often than the
    // single-number IPv4 form it also reads as) is no address here.
    if piece.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let unzoned = bare.split('%').next().unwrap_or_default();
    // Four dotted parts or a `0x` number read as IPv4; a shorter dotted
    // form (`0.4`, `10.2`, `1.2.3`) is a version number far more often
    // than the address `inet_aton` reads it as (review of s68).
    let dotted = piece.trim_end_matches('.');
    let v4_like = dotted.matches('.').count() == 3
        || dotted
            .get(..2)
            .is_some_and(|p| p.eq_ignore_ascii_case("0x"));
    let ip = match unzoned.parse::<std::net::Ipv6Addr>() {
        Ok(v6) => Some(std::net::IpAddr::V6(v6)),
        Err(_) if v4_like || piece.starts_with('[') => match url::Host::parse(piece) {
            Ok(url::Host::Ipv4(v4)) => Some(std::net::IpAddr::V4(v4)),
            Ok(url::Host::Ipv6(v6)) => Some(std::net::IpAddr::V6(v6)),
            _ => None,
        },
        Err(_) => None,
    };
    match ip {
        Some(ip) => {
            (crate::net::classify_ip(ip) != crate::net::Reach::Global).then(|| ip.to_string())
        }
        None => crate::net::classify_host(piece)
            .err()
            .filter(|e| e.code().starts_with("ssrf."))
            .map(|_| piece.to_owned()),
    }
}

fn unreadable_template(why: &str) -> Refusal {
    Refusal::new(
        GateCode::BadResponse,
        format!("a resource template {why}"),
        "builtin listing check",
    )
}

/// `template` cut into its parts, its expressions read as `naming` reads
/// them.
///
/// # Errors
/// As [`representative_expansion`].
fn template_parts(template: &str, naming: Naming) -> Result<Vec<Part<'_>>, Refusal> {
    let authority_end = match template.find("://") {
        // The authority ends at the first `/`, `?` or `#`, or at an
        // expression whose expansion starts with one (`demo://fixed{?h}`,
        // `demo://seg{/parts*}`, `{#h}`): a variable after it is no part
        // of the host (`{&h}` is: `&` does not end one).
        Some(i) => {
            let after = i.saturating_add(3);
            let rest = template.get(after..).unwrap_or_default();
            let mut ends = rest.char_indices().filter(|&(j, c)| {
                matches!(c, '/' | '?' | '#')
                    || (c == '{'
                        && rest
                            .get(j + 1..)
                            .is_some_and(|e| e.starts_with(['/', '?', '#'])))
            });
            ends.next()
                .map_or(template.len(), |(j, _)| after.saturating_add(j))
        }
        None => template.find(':').unwrap_or(template.len()),
    };
    if template.find('{').is_some_and(|i| i < authority_end) {
        return Err(unreadable_template("with a variable in its scheme or host"));
    }
    let unbalanced = || unreadable_template("with unbalanced braces");
    let mut parts = Vec::new();
    let mut text_start = 0;
    let mut open: Option<usize> = None;
    for (i, c) in template.char_indices() {
        match (c, open) {
            ('{', None) => {
                parts.push(Part::Text(template.get(text_start..i).unwrap_or_default()));
                open = Some(i.saturating_add(1));
            }
            ('}', Some(start)) => {
                parts.push(naming.expression(template.get(start..i).unwrap_or_default()));
                open = None;
                text_start = i.saturating_add(1);
            }
            ('{' | '}', _) => return Err(unbalanced()),
            _ => {}
        }
    }
    if open.is_some() {
        return Err(unbalanced());
    }
    parts.push(Part::Text(template.get(text_start..).unwrap_or_default()));
    Ok(parts)
}

/// How many variables `parts` holds: the places [`Fill::One`] counts.
fn variable_count(parts: &[Part<'_>]) -> usize {
    parts
        .iter()
        .map(|p| match p {
            Part::Text(_) => 0,
            Part::Expression(_, variables) => variables.len(),
        })
        .sum()
}

/// The first `n` characters of `value`.
fn first_chars(value: &str, n: usize) -> &str {
    value
        .char_indices()
        .nth(n)
        .and_then(|(i, _)| value.get(..i))
        .unwrap_or(value)
}

/// `template` expanded as [`expand`] does.
///
/// # Errors
/// As [`representative_expansion`], and as [`expand`].
fn expansion(template: &str, fill: Fill<'_>, reading: Expansion) -> Result<String, Refusal> {
    expand(&template_parts(template, reading.naming)?, fill, reading)
}

/// A template, cut into `parts`, expanded as [`representative_expansion`]
/// does, but each variable `fill` gives a value expanded to that value as
/// written, not percent-encoded (`{v}` as `{+v}` would; `{/v}` to
/// `/value`, `{?v}` to `?v=value`): the reading of a server that decodes
/// what it expanded. `completion/complete` names the value of one
/// variable of a template a server may expand to complete it
/// (`file:///data/{name}` and `../../etc/passwd`).
///
/// # Errors
/// `policy.arguments_too_complex` for an expansion with values longer
/// than [`crate::net::MAX_URL_BYTES`]: no URI the gateway vets is.
fn expand(parts: &[Part<'_>], fill: Fill<'_>, reading: Expansion) -> Result<String, Refusal> {
    let limit = match fill {
        Fill::Nothing => usize::MAX,
        _ => crate::net::MAX_URL_BYTES,
    };
    let mut out = String::new();
    let mut place = 0usize;
    // The TypeScript SDK: a query expression has been written.
    let mut query = false;
    for part in parts {
        let (operator, variables) = match part {
            // Text: written, then an expression of no variables, which
            // writes nothing (the bound is checked below).
            Part::Text(t) => {
                out.push_str(t);
                (None, &[][..])
            }
            Part::Expression(o, v) => (*o, &v[..]),
        };
        let values: Vec<(&str, &str)> = variables
            .iter()
            .filter_map(|v| {
                let value = fill.value(place, &v.name);
                place = place.saturating_add(1);
                let value = match v.prefix.filter(|_| reading.prefix) {
                    Some(n) => value.map(|s| first_chars(s, n)),
                    None => value,
                };
                let value = value.or((!reading.undefined_empty).then_some("x"));
                value.map(|value| (v.name.as_ref(), value))
            })
            .collect();
        match (reading.naming, operator) {
            _ if values.is_empty() => {}
            (Naming::Rfc6570, _) => {
                let (first, separator, named) = match operator {
                    Some('/') => ("/", "/", false),
                    Some('.') => (".", ".", false),
                    Some('#') => ("#", ",", false),
                    Some(';') => (";", ";", true),
                    Some('?') => ("?", "&", true),
                    Some('&') => ("&", "&", true),
                    _ => ("", ",", false),
                };
                out.push_str(first);
                for (i, (name, value)) in values.iter().enumerate() {
                    if i > 0 {
                        out.push_str(separator);
                    }
                    if named {
                        out.push_str(name);
                        out.push('=');
                    }
                    out.push_str(value);
                }
            }
            (Naming::TsSdk, Some(o @ ('?' | '&'))) => {
                let pairs: Vec<String> = values.iter().map(|(n, v)| format!("{n}={v}")).collect();
                let written = format!("{o}{}", pairs.join("&"));
                match query {
                    true => out.push_str(&written.replacen('?', "&", 1)),
                    false => out.push_str(&written),
                }
                query = true;
            }
            (Naming::TsSdk, _) if variables.len() > 1 => {
                let joined: Vec<&str> = values.iter().map(|(_, v)| *v).collect();
                out.push_str(&joined.join(","));
            }
            (Naming::TsSdk | Naming::Literal, _) => {
                out.push_str(match operator {
                    Some('#') => "#",
                    Some('.') => ".",
                    Some('/') => "/",
                    _ => "",
                });
                out.extend(values.first().map(|(_, v)| *v));
            }
        }
        if out.len() > limit {
            return Err(Refusal::new(
                GateCode::ArgumentsTooComplex,
                format!(
                    "a resource template expands with the values given to more than {limit} bytes"
                ),
                "builtin scan bound",
            ));
        }
    }
    Ok(out)
}

/// The values a `completion/complete` request gives a resource template's
/// variables: `argument` (`{name, value}`) and `context.arguments`.
struct Given<'a> {
    /// `params.argument`.
    argument: Option<&'a Value>,
    /// `params.context.arguments`.
    context: Option<&'a Value>,
}

impl<'a> Given<'a> {
    /// The values `params` gives.
    fn new(params: Option<&'a serde_json::Map<String, Value>>) -> Self {
        Self {
            argument: params.and_then(|p| p.get("argument")),
            context: params
                .and_then(|p| p.get("context"))
                .and_then(|c| c.get("arguments")),
        }
    }

    /// The value given the variable `name`: the argument's, else the
    /// context's.
    fn named(&self, name: &str) -> Option<&'a str> {
        self.argument
            .filter(|a| a.get("name").and_then(Value::as_str) == Some(name))
            .and_then(|a| a.get("value"))
            .and_then(Value::as_str)
            .or_else(|| {
                self.context
                    .and_then(|c| c.get(name))
                    .and_then(Value::as_str)
            })
    }

    /// Every value given, whatever name it is given under, each once: the
    /// argument's, then the context's, and the strings of a list in the
    /// context (a server may explode it: `{/v*}`).
    ///
    /// # Errors
    /// `policy.arguments_too_complex` past [`MAX_SCANNED_STRINGS`].
    fn values(&self) -> Result<Vec<&'a str>, Refusal> {
        let argument = self
            .argument
            .and_then(|a| a.get("value"))
            .and_then(Value::as_str);
        let context = self
            .context
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|c| c.values())
            .flat_map(|v| {
                v.as_str()
                    .into_iter()
                    .chain(v.as_array().into_iter().flatten().filter_map(Value::as_str))
            });
        let mut seen = std::collections::HashSet::new();
        let mut values = Vec::new();
        for (i, v) in argument.into_iter().chain(context).enumerate() {
            if i >= MAX_SCANNED_STRINGS {
                return Err(too_many_expansions());
            }
            if seen.insert(v) {
                values.push(v);
            }
        }
        Ok(values)
    }
}

/// The refusal of a completion whose template and values make more
/// expansions than [`MAX_SCANNED_STRINGS`].
fn too_many_expansions() -> Refusal {
    Refusal::new(
        GateCode::ArgumentsTooComplex,
        format!(
            "a completion's template and values make more than {MAX_SCANNED_STRINGS} expansions to decide"
        ),
        "builtin scan bound",
    )
}

impl Gatekeeper {
    /// The resource decision of `completion/complete` on the resource
    /// template `template`: a server completing `file:///data/{name}` may
    /// list the directory its expansion with the values `given` names, so
    /// each expansion is decided as `resources/read` of it. Under each of
    /// [`EXPANSION_READINGS`]: the template with each variable the value
    /// given for its name; and, since a server may name a variable
    /// otherwise than any reading here, with each value given in every
    /// variable at once and in each variable alone, whatever its name. In
    /// a `file:` template a value that is absolute (`/etc`, `~/`, `C:\\`)
    /// is decided as itself too: a completer that joins a value to its
    /// directory (`os.path.join`, `path.resolve`) reads it so.
    ///
    /// # Errors
    /// The first refusal; `policy.arguments_too_complex` for more than
    /// [`MAX_SCANNED_STRINGS`] values or expansions, or an expansion
    /// longer than [`crate::net::MAX_URL_BYTES`].
    fn completion_decision(
        &self,
        template: &str,
        given: &Given<'_>,
    ) -> Result<Vec<PendingName>, Refusal> {
        let values = given.values()?;
        let decided = completion_expansions(template, given)?;
        let mut names = Vec::new();
        for d in &decided {
            names.extend(self.resource_decision("resources/read", d)?);
        }
        if let Some(roots) = self.roots.as_ref() {
            if after_file_scheme(&lenient_form(template)).is_some() {
                for v in &values {
                    if v.starts_with(['/', '\\', '~']) || drive_rest(v).is_some() {
                        roots.check(v, "builtin path check (completion value)")?;
                    }
                }
            }
        }
        Ok(names)
    }
}

/// The URIs a `completion/complete` on the resource template `template`
/// may name, with the values `params` gives it (`argument`,
/// `context.arguments`): [`Gatekeeper`]'s completion decision decides each
/// as `resources/read` of it, and a hidden resource or template is
/// refused under each ([`HiddenEntries::refusal`](super::HiddenEntries::refusal)).
/// `template` itself when it has no expression.
///
/// # Errors
/// `policy.arguments_too_complex` for more than [`MAX_SCANNED_STRINGS`]
/// values or expansions, or an expansion longer than
/// [`crate::net::MAX_URL_BYTES`].
pub(crate) fn completion_uris(
    template: &str,
    params: Option<&serde_json::Map<String, Value>>,
) -> Result<Vec<String>, Refusal> {
    completion_expansions(template, &Given::new(params))
}

/// [`completion_uris`] with the values read.
fn completion_expansions(template: &str, given: &Given<'_>) -> Result<Vec<String>, Refusal> {
    let values = given.values()?;
    if !template.contains(['{', '}']) {
        return Ok(vec![template.to_owned()]);
    }
    let mut decided = Vec::new();
    let readings = EXPANSION_READINGS
        .iter()
        .map(|r| Ok((*r, template_parts(template, r.naming)?)))
        .collect::<Result<Vec<_>, Refusal>>()?;
    // One named expansion, then for each value one in every
    // variable and two in each (the others not given, and given
    // by name), where the variables are expressions a library
    // reads: `str.replace` would write `R{/dir}` with `sub` as
    // `Rsub`, but only for a value given under the name `/dir`.
    let anywhere = |r: &Expansion| match r.naming {
        Naming::Literal => &[][..],
        Naming::Rfc6570 | Naming::TsSdk => &values[..],
    };
    let total = readings.iter().fold(0usize, |sum, (r, parts)| {
        let each = variable_count(parts).saturating_mul(2).saturating_add(1);
        sum.saturating_add(anywhere(r).len().saturating_mul(each).saturating_add(1))
    });
    if total > MAX_SCANNED_STRINGS {
        return Err(too_many_expansions());
    }
    let mut seen = std::collections::HashSet::new();
    for (reading, parts) in &readings {
        let places = 0..variable_count(parts);
        let fills =
            std::iter::once(Fill::Named(given)).chain(anywhere(reading).iter().flat_map(|v| {
                std::iter::once(Fill::Every(v)).chain(
                    places
                        .clone()
                        .flat_map(move |i| [Fill::One(i, v, None), Fill::One(i, v, Some(given))]),
                )
            }));
        for fill in fills {
            let e = expand(parts, fill, *reading)?;
            if seen.insert(e.clone()) {
                decided.push(e);
            }
        }
    }
    Ok(decided)
}

/// `url.too_long` for a resource URI longer than
/// [`crate::net::MAX_URL_BYTES`], of any scheme (the server's own too): a
/// forwarded request's URI is held until its answer, and each is read
/// several ways (attack s74-A, F1: a hundred `resources/read` of 3 MB
/// `demo:` URIs held 340 MiB).
///
/// # Errors
/// `url.too_long`, before anything else is read of it.
pub(crate) fn uri_within_bound(uri: &str) -> Result<(), Refusal> {
    if uri.len() <= crate::net::MAX_URL_BYTES {
        return Ok(());
    }
    Err(Refusal::from_denial(
        &crate::net::Denial::of(
            crate::net::DenialCode::TooLong,
            format!(
                "a resource URI of {} bytes, over the {}-byte bound (net::MAX_URL_BYTES)",
                uri.len(),
                crate::net::MAX_URL_BYTES
            ),
        ),
        URL_RULE,
    ))
}

/// [`uri_within_bound`] of each URI a request names ([`Named::of`]:
/// `resources/read`, `resources/subscribe`, `resources/unsubscribe`,
/// `completion/complete`'s `ref.uri`, `subscriptions/listen`'s list).
///
/// # Errors
/// The first URI's `url.too_long`.
pub(crate) fn named_uris_within_bound(method: &str, params: Option<&Value>) -> Result<(), Refusal> {
    match Named::of(method, params) {
        Named::Resource(uri) => uri_within_bound(uri),
        Named::Subscriptions(uris) => uris
            .iter()
            .filter_map(Value::as_str)
            .try_for_each(uri_within_bound),
        _ => Ok(()),
    }
}

/// The text after a `file:` scheme (in any case) of `uri`; `None` for
/// another URI.
fn after_file_scheme(uri: &str) -> Option<&str> {
    uri.get(..5)
        .filter(|scheme| scheme.eq_ignore_ascii_case("file:"))
        .and_then(|_| uri.get(5..))
}

/// The path of a `file:` URI as written, undecoded: after `file:` and,
/// when `//` follows, after the authority (up to the next `/`). `uri` is
/// a `file:` URI without a query or fragment; any other text is itself.
fn written_file_path(uri: &str) -> &str {
    let rest = after_file_scheme(uri).unwrap_or(uri);
    match rest.strip_prefix("//") {
        Some(after) => after
            .find('/')
            .and_then(|i| after.get(i..))
            .unwrap_or_default(),
        None => rest,
    }
}

/// The name half of a tool or prompt decision: hidden characters in the
/// name, then the policy's deny list, then its allow list.
struct NameLists<'a> {
    kind: &'static str,
    section: &'static str,
    deny: &'a GlobList,
    allow: Option<&'a GlobList>,
    poisoned: GateCode,
    denied: GateCode,
}

/// Most bytes of a tool or prompt name the gateway shows, records or
/// forwards (MCP: a tool name is 1 to 128 characters, at most four bytes
/// each). A longer name is hidden from its listing and refused by name.
pub const MAX_NAME_BYTES: usize = 512;

/// Bytes of an overlong name kept where the gateway names it (logs, audit
/// lines, refusals).
pub const SHOWN_NAME_BYTES: usize = 64;

/// `name` cut to its first [`SHOWN_NAME_BYTES`] bytes (at a character
/// boundary), with `…` when cut.
fn cut_name(name: &str) -> String {
    if name.len() <= SHOWN_NAME_BYTES {
        return name.to_owned();
    }
    let mut end = SHOWN_NAME_BYTES;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", name.get(..end).unwrap_or_default())
}

impl NameLists<'_> {
    fn decide(&self, name: &str) -> Result<(), Refusal> {
        let (kind, section) = (self.kind, self.section);
        if name.len() > MAX_NAME_BYTES {
            return Err(Refusal::new(
                self.denied,
                format!(
                    "the {kind} name `{}` is {} bytes long (more than {MAX_NAME_BYTES}): no listing shows it",
                    cut_name(name),
                    name.len()
                ),
                "builtin name length",
            ));
        }
        let (found, _) = poison::clean(name);
        if !found.is_clean() {
            return Err(Refusal::new(
                self.poisoned,
                format!("the {kind} name carries {}", found.summary()),
                "builtin poison check (names)",
            ));
        }
        if let Some(g) = self.deny.first_match(name) {
            return Err(Refusal::new(
                self.denied,
                format!("{kind} `{name}` is denied by the policy"),
                format!("{section}.deny \"{g}\""),
            ));
        }
        if self.allow.is_some_and(|a| a.first_match(name).is_none()) {
            return Err(Refusal::new(
                self.denied,
                format!("{kind} `{name}` is not in the policy's allow list"),
                format!("{section}.allow"),
            ));
        }
        Ok(())
    }
}

/// Deepest nesting of JSON texts inside string arguments that the checks
/// decode (a string holding an array whose strings hold arrays, …): a
/// server on the official Python SDK decodes a string argument whose
/// parameter is a list or a model, so `"[\"http://10.0.0.1/\"]"` is a URL
/// to it. Deeper is refused (`policy.arguments_too_complex`).
pub const MAX_EMBEDDED_JSON_DEPTH: usize = 4;

/// The state of one walk over a request's strings.
struct Scan<'a> {
    /// Strings left to check ([`MAX_SCANNED_STRINGS`] at the start).
    budget: &'a mut usize,
    /// Host names the child will resolve.
    names: &'a mut Vec<PendingName>,
    /// JSON texts decoded from strings around the value being walked.
    nesting: usize,
    /// Inside a YAML block collection read from a string (prose such as
    /// `File: report.pdf` reads as one): a value under a path name gets
    /// the path check only when it reads as a path.
    prose: bool,
}

/// What a string argument holds, read as a server's JSON decoder would.
#[derive(Debug, PartialEq)]
enum Embedded {
    /// Not a JSON array or object: only text.
    Text,
    /// A JSON array or object, strict (unique keys, within the core's
    /// depth); or a bracketed text that is not JSON, read as YAML reads
    /// its flow collections (Python's dict and list literals with quoted
    /// strings: `{'path': '/etc/passwd'}`). Each reading of it (more
    /// than one when a YAML `!!binary` scalar in it has more,
    /// [`read_yaml`], or a loader reads it otherwise,
    /// [`MAX_YAML_FORMS`](super::MAX_YAML_FORMS)),
    /// the first first; never empty.
    Json(Vec<Value>),
    /// A text that is no JSON but a YAML block collection (`path:
    /// /etc/passwd`, `- /etc/passwd`): checked as prose may be (a value
    /// under a path name when it reads as a path, [`Scan::prose`]). Each
    /// reading of it, as for [`Embedded::Json`].
    Block(Vec<Value>),
    /// Starts as an array or object but is not strict JSON and does not
    /// end as one (no decoder reads it whole): its string literals,
    /// decoded.
    Literals(Vec<String>),
    /// JSON that a decoder reads one way and this check another: a
    /// duplicate key (which of the two?), nesting past the core's bound, or
    /// a bracketed text with strings that only a lenient decoder reads.
    Unreadable(String),
}

/// Reads `s` as a server's decoder would when its parameter is not a
/// string: white space (JSON's, Unicode's) and a byte order mark around
/// it; an array or object (`[` or `{` first) as strict JSON, else as YAML
/// reads a flow collection ([`read_yaml`]: Python's dict and list
/// literals); a text holding a `key: value` line or starting with `- ` or
/// `---`, as YAML reads a block collection. Bounded by `s`'s length (the
/// core's strict parser, one YAML parse, one pass over it).
fn embedded_json(s: &str) -> Embedded {
    let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    // A JSON string (JSON in JSON: a server that decodes twice reads the
    // text it holds).
    if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') {
        if let Ok(v @ Value::String(_)) =
            crate::json::parse_strict(t.as_bytes(), &crate::json::Limits::default())
        {
            return Embedded::Json(vec![v]);
        }
    }
    // A Python tuple of strings or collections (`('/etc/passwd',)`): the
    // list it holds.
    if let Some(inner) = t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        if inner.trim_start().starts_with(['\'', '"', '(', '[', '{']) {
            return match read_yaml_forms(&format!("[{inner}]")) {
                YamlRead::Collection(v) if !v.iter().any(python_residue) => Embedded::Json(v),
                YamlRead::Unreadable(why) => Embedded::Unreadable(why),
                _ => Embedded::Unreadable("a Python tuple this check cannot read".into()),
            };
        }
    }
    // JSON after `//` or `/* */` comments (JSONC: `json5`,
    // `strip-json-comments`, VS Code's settings): what follows them.
    if let Some(rest) = after_leading_comments(t) {
        return embedded_json(rest);
    }
    if !t.starts_with(['[', '{']) {
        let form = yaml_loader_form(t);
        let as_written = may_be_yaml_block(t).then(|| read_yaml(t));
        let as_loaded = form
            .as_deref()
            .filter(|f| may_be_yaml_block(f))
            .map(read_yaml);
        return match (as_written, as_loaded) {
            (None, None) => Embedded::Text,
            (a, b) => {
                match both_readings(a.unwrap_or(YamlRead::Other), b.unwrap_or(YamlRead::Other)) {
                    YamlRead::Collection(v) => Embedded::Block(v),
                    YamlRead::Unreadable(why) => Embedded::Unreadable(why),
                    YamlRead::Other => Embedded::Text,
                }
            }
        };
    }
    match crate::json::parse_strict(t.as_bytes(), &crate::json::Limits::default()) {
        Ok(v) => Embedded::Json(vec![v]),
        Err(
            e @ (crate::json::JsonError::DuplicateKey(_) | crate::json::JsonError::TooDeep { .. }),
        ) => Embedded::Unreadable(e.to_string()),
        Err(_) => {
            let literals = string_literals(t);
            // JSONC (comments, trailing commas): what its decoders read,
            // and every string literal as written (a strict decoder reads
            // none of it, a YAML one may read a comment's text).
            if let Some(v) = jsonc_reading(t) {
                let written = Value::Array(literals.into_iter().map(Value::String).collect());
                return Embedded::Json(vec![v, written]);
            }
            let bracketed = one_collection(t);
            // Bracketed and holding strings, yet not strict JSON: a lenient
            // decoder (Python's `NaN`, `Infinity`, `1e999`, lone
            // surrogates; Node's too) may read it as an object whose key
            // names this check cannot see.
            if bracketed && !literals.is_empty() {
                return Embedded::Unreadable(
                    "JSON that is not strict (NaN, Infinity, a number out of range, a lone surrogate, …)"
                        .into(),
                );
            }
            if bracketed {
                match read_yaml_forms(t) {
                    // A scalar YAML left holding quotes or a parenthesis is
                    // a Python literal YAML does not read (a tuple, bytes:
                    // `('/etc/passwd',)`, `b'…'`).
                    YamlRead::Collection(v) if v.iter().any(python_residue) => {
                        return Embedded::Unreadable(
                            "a bracketed text holding a Python literal (a tuple, bytes) that YAML reads otherwise"
                                .into(),
                        )
                    }
                    YamlRead::Collection(v) => return Embedded::Json(v),
                    YamlRead::Unreadable(why) => return Embedded::Unreadable(why),
                    // Quoted strings in a bracketed text no reader here
                    // reads whole (`{'a': 'it\'s', 'path': …}`, a Python
                    // literal with escapes): a Python server's
                    // `ast.literal_eval` may.
                    YamlRead::Other if t.matches('\'').count() >= 2 => {
                        return Embedded::Unreadable(
                            "a bracketed text with quoted strings that is neither JSON nor YAML (a Python literal?)"
                                .into(),
                        )
                    }
                    YamlRead::Other => {}
                }
            }
            Embedded::Literals(literals)
        }
    }
}

/// How [`one_collection`] reads quotes and comments: the ways decoders
/// that read a bracketed text as one collection (JSON, JSON5, Python
/// literals, YAML flow collections) spell a string and a comment.
#[derive(Clone, Copy, PartialEq)]
enum Quoting {
    /// No strings, no comments (YAML plain scalars holding quotes: `[a"b]`).
    None,
    /// JSON's double-quoted strings with backslash escapes (Python's and
    /// Node's lenient decoders).
    Json,
    /// JSON5's and JSONC's: single- and double-quoted strings with
    /// backslash escapes, `//` and `/* */` comments.
    Json5,
    /// Python's literals: single- and double-quoted strings, triple-quoted
    /// ones, backslash escapes in all, `#` comments.
    Python,
    /// YAML's flow collections: a quote opens a scalar only at its start
    /// (after a bracket, `,`, `:` or `?` and white space), single-quoted
    /// with no escape but `''`, double-quoted with backslash escapes; `#`
    /// after white space opens a comment.
    Yaml,
    /// As [`Quoting::Yaml`], a quote opening a string anywhere.
    YamlLoose,
}

/// Whether `t` (its first character `[` or `{`) reads as one bracketed
/// collection in some decoder's quoting ([`Quoting`]): its first bracket
/// closes at its last character. `[project]\nname = "x"\ndeps = [\n]`
/// (TOML), `[Unit]\n…\n[Install]` and `[1] "Smith". See [2]` open and close
/// more than once: no decoder reads them whole, and their string literals
/// are checked one by one. Bounded by `t`'s length, six passes.
fn one_collection(t: &str) -> bool {
    [
        Quoting::None,
        Quoting::Json,
        Quoting::Json5,
        Quoting::Python,
        Quoting::Yaml,
        Quoting::YamlLoose,
    ]
    .into_iter()
    .any(|q| first_bracket_closes_last(t, q))
}

/// [`one_collection`] in one [`Quoting`].
fn first_bracket_closes_last(t: &str, quoting: Quoting) -> bool {
    use Quoting::{Json, Json5, None as Plain, Python, Yaml, YamlLoose};
    let yaml = matches!(quoting, Yaml | YamlLoose);
    let mut depth = 0_usize;
    // The last character outside white space, comments and strings.
    let mut last = ' ';
    let mut spaced = true;
    let mut chars = t.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let scalar_start = quoting != Yaml || matches!(last, '[' | '{' | ',' | ':' | '?');
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    let rest = t.get(i + c.len_utf8()..).unwrap_or_default();
                    return rest.is_empty() || trailer_only(rest, quoting);
                }
            }
            '"' | '\'' if quoting == Plain || (c == '\'' && quoting == Json) => {}
            '"' | '\'' if yaml && !scalar_start => {}
            '"' | '\'' => {
                let escapes = !(yaml && c == '\'');
                // A Python triple-quoted string ends at three quotes.
                let triple = quoting == Python
                    && t.get(i..)
                        .is_some_and(|r| r.starts_with(&format!("{c}{c}{c}")));
                if triple {
                    chars.next();
                    chars.next();
                }
                let mut run = 0_usize;
                while let Some((_, d)) = chars.next() {
                    if d == '\\' && escapes {
                        chars.next();
                        run = 0;
                    } else if d == c {
                        run += 1;
                        if !triple || run == 3 {
                            break;
                        }
                    } else {
                        run = 0;
                    }
                }
                last = c;
                spaced = false;
                continue;
            }
            '#' if quoting == Python || (yaml && spaced) => {
                for (_, d) in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
                spaced = true;
                continue;
            }
            '/' if quoting == Json5 => match chars.peek() {
                Some((_, '/')) => {
                    for (_, d) in chars.by_ref() {
                        if d == '\n' {
                            break;
                        }
                    }
                    spaced = true;
                    continue;
                }
                Some((_, '*')) => {
                    chars.next();
                    let mut star = false;
                    for (_, d) in chars.by_ref() {
                        if star && d == '/' {
                            break;
                        }
                        star = d == '*';
                    }
                    spaced = true;
                    continue;
                }
                _ => {}
            },
            _ => {}
        }
        spaced = c.is_whitespace();
        if !spaced {
            last = c;
        }
    }
    false
}

/// `true` when `rest`, what follows a collection's closing bracket, is
/// only what a decoder in `quoting` reads past it: white space and
/// comments (`{…} # note`: Python's `ast.literal_eval`, PyYAML), or, in
/// Python, a `,` that makes the collection a tuple's first item (`{…},`,
/// `{…}, {…}`; attack s80-A, N1).
fn trailer_only(rest: &str, quoting: Quoting) -> bool {
    let mut rest = rest.trim_start();
    loop {
        let comment = match quoting {
            Quoting::Python | Quoting::Yaml | Quoting::YamlLoose => rest.strip_prefix('#'),
            Quoting::Json5 => rest.strip_prefix("//"),
            _ => None,
        };
        match comment {
            Some(c) => {
                rest = c
                    .split_once('\n')
                    .map_or("", |(_, after)| after)
                    .trim_start()
            }
            None => break,
        }
    }
    rest.is_empty() || (quoting == Quoting::Python && rest.starts_with(','))
}

/// `t` read as JSONC (VS Code's settings, `tsconfig.json`,
/// `devcontainer.json`): without `//` and `/* */` comments outside
/// strings and without a `,` before a closing bracket, when that is
/// strict JSON; `None` otherwise. Bounded by `t`'s length.
fn jsonc_reading(t: &str) -> Option<Value> {
    let mut out = String::with_capacity(t.len());
    let mut chars = t.chars().peekable();
    let mut changed = false;
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push(c);
                while let Some(d) = chars.next() {
                    out.push(d);
                    if d == '\\' {
                        out.extend(chars.next());
                    } else if d == '"' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        out.push('\n');
                        break;
                    }
                }
                changed = true;
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut star = false;
                for d in chars.by_ref() {
                    if star && d == '/' {
                        break;
                    }
                    star = d == '*';
                }
                out.push(' ');
                changed = true;
            }
            ']' | '}' => {
                // A trailing comma before it (white space between).
                let kept = out.trim_end().len();
                if out.get(..kept).is_some_and(|o| o.ends_with(',')) {
                    out.truncate(kept.saturating_sub(1));
                    changed = true;
                }
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    if !changed {
        return None;
    }
    crate::json::parse_strict(out.as_bytes(), &crate::json::Limits::default()).ok()
}

/// The value at the RFC 6901 `pointer` in `root`, reading a string on the
/// way that holds a JSON array or object ([`embedded_json`]) as what it
/// holds, at most [`MAX_EMBEDDED_JSON_DEPTH`] times: the value under each
/// reading of such a text ([`Embedded::Json`]), none when no value is
/// there. Bounded by the pointer's tokens times ([`MAX_YAML_FORMS`](super::MAX_YAML_FORMS) ×
/// [`MAX_BASE64_READINGS`](super::MAX_BASE64_READINGS))^[`MAX_EMBEDDED_JSON_DEPTH`].
fn pointer_through_strings(root: &Value, pointer: &str) -> Vec<Value> {
    let tokens: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    follow(root, &tokens, 0)
}

/// [`pointer_through_strings`] from `root` (reached through `decoded`
/// texts): borrowed until a string holding JSON, whose decoded value the
/// rest of the pointer is followed into (each reading of it).
fn follow(root: &Value, tokens: &[String], decoded: usize) -> Vec<Value> {
    let mut at = root;
    for (i, token) in tokens.iter().enumerate() {
        if let Value::String(s) = at {
            if decoded >= MAX_EMBEDDED_JSON_DEPTH {
                return Vec::new();
            }
            let (Embedded::Json(readings) | Embedded::Block(readings)) = embedded_json(s) else {
                return Vec::new();
            };
            let rest = tokens.get(i..).unwrap_or_default();
            return readings
                .iter()
                .flat_map(|v| follow(v, rest, decoded + 1))
                .collect();
        }
        let next = match at {
            Value::Object(m) => m.get(token),
            // As `Value::pointer` reads an index: digits, no leading zero.
            Value::Array(a) if token == "0" || !token.starts_with(['0', '+']) => {
                token.parse::<usize>().ok().and_then(|n| a.get(n))
            }
            _ => None,
        };
        let Some(next) = next else {
            return Vec::new();
        };
        at = next;
    }
    vec![at.clone()]
}

/// The string literals of a text that looks like JSON, each read as
/// Python's `json.loads` and JavaScript's `JSON.parse` read it
/// ([`literals::spellings`]; an escape JSON does not know, `\x41`, `\U`,
/// kept as written, as a lenient reader keeps it). Both keep a lone
/// surrogate, where a server may split the text, drop it (Python's
/// `errors="ignore"`) or find a URL after it: a literal holding one is
/// read with them dropped and, when they part it, as each part (non-empty)
/// on its own; U+FFFD in their place (JavaScript's UTF-8) delimits
/// nothing in a URL or a path, so it names no destination but the first
/// reading's, or none. One pass over `t`.
fn string_literals(t: &str) -> Vec<String> {
    let mut readings = Vec::new();
    for (a, b) in literals::json_string_spans(t) {
        let Some(inside) = t
            .get(a..b)
            .and_then(|l| l.strip_prefix('"')?.strip_suffix('"'))
        else {
            continue;
        };
        let mut parts = vec![String::new()];
        for (c, _) in literals::spellings(inside, true) {
            match (c, parts.last_mut()) {
                (Some(c), Some(part)) => part.push(c),
                _ => parts.push(String::new()),
            }
        }
        parts.retain(|p| !p.is_empty());
        readings.push(parts.concat());
        if parts.len() > 1 {
            readings.extend(parts);
        }
    }
    readings
}

fn spend(budget: &mut usize) -> Result<(), Refusal> {
    if *budget == 0 {
        return Err(Refusal::new(
            GateCode::ArgumentsTooComplex,
            format!("the arguments hold more than {MAX_SCANNED_STRINGS} strings"),
            "builtin scan bound",
        ));
    }
    *budget -= 1;
    Ok(())
}

/// Whether an object key under a path-named argument reads as a path: it
/// holds a separator (`/` or `\\`) or begins with `~` or `.`, as written
/// or percent-decoded ([`percent_forms`]).
fn looks_like_a_path(key: &str) -> bool {
    percent_forms(key)
        .iter()
        .any(|k| k.contains(['/', '\\']) || k.starts_with(['~', '.']))
}

/// `text` as written and as each reading a server's decoding may make of
/// it ([`decodings`]: `%2e%2e%2f` is `../`, `%u002F` is `/`), up to
/// [`super::MAX_PERCENT_DECODINGS`] decodings deep. At most seven forms.
fn percent_forms(text: &str) -> Vec<std::borrow::Cow<'_, str>> {
    decodings(text).into_forms()
}

/// `text` as a server that drops what a reader does not see and
/// normalises compatibility forms reads it ([`super::hidden::shown`]:
/// terminal escape sequences whole, the characters the screen calls
/// hidden; then NFKC); `None` when that is `text` (printable ASCII always
/// is).
fn shown_form(text: &str) -> Option<String> {
    if text
        .bytes()
        .all(|b| matches!(b, b' '..=b'~' | b'\t' | b'\n' | b'\r'))
    {
        return None;
    }
    let shown = super::hidden::shown(text);
    let folded = icu_normalizer::ComposingNormalizerBorrowed::new_nfkc()
        .normalize(&shown)
        .into_owned();
    (folded != text).then_some(folded)
}

/// The scheme and authority of `text` read as a URL ([`lenient_form`],
/// ASCII lower case): everything before the path, query or fragment
/// (`https://a.example:8443` of `https://A.example:8443/x?y`; the host of a
/// scheme-less `a.example/x`).
fn url_origin(text: &str) -> String {
    let s = lenient_form(text);
    let scheme_end = s
        .find(':')
        .filter(|&c| {
            s.get(..c).is_some_and(|scheme| {
                scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                    && scheme
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
            })
        })
        .map_or(0, |c| c + 1);
    let rest = s.get(scheme_end..).unwrap_or_default();
    let slashes = rest.len() - rest.trim_start_matches(['/', '\\']).len();
    let authority_start = scheme_end + slashes;
    let end = s
        .get(authority_start..)
        .and_then(|t| t.find(['/', '?', '#', '\\']))
        .map_or(s.len(), |e| authority_start + e);
    s.get(..end).unwrap_or_default().to_ascii_lowercase()
}

/// Where a client's answer stands, for
/// [`Gatekeeper::check_client_answer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answered {
    /// A response's `result` (or its `error` object) to a request other
    /// than `roots/list`.
    Result,
    /// A response's `result` to the server's `roots/list`.
    RootsList,
    /// A request's `inputResponses`: a map from the server's input
    /// request key to the client's result for it.
    Inputs,
}

/// The `file:` URIs of this machine (no host, or `localhost`) in the
/// roots list of `result` when it stands as an answer to `roots/list`
/// (`{"roots": [{"uri": "file:///…"}, …]}`): the client's own roots, which
/// no URL check could pass (a `file:` URL is refused as one), go
/// unchecked; every other member, and `file://host/…`, is checked.
fn root_file_uris<'a>(result: &'a Value, exempt: &mut Vec<&'a Value>) {
    let Some(Value::Array(roots)) = result.get("roots") else {
        return;
    };
    for root in roots {
        if let Some(uri) = root.get("uri") {
            // A `file:` URI of this machine: `file://host/…` is a share
            // on another (a UNC path, SMB to that host, on Windows).
            let is_file = uri.as_str().is_some_and(|u| {
                url::Url::parse(u).is_ok_and(|u| {
                    u.scheme() == "file"
                        && u.host_str()
                            .is_none_or(|h| h.is_empty() || h.eq_ignore_ascii_case("localhost"))
                })
            });
            if is_file {
                exempt.push(uri);
            }
        }
    }
}

/// Where a value sits, for the path check of the generic walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Under no path-named key.
    Plain,
    /// The value of a key naming settings text (`dsn`, `args`, `env`:
    /// [`settings_name`]), or an element of its array: as [`Place::Plain`],
    /// and its `key=value` items each in its key's place
    /// ([`settings_items`]).
    Settings,
    /// The value of a key naming configuration text (`config`,
    /// `settings`: [`config_name`]), or an element of its array: as
    /// [`Place::Plain`], and, when it is no JSON or YAML (TOML, env or
    /// query text), as [`Place::Settings`] is.
    Config,
    /// The value of a path-named key, or an element of its array: a path,
    /// whatever its text.
    Path,
    /// A member of an object under a path-named key (at any depth) whose
    /// own name says nothing: a path when its text reads as one.
    InPath,
    /// The value of a key naming a file's URI or location (`file_uri`,
    /// `fileUrl`: [`uri_name`]): a path when it is no URL.
    FileUri,
    /// The value of a key naming a URI (`uri`, `href`): a path when it is
    /// no URL and reads as a path.
    Uri,
    /// The value of a key naming a host (`host`, `endpoint`:
    /// [`host_name`]): a host whatever its text looks like
    /// ([`host_argument`]: `::1`, `127.1`); under `--resolve`, a name in it
    /// is looked up as under a URI-named key.
    Host,
    /// A member of an object under a host-named key (at any depth) whose
    /// own name says nothing (`{"host": {"value": "::1"}}`): read as the
    /// words of a host ([`HostPlace::Member`]).
    InHost,
    /// The value of a key naming an address of any kind (`address`,
    /// `remote_address`: [`address_name`]): a text with a dot or a colon
    /// is read as [`Place::InHost`] is; a bare number or word is no host
    /// (`0x401000`, a wallet's `0x…`, `1 Main St`).
    Address,
}

/// The parts of a path-named text that a server splitting it into several
/// paths reads, each that reads as a path on its own ([`reads_as_a_path`]):
/// split at white space, line breaks and the information separators
/// U+001C–U+001F (as Python's `str.split()` and `splitlines()` split:
/// [`list_space`]), `,`, `;` and `|`, and at `:` in a text that starts at
/// the root (a `PATH`-style list: `/a:/etc`). `a.txt\n/etc/passwd` yields
/// `/etc/passwd`; a text without a separator yields nothing (it is checked
/// whole). A part `~NAME` without a slash is a home directory only when
/// NAME can be a user name ([`user_name`]): `notes ~old.txt` is one file's
/// name. Bounded by the text's length.
fn path_list_parts(s: &str) -> impl Iterator<Item = &str> {
    let colon = s.trim_start().starts_with('/');
    s.split(move |c: char| list_space(c) || matches!(c, ',' | ';' | '|') || (colon && c == ':'))
        .filter(move |p| p.len() < s.len() && reads_as_a_path(p))
        .filter(|p| match p.trim_start().strip_prefix('~') {
            Some(name) if !name.contains(['/', '\\']) => name.is_empty() || user_name(name),
            _ => true,
        })
}

/// `true` when `name` can be a user name as `useradd` takes one by default
/// (`NAME_REGEX`: a lower-case letter or `_`, then lower-case letters,
/// digits, `_` and `-`, perhaps a final `$`).
fn user_name(name: &str) -> bool {
    let name = name.strip_suffix('$').unwrap_or(name);
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '-'))
}

/// `true` when a string under a path-named key reads as a path, as
/// written or percent-decoded ([`percent_forms`]: `%2e%2e%2fx`), each also
/// as a URL parser reads it ([`lenient_form`]: `\u{1}/etc`): it starts
/// at a root, a home or a dot directory (`/`, `\`, `~`, `./`, `../`, `.`,
/// `..`), or climbs out anywhere (`a/../b`). Prose with a slash (`1/2`,
/// `and/or`) does not.
fn reads_as_a_path(s: &str) -> bool {
    percent_forms(s)
        .iter()
        .any(|s| reads_as_a_path_as_written(s) || reads_as_a_path_as_written(&lenient_form(s)))
}

/// [`reads_as_a_path`] of one form of the text.
fn reads_as_a_path_as_written(s: &str) -> bool {
    let s = s.trim_start();
    if let Some(rest) = crate::gate::paths::drive_rest(s) {
        // `C:`, `a:/etc/passwd`, `x:..`: a drive, or a one-letter scheme
        // whose path a URL parser hands a server.
        return rest.is_empty() || rest.starts_with(['/', '\\', '.']) || rest.contains(['/', '\\']);
    }
    s.starts_with(['/', '\\', '~'])
        || s == "."
        || s == ".."
        || s.starts_with("./")
        || s.starts_with(".\\")
        || s.starts_with("../")
        || s.starts_with("..\\")
        || s.contains("/..")
        || s.contains("\\..")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::PathBuf;

    /// The members a mediated request names its operation by have their
    /// schema's types; `subscriptions/listen`'s list is bounded
    /// (attack s57, S1).
    #[test]
    fn params_shapes() {
        let ok = |m: &str, p: Value| params_shape(m, Some(&p));
        assert!(ok("subscriptions/listen", json!({"notifications": {}})).is_ok());
        let one = json!({"notifications": {"resourceSubscriptions": ["a"]}});
        assert!(ok("subscriptions/listen", one).is_ok());
        let full = vec!["a"; MAX_LISTEN_SUBSCRIPTIONS];
        let at_bound = json!({"notifications": {"resourceSubscriptions": full}});
        assert!(ok("subscriptions/listen", at_bound).is_ok());
        let over = vec!["a"; MAX_LISTEN_SUBSCRIPTIONS + 1];
        for (method, bad, at) in [
            ("subscriptions/listen", json!({}), "/params/notifications"),
            (
                "subscriptions/listen",
                json!({"notifications": {"resourceSubscriptions": over}}),
                "at most",
            ),
            (
                "subscriptions/listen",
                json!({"notifications": {"resourceSubscriptions": ["a", 2]}}),
                "resourceSubscriptions/1",
            ),
            (
                "subscriptions/listen",
                json!({"notifications": {"resourceSubscriptions": "a"}}),
                "must be an array",
            ),
            ("tools/call", json!({"name": 1}), "/params/name"),
            ("resources/read", json!({}), "/params/uri"),
        ] {
            let e = ok(method, bad.clone()).unwrap_err().to_string();
            assert!(e.contains(at), "{method} {bad}: {e}");
        }
        assert!(params_shape("subscriptions/listen", None).is_err());
        assert!(params_shape("ping", None).is_ok());
    }

    /// A `tools/list` or `prompts/list` entry whose name is longer than
    /// `MAX_NAME_BYTES` is taken out of the page, reported cut to
    /// `SHOWN_NAME_BYTES` at a character boundary with `…`; a name of
    /// exactly the bound stays, and other listings are left alone (attack
    /// s72-A, F2).
    #[test]
    fn overlong_names_are_taken_out_of_listings() {
        // A two-byte character across the cut: cut before it.
        let long = format!(
            "{}é{}",
            "a".repeat(SHOWN_NAME_BYTES - 1),
            "b".repeat(MAX_NAME_BYTES)
        );
        let fits = "f".repeat(MAX_NAME_BYTES);
        for (method, member) in [("tools/list", "tools"), ("prompts/list", "prompts")] {
            let mut page = json!({member: [{"name": long}, {"name": fits}, {"name": "x"}, {}]});
            let dropped = Gatekeeper::drop_overlong_names(method, &mut page);
            let names: Vec<&str> = dropped.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(
                names,
                [format!("{}…", "a".repeat(SHOWN_NAME_BYTES - 1))],
                "{method}"
            );
            assert_eq!(dropped[0].1.code(), "tool.bad_response");
            assert_eq!(
                page,
                json!({member: [{"name": fits}, {"name": "x"}, {}]}),
                "{method}"
            );
        }
        let mut page = json!({"resources": [{"name": long}]});
        let before = page.clone();
        assert!(Gatekeeper::drop_overlong_names("resources/list", &mut page).is_empty());
        assert_eq!(page, before);
        assert_eq!(
            cut_name(&"c".repeat(SHOWN_NAME_BYTES)),
            "c".repeat(SHOWN_NAME_BYTES)
        );
        assert_eq!(
            cut_name(&"c".repeat(SHOWN_NAME_BYTES + 1)),
            format!("{}…", "c".repeat(SHOWN_NAME_BYTES))
        );
        // A name refused by the lists says so with its cut form and length.
        let g = keeper("");
        let e = g
            .tool_decision(&long, &ToolView::default(), None)
            .unwrap_err();
        assert!(e.message().contains(&cut_name(&long)), "{}", e.message());
        assert!(
            e.message().contains(&long.len().to_string()),
            "{}",
            e.message()
        );
    }

    /// Each URI a `subscriptions/listen` subscribes gets the resource
    /// decision; the filter's other members the argument checks.
    #[test]
    fn subscriptions_listen_is_decided_per_uri() {
        let g = keeper("");
        let listen = |n: Value| {
            let p = json!({ "notifications": n });
            g.check_request("subscriptions/listen", Some(&p))
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        assert_eq!(listen(json!({"toolsListChanged": true})), "ok");
        assert_eq!(
            listen(json!({"resourceSubscriptions": ["https://example.com/a"]})),
            "ok"
        );
        assert_eq!(
            listen(
                json!({"resourceSubscriptions": ["https://example.com/a", "http://127.0.0.1/"]})
            ),
            "ssrf.loopback"
        );
        assert_eq!(listen(json!({"x": "http://10.0.0.1/"})), "ssrf.private_use");
        // The snake_case name a Python SDK server reads too: each URI
        // decided as a subscription, not as an argument.
        for member in LISTEN_MEMBERS {
            assert_eq!(
                listen(json!({ member: ["https://example.com/\u{200b}a"] })),
                "tool.poisoned",
                "{member}"
            );
        }
        let both = json!({"notifications": {"resourceSubscriptions": [], "resource_subscriptions": ["a"]}});
        assert!(params_shape("subscriptions/listen", Some(&both)).is_err());
        let snake = json!({"notifications": {"resource_subscriptions": [1]}});
        assert_eq!(
            params_shape("subscriptions/listen", Some(&snake)),
            Err(shape(
                "/params/notifications/resource_subscriptions/0",
                "must be a string"
            ))
        );
        let p = json!({"notifications": {"resource_subscriptions": ["u"]}});
        assert_eq!(
            crate::gate::named::listen_subscriptions(Some(&p)),
            Some(&vec![json!("u")])
        );
    }

    fn keeper(policy: &str) -> Gatekeeper {
        Gatekeeper {
            policy: Policy::parse(policy).unwrap(),
            ..Gatekeeper::default()
        }
    }

    /// A keeper with `policy` and one root, `data`, in a new temporary
    /// directory (kept alive by the first element; the second is its real
    /// path), relative paths read as `relative` says, `~` refused.
    fn rooted(
        policy: &str,
        relative: crate::gate::RelativePaths,
    ) -> (tempfile::TempDir, PathBuf, Gatekeeper) {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("data")).unwrap();
        let roots = Roots::new(
            &[PathBuf::from("data")],
            base.clone(),
            None,
            relative,
            crate::gate::TildePaths::Refuse,
            crate::gate::VariablePaths::Refuse,
        )
        .unwrap();
        let g = Gatekeeper {
            roots: Some(roots),
            ..keeper(policy)
        };
        (t, base, g)
    }

    /// Any refusal, as the expected answer in a [`decided_wrongly`] table.
    const REFUSED: &str = "refused";

    /// The cases of `table` that a gatekeeper without a policy decides
    /// otherwise than they say, with and without `--resolve`: each expects a
    /// code, `"ok"`, or [`REFUSED`] for any refusal.
    fn decided_wrongly(table: &[(Value, &str)]) -> Vec<String> {
        let mut wrong = Vec::new();
        for resolve in ["", "[net]\nresolve = true\n"] {
            let g = keeper(resolve);
            for (args, want) in table {
                let got = code(&g, "t", args.clone());
                let matches = if *want == REFUSED {
                    got != "ok"
                } else {
                    got == *want
                };
                if !matches {
                    wrong.push(format!("{args} {resolve:?}: {got}, not {want}"));
                }
            }
        }
        wrong
    }

    fn code(g: &Gatekeeper, tool: &str, args: Value) -> &'static str {
        g.check_arguments(tool, &args)
            .map(|_| "ok")
            .unwrap_or_else(|e| e.code())
    }

    /// A host-named argument is handed to `getaddrinfo` or `connect` as it
    /// is: an address in any notation is the address, with or without
    /// `--resolve` (#20 attack s46, F1). Names, words and the same texts
    /// under other keys are unchanged.
    #[test]
    fn a_host_named_argument_is_a_host_in_every_notation() {
        for resolve in ["", "[net]\nresolve = true\n"] {
            let g = keeper(resolve);
            for (key, host, want) in [
                ("host", "::1", "ssrf.loopback"),
                ("host", "0:0:0:0:0:0:0:1", "ssrf.loopback"),
                ("hostname", " ::1\t", "ssrf.loopback"),
                ("endpoint", "::ffff:127.0.0.1", "ssrf.loopback"),
                ("host", "::ffff:169.254.169.254", "ssrf.cloud_metadata"),
                ("host", "fd00:ec2::254", "ssrf.cloud_metadata"),
                ("host", "fe80::1%eth0", "ssrf.link_local"),
                ("host", "fe80::1%25eth0", "ssrf.link_local"),
                ("note", "fe80::1%eth0", "ok"),
                ("host", "::", "ssrf.unspecified"),
                ("apiServer", "127.1", "ssrf.loopback"),
                ("host", "2130706433", "ssrf.loopback"),
                ("host", "017700000001", "ssrf.loopback"),
                ("host", "0x7f.1", "url.ambiguous"),
                ("host", "0", "ssrf.unspecified"),
                ("target_host", "10.5", "ssrf.private_use"),
                ("hosts", "169.254.169.254", "ssrf.cloud_metadata"),
                ("host", "2606:4700::1111", "ok"),
                ("host", "8.8.8.8", "ok"),
                ("host", "1.1", "ok"),
                ("server", "github.com", "ok"),
                // A single label is a host a search domain completes
                // (#20 attack s46, F2), refused as in a URL.
                ("host", "db", "ssrf.single_label_name"),
                ("db_host", "metadata", "ssrf.metadata_name"),
                ("redisHost", "localhost", "ssrf.localhost_name"),
                ("host", "kubernetes", "ssrf.single_label_name"),
                ("host", "my laptop", "ok"),
                ("domain", "example.com", "ok"),
                ("origin", "Re: minutes", "ok"),
                // Other keys: network notation and numbers stay text.
                ("note", "::1", "ok"),
                ("price", "127.1", "ok"),
            ] {
                assert_eq!(
                    code(&g, "t", json!({ key: host })),
                    want,
                    "{key}: {host:?} {resolve}"
                );
                assert_eq!(
                    code(&g, "t", json!({ "opts": [{ key: [host] }] })),
                    want,
                    "{key}: [{host:?}] {resolve}"
                );
            }
        }
        // An operator's deny entry holds for a host-named name unresolved.
        let g = keeper("[net]\ndeny = [\"evil.example.com\"]\n");
        assert_eq!(
            code(&g, "t", json!({"host": "evil.example.com"})),
            "ssrf.operator_deny"
        );
        // An allow entry admits the address, in any notation.
        let g = keeper("[net]\nallow = [\"::1\"]\n");
        assert_eq!(code(&g, "t", json!({"host": "::1"})), "ok");
    }

    /// A host-named text is read as a resolver reads it (#20 attack s46b):
    /// invisible and full-width characters mapped away (F1); a list of
    /// hosts element by element (F2); names of host collections and
    /// addresses, and objects under a host-named key (F3).
    #[test]
    fn host_named_texts_as_a_resolver_reads_them() {
        let wrong = decided_wrongly(&[
            // F1: what IDNA removes or maps.
            (json!({"host": "\u{ff1a}\u{ff1a}\u{ff11}"}), "ssrf.loopback"),
            (json!({"host": "::\u{ad}1"}), "ssrf.loopback"),
            (json!({"host": "::1\u{200b}"}), "ssrf.loopback"),
            (json!({"host": "\u{200c}::1"}), "ssrf.loopback"),
            (json!({"host": "::1\u{fe0f}"}), "ssrf.loopback"),
            (json!({"host": "::\u{1806}1"}), "ssrf.loopback"),
            (json!({"host": "[::1\u{2060}]"}), "ssrf.loopback"),
            (
                json!({"host": "::ffff:\u{ff11}\u{ff12}\u{ff17}.0.0.1"}),
                "ssrf.loopback",
            ),
            (
                json!({"host": "::ffff:169\u{3002}254.169.254"}),
                "ssrf.cloud_metadata",
            ),
            (json!({"db_host": "::1%\u{ff4c}o"}), "ssrf.loopback"),
            (json!({"servers": ["::\u{ad}1"]}), "ssrf.loopback"),
            (
                json!({"cfg": {"redisHost": "::1\u{200b}"}}),
                "ssrf.loopback",
            ),
            (json!({"host": "ex\u{ad}ample.com"}), "ok"),
            (json!({"host": "\u{ff45}xample.com"}), "ok"),
            (json!({"note": "::\u{ad}1"}), "ok"),
            // F2: lists.
            (
                json!({"bootstrap_servers": "127.0.0.1:8003,example.com:9092"}),
                "ssrf.loopback",
            ),
            (
                json!({"bootstrap_servers": "127.1:8003,a"}),
                "url.ambiguous",
            ),
            (
                json!({"host": "169.254.169.254,example.com"}),
                "ssrf.cloud_metadata",
            ),
            (json!({"host": "example.com;10.0.0.1"}), "ssrf.private_use"),
            (
                json!({"hosts": "example.com, 10.0.0.1"}),
                "ssrf.private_use",
            ),
            (json!({"hosts": "example.com ::1"}), "ssrf.loopback"),
            (json!({"host": "[::1]:8003,a.example.com"}), "ssrf.loopback"),
            (
                json!({"host": "localhost,example.com"}),
                "ssrf.localhost_name",
            ),
            (
                json!({"host": "example.com localhost"}),
                "ssrf.localhost_name",
            ),
            (json!({"host": "db,example.com"}), "ssrf.single_label_name"),
            (json!({"host": "example.com db:5432"}), "url.scheme"),
            (
                json!({"host": "example.com 127.0.0.1:5432"}),
                "ssrf.loopback",
            ),
            (json!({"host": "a.example.com, b.example.com"}), "ok"),
            (json!({"hosts": "example.com 8.8.8.8"}), "ok"),
            (json!({"server": "my laptop 2"}), "ok"),
            (json!({"origin": "Re: minutes"}), "ok"),
            (json!({"endpoint": "https://example.com/a,b;c"}), "ok"),
            (
                json!({"endpoint": "https://example.com/a http://[::1]/"}),
                "url.ambiguous",
            ),
            // F3: names, and members of objects under a host-named key.
            (json!({"hostList": "::1"}), "ssrf.loopback"),
            (json!({"hostIp": "127.1"}), "ssrf.loopback"),
            (json!({"ip_address": "::1"}), "ssrf.loopback"),
            (json!({"ip": "127.1"}), "ssrf.loopback"),
            (json!({"serverAddr": "10.0.0.1"}), "ssrf.private_use"),
            (json!({"email_address": "bob"}), "ok"),
            (json!({"zip": "10001"}), "ok"),
            (json!({"host": {"value": "::1"}}), "ssrf.loopback"),
            (json!({"hosts": {"primary": "::1"}}), "ssrf.loopback"),
            (
                json!({"hosts": {"primary": {"v": ["127.0.0.1"]}}}),
                "ssrf.loopback",
            ),
            (
                json!({"host": {"value": "localhost"}}),
                "ssrf.localhost_name",
            ),
            (json!({"host": {"value": "10.0.0.1 x"}}), "ssrf.private_use"),
            (json!({"host": {"value": "db"}}), "ok"),
            (json!({"hosts": "example.com user@127.1"}), "ssrf.loopback"),
            (json!({"host": {"value": "user@10.1"}}), "ssrf.private_use"),
            (json!({"host": {"version": "1.2.3", "count": "12"}}), "ok"),
            // Hosts one per line, numbers where a host goes, maps keyed
            // by host, full-width separators.
            (json!({"hosts": "example.com\n127.0.0.1"}), "ssrf.loopback"),
            (json!({"hosts": "example.com\r\n::1"}), "url.scheme"),
            (json!({"hosts": "example.com\r\n[::1]"}), "ssrf.loopback"),
            (json!({"host": "example.com\tdb"}), "ok"),
            (
                json!({"host": "\u{ff11}\u{ff12}\u{ff17}.0.0.1\u{ff0c}example.com"}),
                "ssrf.loopback",
            ),
            (json!({"host": 2130706433}), "ssrf.loopback"),
            (json!({"ip": 127.1}), "ssrf.loopback"),
            (json!({"hosts": [167772161]}), "ssrf.private_use"),
            (json!({"host": {"name": "example.com", "port": 8080}}), "ok"),
            (json!({"servers": [{"port": 5432, "weight": 0.5}]}), "ok"),
            (json!({"hosts": {"::1": 8080}}), "ssrf.loopback"),
            (
                json!({"hosts": {"127.0.0.1": {"weight": 1}}}),
                "ssrf.loopback",
            ),
            (
                json!({"hosts": {"example.com": 8080, "primary": "x"}}),
                "ok",
            ),
            (json!({"port": 2130706433}), "ok"),
            (
                json!({"servers": {"github": {"command": "npx", "args": ["-y", "@x/y"], "version": "0.9"}}}),
                "ok",
            ),
        ]);
        assert!(wrong.is_empty(), "{wrong:#?}");
        // Each element is a string the bound counts.
        let g = keeper("");
        let many = vec!["a.example.com"; MAX_SCANNED_STRINGS + 1].join(",");
        assert_eq!(
            code(&g, "t", json!({ "hosts": many })),
            "policy.arguments_too_complex"
        );
        // The key and the text count too: at the bound exactly.
        let fewer = vec!["a.example.com"; MAX_SCANNED_STRINGS - 2].join(",");
        assert_eq!(code(&g, "t", json!({ "hosts": fewer })), "ok");
        let one_more = vec!["a.example.com"; MAX_SCANNED_STRINGS - 1].join(",");
        assert_eq!(
            code(&g, "t", json!({ "hosts": one_more })),
            "policy.arguments_too_complex"
        );
    }

    /// A text that is a URL once the hidden characters are dropped and
    /// compatibility forms folded (a server normalising before it parses)
    /// is checked as that URL too (attack s73-B); a benign one, and text
    /// that is no URL either way, pass.
    #[test]
    fn urls_behind_hidden_characters_are_checked_as_shown() {
        let g = keeper("");
        for text in [
            "http\u{200B}://10.0.0.1/",
            "\u{200B}http://10.0.0.1/",
            "h\u{AD}ttp://10.0.0.1/",
            "http\u{FE0F}://10.0.0.1/",
            "\u{FF48}ttp://10.0.0.1/",
            "http\u{FF1A}//10.0.0.1/",
            "http\u{E0041}://10.0.0.1/",
            // Terminal escapes whole and ASCII controls (attack s74-B, F1).
            "ht\u{1b}[0mtp://10.0.0.1/",
            "\u{1b}[0mhttp://10.0.0.1/",
            "http:\u{1b}[0m//10.0.0.1/",
            "ht\u{0}tp://10.0.0.1/",
            "http\u{7f}://10.0.0.1/",
            "ht\u{8}tp://10.0.0.1/",
            "\u{1b}]8;;x\u{7}http://10.0.0.1/",
            "\u{9b}1mhttp://10.0.0.1/",
        ] {
            assert_eq!(
                code(&g, "t", json!({ "x": text })),
                "ssrf.private_use",
                "{text:?}"
            );
        }
        for text in [
            "\u{FF48}ttps://example.com/",
            "note\u{200B}: fix it",
            "caf\u{E9}: open",
        ] {
            assert_eq!(code(&g, "t", json!({ "x": text })), "ok", "{text:?}");
        }
        assert_eq!(shown_form("plain http://a.example.com/"), None);
        assert_eq!(shown_form("a\u{200B}b\u{FF41}").as_deref(), Some("aba"));
    }

    /// A resource URI of any scheme, the server's own too, is at most
    /// `net::MAX_URL_BYTES`: a longer one is `url.too_long` by every method
    /// that names one, before anything else is read of it (attack s74-A,
    /// F1).
    #[test]
    fn resource_uris_are_bounded_in_bytes() {
        let own = keeper("[resources]\nschemes = [\"demo\"]\n");
        let uri = |len: usize| format!("demo://x/{}", "a".repeat(len - "demo://x/".len()));
        let at = uri(crate::net::MAX_URL_BYTES);
        let over = uri(crate::net::MAX_URL_BYTES + 1);
        assert!(own.resource_decision("resources/read", &at).is_ok());
        let e = own.resource_decision("resources/read", &over).unwrap_err();
        assert_eq!(e.code(), "url.too_long");
        assert!(
            e.message().contains(&over.len().to_string()),
            "{}",
            e.message()
        );
        for (method, params) in [
            ("resources/read", json!({ "uri": over })),
            ("resources/subscribe", json!({ "uri": over })),
            ("resources/unsubscribe", json!({ "uri": over })),
            (
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": over}, "argument": {"name": "a", "value": "b"}}),
            ),
            (
                "subscriptions/listen",
                json!({"notifications": {"resourceSubscriptions": ["demo://x/1", over]}}),
            ),
        ] {
            let e = named_uris_within_bound(method, Some(&params)).unwrap_err();
            assert_eq!(e.code(), "url.too_long", "{method}");
            assert_eq!(
                own.check_request(method, Some(&params)).unwrap_err().code(),
                "url.too_long",
                "{method}"
            );
        }
        assert!(named_uris_within_bound("resources/read", Some(&json!({ "uri": at }))).is_ok());
    }

    /// Object keys count against `MAX_SCANNED_STRINGS` as strings do,
    /// plain ones and those of JSON held in a string (attack s72-A, F5: a
    /// call of 240,000 plain keys in a JSON string was read in full).
    #[test]
    fn keys_count_against_the_string_bound() {
        let g = keeper("");
        let keys = |n: usize| -> serde_json::Map<String, Value> {
            (0..n).map(|i| (format!("k{i}"), json!(0))).collect()
        };
        // `a` and the keys inside: at the bound, then one over.
        let at = Value::Object(keys(MAX_SCANNED_STRINGS - 1));
        assert_eq!(code(&g, "t", json!({ "a": at })), "ok");
        let over = Value::Object(keys(MAX_SCANNED_STRINGS));
        assert_eq!(
            code(&g, "t", json!({ "a": over })),
            "policy.arguments_too_complex"
        );
        // In a string: `a`, the string and the keys inside.
        let text = Value::Object(keys(MAX_SCANNED_STRINGS - 2)).to_string();
        assert_eq!(code(&g, "t", json!({ "a": text })), "ok");
        let text = Value::Object(keys(MAX_SCANNED_STRINGS - 1)).to_string();
        assert_eq!(
            code(&g, "t", json!({ "a": text })),
            "policy.arguments_too_complex"
        );
    }

    /// A host-named text read as a resolver and the clients that split it
    /// read it (#20 attack s47): up to a control character as a C string
    /// (F7); a number as the address it spells among words, one per line
    /// and as an object's `address` (F8); an IPv6 address with a port and
    /// no brackets (F9); lists split as Python splits them, elements
    /// stripped of quotes (F10); and lists of words that are no hosts
    /// (FP1).
    #[test]
    fn host_named_texts_as_clients_split_them() {
        let refused = REFUSED;
        let wrong = decided_wrongly(&[
            // F7: a control character inside.
            (json!({"host": "127.0.0.1\u{0}x"}), refused),
            (json!({"host": "localhost\u{0}.example.com"}), refused),
            (json!({"host": "::1\u{0}x"}), refused),
            (json!({"host": "0\u{0}x"}), refused),
            (json!({"host": "127.0.0.1\u{0}:80"}), refused),
            (json!({"host": "127.0.0.1\u{0}/x"}), refused),
            (json!({"host": "127.0.0.1\u{1}x"}), refused),
            // A host-named key in a YAML block: a host, as in JSON
            // (attack s77-A, F3); words that spaces separate stay words.
            (json!({"k0": "IP: a"}), "ssrf.single_label_name"),
            (json!({"k0": "Host: a b"}), "ok"),
            (json!({"k0": "IP: 127.1"}), "ssrf.loopback"),
            (json!({"k0": "host: localhost"}), refused),
            (json!({"host": "example.com\u{7f}x"}), refused),
            (json!({"db_host": "127.0.0.1\u{0}.example.com"}), refused),
            (json!({"servers": ["::1\u{0}.example.com"]}), refused),
            (
                json!({"host": {"value": "127.0.0.1\u{0}x"}}),
                "ssrf.loopback",
            ),
            (
                json!({"host": {"value": "10.0.0.1\u{8}y z"}}),
                "ssrf.private_use",
            ),
            (json!({"host": {"value": "example.com\u{0}x"}}), "ok"),
            (json!({"host": "a|b.example.com"}), refused),
            // F8: numbers among words, one per line, as an address.
            (json!({"hosts": "example.com 127.1"}), "ssrf.loopback"),
            (json!({"hosts": "example.com\n127.1"}), "ssrf.loopback"),
            // Lists as a server that strips terminal escapes first reads
            // them (attack s78-B, F1).
            (
                json!({"host": "example.com \u{1b}[0m127.0.0.1"}),
                "ssrf.loopback",
            ),
            (
                json!({"host": "example.com \u{1b}\\127.0.0.1"}),
                "ssrf.loopback",
            ),
            (
                json!({"host": "example.com \u{1b}(B127.0.0.1"}),
                "ssrf.loopback",
            ),
            (
                json!({"host": "example.com \u{1b}]x\u{7}127.0.0.1"}),
                "ssrf.loopback",
            ),
            (
                json!({"host": "example.com\n\u{1b}[0m127.0.0.1"}),
                "ssrf.loopback",
            ),
            (
                json!({"hosts": ["example.com \u{1b}[0m10.0.0.1"]}),
                "ssrf.private_use",
            ),
            (
                json!({"host": "\u{1b}P\u{7}example.com \u{1b}\\127.0.0.1"}),
                "ssrf.loopback",
            ),
            (json!({"host": "example.com \u{1b}[1mexample.org"}), "ok"),
            (json!({"hosts": "example.com 2130706433"}), "ssrf.loopback"),
            (json!({"hosts": "example.com 10.1"}), "ssrf.private_use"),
            (json!({"hosts": "127.1 example.com"}), "ssrf.loopback"),
            (json!({"hosts": "example.com 0"}), refused),
            (json!({"hosts": ["example.com 127.1"]}), "ssrf.loopback"),
            (json!({"hosts": "example.com 0177.1"}), "ssrf.loopback"),
            (
                json!({"hosts": "example.com 017700000001"}),
                "ssrf.loopback",
            ),
            (
                json!({"hosts": "example.com\ndb"}),
                "ssrf.single_label_name",
            ),
            (
                json!({"server": {"address": "127.1", "port": 8003}}),
                "ssrf.loopback",
            ),
            (json!({"server": {"address": "0"}}), refused),
            (
                json!({"server": {"address": "2130706433"}}),
                "ssrf.loopback",
            ),
            (
                json!({"servers": [{"ipAddress": "10.1"}]}),
                "ssrf.private_use",
            ),
            (
                json!({"server": {"address": "db"}}),
                "ssrf.single_label_name",
            ),
            (json!({"host": {"value": "10.1"}}), "ssrf.private_use"),
            (json!({"server": "my laptop 2"}), "ok"),
            (json!({"server": "2"}), "ssrf.this_network"),
            (json!({"host": {"version": "0.9", "count": "12"}}), "ok"),
            (json!({"host": "Ubuntu 22.04"}), "ok"),
            (json!({"servers": [{"port": 5432, "weight": 0.5}]}), "ok"),
            // F9: IPv6 with a port, unbracketed.
            (
                json!({"bootstrap_servers": "::ffff:127.0.0.1:8003"}),
                "ssrf.loopback",
            ),
            (
                json!({"bootstrap_servers": "0:0:0:0:0:0:0:1:8003"}),
                "ssrf.loopback",
            ),
            (json!({"host": "::ffff:10.0.0.1:80"}), "ssrf.private_use"),
            (
                json!({"host": "::ffff:169.254.169.254:80"}),
                "ssrf.cloud_metadata",
            ),
            (json!({"host": "::1%lo:8003"}), "ssrf.loopback"),
            (
                json!({"hosts": "a.example.com,fe80::1%eth0:22"}),
                "ssrf.link_local",
            ),
            (json!({"host": "2606:4700:4700::1111:443"}), "ok"),
            // F10: separators and quotes.
            (
                json!({"hosts": "example.com\u{1f}127.0.0.1"}),
                "ssrf.loopback",
            ),
            // Also `example.com::ffff:…` to a server dropping the control:
            // a URL of scheme `example.com`, refused first.
            (
                json!({"hosts": "example.com\u{1e}::ffff:127.0.0.1"}),
                "url.scheme",
            ),
            (json!({"hosts": "example.com\u{1c}127.1"}), "ssrf.loopback"),
            (json!({"hosts": "127.0.0.1|example.com"}), "ssrf.loopback"),
            (json!({"host": "'127.0.0.1'"}), "ssrf.loopback"),
            (json!({"host": "(127.0.0.1)"}), "ssrf.loopback"),
            (json!({"host": "<127.0.0.1>"}), "ssrf.loopback"),
            (json!({"host": "`::1`"}), "ssrf.loopback"),
            (
                json!({"hosts": "a.example.com, \"10.0.0.1\""}),
                "ssrf.private_use",
            ),
            // FP1: lists of words.
            (json!({"hosts": "Alice, Bob"}), "ok"),
            (json!({"origin": "France, Italy"}), "ok"),
            (json!({"domain": "math; physics"}), "ok"),
            (json!({"server": "Server 2, rack 4"}), "ok"),
            (json!({"shipping_addr": "1 Main St, Springfield"}), "ok"),
            (json!({"shipping_addr": "1 Main St., Springfield"}), "ok"),
            (
                json!({"hosts": "example.com, db"}),
                "ssrf.single_label_name",
            ),
            (json!({"hosts": "db:5432, cache"}), refused),
            (json!({"hosts": "db,cache"}), "ssrf.single_label_name"),
        ]);
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// A scheme-less host no URL parser reads is read as a lenient client
    /// reads it (#20 attack s48): a port Python's `int` or JavaScript's
    /// `Number` reads, an IPv6 zone (F11, F13); a backslash before an `@`
    /// (F12); a hardware address is no host (FP2).
    #[test]
    fn scheme_less_hosts_as_lenient_clients_read_them() {
        let refused = REFUSED;
        let wrong = decided_wrongly(&[
            // F11: words, and strings in an object under a host key.
            (
                json!({"hosts": "example.com 127.0.0.1:+80"}),
                "ssrf.loopback",
            ),
            (
                json!({"hosts": "example.com 127.0.0.1:8_003"}),
                "ssrf.loopback",
            ),
            (json!({"hosts": "example.com [::1]:+80"}), "ssrf.loopback"),
            (json!({"hosts": "example.com ::1:000080"}), "ssrf.loopback"),
            (
                json!({"hosts": "example.com [::1%1]:8003"}),
                "ssrf.loopback",
            ),
            (
                json!({"hosts": "example.com [::1%lo]:8003"}),
                "ssrf.loopback",
            ),
            (json!({"hosts": "example.com ::1%a:b"}), "ssrf.loopback"),
            (
                json!({"hosts": "example.com 127.0.0.1:\u{668}\u{660}"}),
                "ssrf.loopback",
            ),
            (
                json!({"hosts": "example.com 127.0.0.1:0x50"}),
                "ssrf.loopback",
            ),
            (
                json!({"hosts": "example.com 169.254.169.254:+80"}),
                "ssrf.cloud_metadata",
            ),
            (
                json!({"hosts": "example.com [fe80::1%eth0]:80"}),
                "ssrf.link_local",
            ),
            (json!({"host": {"value": "127.0.0.1:+80"}}), "ssrf.loopback"),
            (
                json!({"servers": [{"name": "[::1%1]:8003"}]}),
                "ssrf.loopback",
            ),
            (json!({"server": {"target": "::1%a:b"}}), "ssrf.loopback"),
            (json!({"host": "[::1%1]:8003"}), refused),
            (json!({"host": "example.com Re: minutes"}), "ok"),
            (json!({"host": {"note": "see: below"}}), "ok"),
            // F12: a backslash before an `@`.
            (json!({"host": "example.com\\@127.0.0.1"}), refused),
            (json!({"host": "example.com\\@localhost"}), refused),
            (json!({"url": "example.com\\@127.0.0.1:8003/"}), refused),
            (json!({"endpoint": "example.com\\@127.0.0.1:8003"}), refused),
            (json!({"host": "example.com\\x@[::1]"}), refused),
            (
                json!({"server": {"address": "example.com\\@127.0.0.1"}}),
                refused,
            ),
            (json!({"hosts": ["example.com\\@127.0.0.1"]}), refused),
            (json!({"url": "docs\\readme.md"}), "ok"),
            (json!({"url": "a/b\\@c"}), "ok"),
            // F13: URI-named, scheme-less.
            (json!({"url": "127.0.0.1:8_003/"}), "ssrf.loopback"),
            (json!({"url": "127.0.0.1:+8003/"}), "ssrf.loopback"),
            (json!({"url": "[::1%1]:8003/"}), "ssrf.loopback"),
            (
                json!({"url": "169.254.169.254:+80/latest/meta-data/"}),
                "ssrf.cloud_metadata",
            ),
            (json!({"url": "[::1]:8_003/"}), "ssrf.loopback"),
            (json!({"link": "127.0.0.1:8_003/x"}), "ssrf.loopback"),
            (json!({"href": "[fe80::1%eth0]:80/"}), "ssrf.link_local"),
            (json!({"url": "src/x:main.rs"}), "ok"),
            // A path is no host, under a host-named key too.
            (json!({"endpoint": "/api/v1"}), "ok"),
            (json!({"endpoint": "./users"}), "ok"),
            (json!({"host": "~/x"}), "ok"),
            // FP2: hardware addresses.
            (json!({"mac_addr": "00:1a:2b:3c:4d:5e"}), "ok"),
            (json!({"mac_addr": "00-1A-2B-3C-4D-5E"}), "ok"),
            (json!({"host": "00:1a:2b:3c:4d:5e:6f"}), refused),
        ]);
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// A host-named text as a C resolver and lenient clients read it, the
    /// names of address arguments, and texts that name no host (#20 attack
    /// s48: F14, F17, FP2).
    #[test]
    fn host_named_texts_round_s48() {
        let refused = REFUSED;
        let wrong = decided_wrongly(&[
            // F14: the text up to a NUL is what a resolver reads.
            (json!({"host": "runsc\u{0} x"}), "ssrf.single_label_name"),
            (json!({"host": "runsc\u{0}, x"}), "ssrf.single_label_name"),
            (
                json!({"host": "vm\u{0} (primary)"}),
                "ssrf.single_label_name",
            ),
            (json!({"host": "runsc\u{0}\tx"}), "ssrf.single_label_name"),
            (
                json!({"db_host": "redis\u{0} cache"}),
                "ssrf.single_label_name",
            ),
            (
                json!({"server": {"host": "runsc\u{0} x"}}),
                "ssrf.single_label_name",
            ),
            (
                json!({"servers": ["runsc\u{0} x"]}),
                "ssrf.single_label_name",
            ),
            (json!({"host": "example.com\u{0} x"}), "ok"),
            // F17: names of addresses.
            (json!({"ipv4_address": "127.1"}), "ssrf.loopback"),
            (json!({"ipv6Address": "::1"}), "ssrf.loopback"),
            (json!({"ipv4": "2130706433"}), "ssrf.loopback"),
            (json!({"ipv6s": ["::1"]}), "ssrf.loopback"),
            (json!({"hosts_csv": "a.example.com,::1"}), "ssrf.loopback"),
            (json!({"host_str": "::1"}), "ssrf.loopback"),
            (json!({"hostString": "::1"}), "ssrf.loopback"),
            (json!({"host_spec": "::1"}), "ssrf.loopback"),
            (json!({"hostsJson": "::1"}), "ssrf.loopback"),
            (json!({"json": "::1"}), "ok"),
            (json!({"spec": "::1"}), "ok"),
            // Attack s55 F9: `address` and its compounds read as the
            // words of a host; a postal, e-mail, hardware or wallet
            // address there is no host.
            (json!({"address": "::1"}), "ssrf.loopback"),
            (
                json!({"address": "::ffff:169.254.169.254"}),
                "ssrf.cloud_metadata",
            ),
            (json!({"address": "fe80::1"}), "ssrf.link_local"),
            (json!({"address": "127.1"}), "ssrf.loopback"),
            (json!({"address": "2130706433"}), "ok"),
            // Review of s55: hexadecimal memory, bus and wallet addresses.
            (json!({"address": "0x401000"}), "ok"),
            (json!({"i2c_address": "0x48"}), "ok"),
            (
                json!({"tokenAddress": "0x0000000000000000000000000000000000000000"}),
                "ok",
            ),
            (json!({"address": "0x1"}), "ok"),
            (json!({"address": "0"}), "ok"),
            (json!({"remote_address": "::1"}), "ssrf.loopback"),
            (json!({"bindAddress": "127.0.0.1:8080"}), "ssrf.loopback"),
            (json!({"target-address": "10.0.0.1"}), "ssrf.private_use"),
            (json!({"addresses": ["::1"]}), "ssrf.loopback"),
            (json!({"address": 2130706433}), "ok"),
            (json!({"address": "10.0.0.1:80"}), "ssrf.private_use"),
            (
                json!({"address": "1600 Amphitheatre Parkway, Mountain View, CA 94043"}),
                "ok",
            ),
            (
                json!({"address": {"street": "1 Main St", "number": 12, "zip": "94043"}}),
                "ok",
            ),
            (json!({"email_address": "alice@example.com"}), "ok"),
            (json!({"mac_address": "00:1a:2b:3c:4d:5e"}), "ok"),
            (
                json!({"wallet_address": "0x52908400098527886E0F7030069857D2E4169EE7"}),
                "ok",
            ),
            (json!({"memory_address": "0x7ffe1234abcd"}), "ok"),
            (
                json!({"address": "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"}),
                "ok",
            ),
            // Attack s56, N1: other spellings of host and address names.
            (json!({"IPv4": "127.1"}), "ssrf.loopback"),
            (json!({"IPv6": "::1"}), "ssrf.loopback"),
            (json!({"ip_v6": "::1"}), "ssrf.loopback"),
            (json!({"address_v6": "::1"}), "ssrf.loopback"),
            (json!({"hostip": "::1"}), "ssrf.loopback"),
            (json!({"serverip": "127.1"}), "ssrf.loopback"),
            (json!({"ipaddress": "2130706433"}), "ssrf.loopback"),
            (json!({"RIPv2": "enabled"}), "ok"),
            (json!({"fqdn": "::1"}), "ssrf.loopback"),
            (json!({"addressList": "::1"}), "ssrf.loopback"),
            (json!({"HostPort": "8080"}), "ok"),
            (json!({"ship_address": "1 Main St, Springfield"}), "ok"),
            // FP2: text no URL parser reads and no client reads an
            // address in.
            (json!({"mac_addr": "00:1a:2b:3c:4d:5e"}), "ok"),
            (json!({"server": "#general"}), "ok"),
            (json!({"server": "^"}), "ok"),
            (json!({"server": "mcp-server-fetch==0.6.2"}), "ok"),
            (json!({"server": "python>=3.10"}), "ok"),
            (json!({"addr": "0x7ffe1234abcd"}), "ok"),
            (json!({"host": "127.0.0.1\u{1}x"}), refused),
            // A host-named key in a YAML block: a host, as in JSON
            // (attack s77-A, F3); words that spaces separate stay words.
            (json!({"k0": "IP: a"}), "ssrf.single_label_name"),
            (json!({"k0": "Host: a b"}), "ok"),
            (json!({"k0": "IP: 127.1"}), "ssrf.loopback"),
            (json!({"k0": "host: localhost"}), refused),
            (json!({"host": "a%zz.example.com"}), refused),
        ]);
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// Attack s77-A, F3: a host-named key read out of YAML, TOML, env or
    /// query text in a string gets the check a host-named JSON argument
    /// gets; `key=value` text under a key that names no settings or
    /// configuration stays text.
    #[test]
    fn host_keys_in_configuration_text() {
        let wrong = decided_wrongly(&[
            (
                json!({"config": "host: kubernetes.default\n"}),
                "ssrf.unknown_tld",
            ),
            (
                json!({"config": "server:\n  host: kubernetes.default\n"}),
                "ssrf.unknown_tld",
            ),
            (
                json!({"config": "host = \"kubernetes.default\"\n"}),
                "ssrf.unknown_tld",
            ),
            (
                json!({"config": "[server]\nhost = \"kubernetes.default\"\n"}),
                "ssrf.unknown_tld",
            ),
            (
                json!({"config": "HOST=kubernetes.default"}),
                "ssrf.unknown_tld",
            ),
            (
                json!({"config": "host=kubernetes.default&port=1"}),
                "ssrf.unknown_tld",
            ),
            (json!({"config": "host: db\n"}), "ssrf.single_label_name"),
            (json!({"config": "HOST=db"}), "ssrf.single_label_name"),
            (json!({"app_config": "HOST=10.1"}), "ssrf.private_use"),
            (
                json!({"kubeconfig": "host: db\n"}),
                "ssrf.single_label_name",
            ),
            (
                json!({"settings": "host=db&port=1"}),
                "ssrf.single_label_name",
            ),
            (
                json!({"note": "host: kubernetes.default\n"}),
                "ssrf.unknown_tld",
            ),
            (
                json!({"config": "{\"host\":\"kubernetes.default\"}"}),
                "ssrf.unknown_tld",
            ),
            (json!({"config": "host: 10.1\n"}), "ssrf.private_use"),
            (
                json!({"config": "host: db.internal\n"}),
                "ssrf.special_use_name",
            ),
            (json!({"config": "host: example.com\nport: 5432\n"}), "ok"),
            (json!({"config": "HOST=example.com"}), "ok"),
            (json!({"config": "Host: a b\n"}), "ok"),
            (
                json!({"content": "DB_HOST=localhost\nPGHOST=127.0.0.1\n"}),
                "ok",
            ),
            (json!({"note": "HOST=kubernetes.default"}), "ok"),
        ]);
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// Attack s78-A, B1-B4: configuration text in the shapes its formats
    /// have besides `key=value` (INI's `key: value`, properties' `key
    /// value`, XML element text, TOML over several lines), a YAML stream
    /// whose later document is no YAML, and a settings word naming a
    /// host only a local resolver answers with a port, a query or `;`.
    #[test]
    fn configuration_text_in_every_shape() {
        let wrong = decided_wrongly(&[
            (
                json!({"config": "[db]\nhost: 127.0.0.1\n"}),
                "ssrf.loopback",
            ),
            (
                json!({"config": "[db]\nhost: 169.254.169.254\n"}),
                "ssrf.cloud_metadata",
            ),
            (
                json!({"cfg": "[db]\nhost : localhost\n"}),
                "ssrf.localhost_name",
            ),
            (
                json!({"settings": "[db]\nhost: vault.vault\n"}),
                "ssrf.unknown_tld",
            ),
            (json!({"config": "db.host 10.0.0.1\n"}), "ssrf.private_use"),
            (
                json!({"config": "<config><host>10.0.0.1</host></config>"}),
                "ssrf.private_use",
            ),
            (
                json!({"config": "<c><db:host a=\"1\">vault.vault</db:host></c>"}),
                "ssrf.unknown_tld",
            ),
            (
                json!({"config": "servers = [\n  \"169.254.169.254\",\n  \"localhost\",\n]\n"}),
                REFUSED,
            ),
            (
                json!({"config": "hosts = [\n  \"127.0.0.1\",\n]\n"}),
                "ssrf.loopback",
            ),
            (
                json!({"config": "hosts = [ \"a.example.com\",\n  \"vault.vault\" ]\n"}),
                "ssrf.unknown_tld",
            ),
            (
                json!({"config": "[db]\nservers = [\n  \"10.0.0.1\",\n]\n"}),
                "ssrf.private_use",
            ),
            (
                json!({"content": "---\nurl: http://169.254.169.254/latest/meta-data/\n---\n- [unclosed\n"}),
                "ssrf.cloud_metadata",
            ),
            (
                json!({"content": "a: 1\n---\nurl: http://127.0.0.2/\n---\n- [unclosed\n"}),
                "ssrf.loopback",
            ),
            (
                json!({"config": "---\nhost: vault.vault\n---\n- [unclosed\n"}),
                "ssrf.unknown_tld",
            ),
            // XML text content, INI continuation lines, properties'
            // logical lines and escapes, heredocs, comma lists (attack
            // s79-A, B1-B4, B6).
            (
                json!({"config": "<c><host><![CDATA[127.0.0.1]]></host></c>"}),
                "ssrf.loopback",
            ),
            (
                json!({"config": "<c><url><![CDATA[http://127.0.0.1/]]></url></c>"}),
                "ssrf.loopback",
            ),
            (
                json!({"config": "<c><host>127<!-- x -->.0.0.1</host></c>"}),
                "ssrf.loopback",
            ),
            (
                json!({"config": "<c><host><?pi x?>127.0.0.1</host></c>"}),
                "ssrf.loopback",
            ),
            (
                json!({"config": "<c><host>&#49;27.0.0.1</host></c>"}),
                "ssrf.loopback",
            ),
            (
                json!({"config": "[db]\nhost = example.com\n  127.0.0.1\n"}),
                "ssrf.loopback",
            ),
            (
                json!({"config": "[db]\nhost:\n  vault.vault\n"}),
                "ssrf.unknown_tld",
            ),
            (
                json!({"config": "db.host=example.com,\\\n  127.0.0.1\n"}),
                "ssrf.loopback",
            ),
            (
                json!({"config": "db.host=\\u0031\\u0032\\u0037.0.0.1\n"}),
                "ssrf.loopback",
            ),
            (
                json!({"config": "host = <<EOT\n127.0.0.1\nEOT\n"}),
                "ssrf.loopback",
            ),
            (
                json!({"config": "host = <<-EOT\n  vault.vault\n  EOT\n"}),
                "ssrf.unknown_tld",
            ),
            (json!({"args": ["x,127.0.0.1:8200"]}), "ssrf.loopback"),
            (json!({"args": ["8.8.8.8:1,vault.vault:2"]}), REFUSED),
            (json!({"env": "PEERS=8.8.8.8:1,vault.vault:2"}), REFUSED),
            (
                json!({"args": ["--peers=8.8.8.8:1,vault.vault:2"]}),
                REFUSED,
            ),
            (json!({"args": ["a,b,c", "--tags=x,y"]}), "ok"),
            (
                json!({"args": ["--peers=http://8.8.8.8/,http://127.0.0.1/"]}),
                "ssrf.loopback",
            ),
            // A TOML document's inline tables, git's tab-indented keys
            // (attack s80-A, FP3, FP4).
            (
                json!({"config": "[package]\nname = \"x\"\n[dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\n"}),
                "ok",
            ),
            (
                json!({"config": "[remote \"origin\"]\n\turl = https://github.com/a/b.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"}),
                "ok",
            ),
            (
                json!({"config": "<c><name>a &amp; b</name><!-- c --></c>"}),
                "ok",
            ),
            // A service name among words (attack s78-A, B5).
            (json!({"host": "vault.vault web"}), "ssrf.unknown_tld"),
            (json!({"host": "vault.vault (primary)"}), "ssrf.unknown_tld"),
            (
                json!({"hosts": "vault.vault and cache"}),
                "ssrf.unknown_tld",
            ),
            (json!({"host": "my laptop, e.g. at home"}), "ok"),
            (json!({"host": "runs on Node.js at home"}), "ok"),
            (json!({"args": "connect vault.vault:8200"}), REFUSED),
            (json!({"args": "connect vault.vault?x"}), REFUSED),
            (json!({"config": "server db.internal:5432;"}), REFUSED),
            (
                json!({"config": "upstream b {\n  server vault.vault:8200;\n}\n"}),
                REFUSED,
            ),
            (
                json!({"config": "backend b\n  server s1 vault.vault:8200 check\n"}),
                REFUSED,
            ),
            (
                json!({"config": "reverse_proxy vault.vault:8200\n"}),
                REFUSED,
            ),
            // What these formats hold besides hosts stays text.
            (
                json!({"config": "[db]\nhost: db.example.com\nport: 5432\n"}),
                "ok",
            ),
            (
                json!({"config": "[tool.ruff]\nselect = [\n  \"E\",\n  \"F\",\n]\n"}),
                "ok",
            ),
            (
                json!({"config": "<config><name>app</name><host>example.com</host></config>"}),
                "ok",
            ),
            (
                json!({"config": "server_name example.com;\nroot /var/www;\n"}),
                "ok",
            ),
            (json!({"args": "uvicorn app.main:app --reload"}), "ok"),
            (json!({"args": "cat notes.txt;"}), "ok"),
            (
                json!({"config": "app.name My App\napp.version 1.2\n"}),
                "ok",
            ),
        ]);
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// Attack s80 on #20 (complete mediation): every element of a host
    /// list gets the host check, a bracketed IPv6 address with a port too
    /// (1); the literals of an XML DTD a parser hands the application
    /// (2); a comma list of words none of which is a host (4); a form
    /// feed between a properties key and its value (5).
    #[test]
    fn complete_mediation_round_s80() {
        let wrong = decided_wrongly(&[
            (json!({"hosts": "example.com, [::1]:2"}), "ssrf.loopback"),
            (json!({"hosts": "example.com,[::1]:8080"}), "ssrf.loopback"),
            (json!({"host": "example.com;[::1]:8080"}), "ssrf.loopback"),
            (
                json!({"hosts": "example.com, [fe80::1]:22"}),
                "ssrf.link_local",
            ),
            (
                json!({"hosts": "example.com, [::ffff:127.0.0.1]:80"}),
                "ssrf.loopback",
            ),
            (json!({"hosts": "example.com, [::1]"}), "ssrf.loopback"),
            (json!({"hosts": ["example.com, [::1]:2"]}), "ssrf.loopback"),
            (json!({"url": "example.com,[::1]:8080"}), "ssrf.loopback"),
            (json!({"urls": "example.com, [::1]:2"}), "ssrf.loopback"),
            (
                json!({"url": "example.com,127.0.0.1:8080"}),
                "ssrf.loopback",
            ),
            (
                json!({"endpoints": "https://example.com/,http://127.0.0.1/"}),
                "ssrf.loopback",
            ),
            (json!({"args": ["example.com,[::1]:8080"]}), "ssrf.loopback"),
            (json!({"args": ["--peers=a,[::1]:8080"]}), "ssrf.loopback"),
            (
                json!({"env": "URLS=example.com,[::1]:8080"}),
                "ssrf.loopback",
            ),
            (json!({"url": "https://example.com/a,b?ids=1,2"}), "ok"),
            (
                json!({"hosts": "https://example.com/,https://example.org/"}),
                "ok",
            ),
            (json!({"hosts": "example.com, [2606:4700::1111]:443"}), "ok"),
            (
                json!({"config": "<?xml version=\"1.0\"?>\n<!DOCTYPE c [\n<!ATTLIST el attr CDATA \"http://169.254.169.254/\">\n]>\n<c><el/></c>"}),
                "ssrf.cloud_metadata",
            ),
            (
                json!({"config": "<!DOCTYPE c [<!ATTLIST el attr CDATA 'http&#58;//169.254.169.254/'>]><c><el/></c>"}),
                "ssrf.cloud_metadata",
            ),
            (
                json!({"config": "<!DOCTYPE c [<!ATTLIST el\n  a CDATA #IMPLIED\n  b CDATA #FIXED \"http&#x3a;//127.0.0.1/\">]><c/>"}),
                "ssrf.loopback",
            ),
            (
                json!({"config": "<!DOCTYPE c [<!ENTITY x \"http&#58;//127.0.0.1/\">]><c><u>&x;</u></c>"}),
                "ssrf.loopback",
            ),
            (
                json!({"config": "<!DOCTYPE c [<!ENTITY % p 'http&#58;//10.0.0.1/'>]><c/>"}),
                "ssrf.private_use",
            ),
            (
                json!({"config": "<c><el url=\"http&#58;//127.0.0.1/\"/></c>"}),
                "ssrf.loopback",
            ),
            (
                json!({"config": "<!DOCTYPE c [<!ATTLIST el lang CDATA \"en\"><!ENTITY co \"Example &#38; Co\">]><c><el/></c>"}),
                "ok",
            ),
            (json!({"host": "Node.js, Deno"}), "ok"),
            (json!({"hosts": "Node.js, Deno, Bun"}), "ok"),
            (json!({"host": "Node.js, Deno, 10.0.0.1"}), REFUSED),
            (json!({"host": "Node.js, vault.vault"}), "ssrf.unknown_tld"),
            (json!({"host": "Node.js, db.internal"}), REFUSED),
            (json!({"config": "host\u{c}127.0.0.1\n"}), "ssrf.loopback"),
            (
                json!({"config": "db.host\u{c}=\u{c}127.0.0.1\n"}),
                "ssrf.loopback",
            ),
            (json!({"config": "app.name\u{c}My App\n"}), "ok"),
        ]);
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// Attack s50: curl globs outside the host (F30), git's bracketed
    /// remotes and the host `0` (F31), HTTPie's `:8003/` (F37), a
    /// package's direct reference (F38) under every kind of key; wildcard
    /// and template hosts (FP7) and section numbers (FP10) pass.
    #[test]
    fn other_readings_round_s50() {
        let refused = REFUSED;
        let wrong = decided_wrongly(&[
            (
                json!({"url": "{http,x}://127.0.0.1:8003/"}),
                "ssrf.loopback",
            ),
            (json!({"q": "[h-h]ttp://127.0.0.1:8003/"}), "ssrf.loopback"),
            (json!({"url": "127.0.0.[1-1]:8003/"}), "ssrf.loopback"),
            (json!({"target": "h{t}tp://localhost:8003/"}), refused),
            (json!({"host": "{127.0.0.1}"}), "ssrf.loopback"),
            (json!({"host": "{db}"}), "ssrf.single_label_name"),
            (json!({"urls": ["{,}127.0.0.1:8003/"]}), "ssrf.loopback"),
            (json!({"allowed_origins": ["https://*.example.com"]}), "ok"),
            (json!({"origin": "https://*.vercel.app"}), "ok"),
            (
                json!({"base_url": "https://{tenant}.example.com/api"}),
                "ok",
            ),
            (json!({"url": "https://{region}.api.example.com/v1"}), "ok"),
            (json!({"host": "*.example.com"}), "ok"),
            (json!({"domain": "*.example.com"}), "ok"),
            (json!({"host": "{tenant}.example.com"}), "ok"),
            (json!({"url": "{tenant}.example.com/x"}), "ok"),
            (json!({"repo": "[127.0.0.1:22]:x.git"}), "ssrf.loopback"),
            (json!({"remote": "[169.254.169.254]:x"}), refused),
            (json!({"url": "[127.0.0.1:22]:x.git"}), "ssrf.loopback"),
            (json!({"repo": "user@[10.0.0.5]:/srv"}), "ssrf.private_use"),
            (json!({"repo": "git@0:x"}), refused),
            (json!({"repository": "0:x/y.git"}), refused),
            (json!({"source": "[127.0.0.1]::mod/x"}), "ssrf.loopback"),
            (json!({"repo": "git@github.com:org/x.git"}), "ok"),
            (json!({"title": "10.1:Overview"}), "ok"),
            (json!({"ref": "3.2:Results"}), "ok"),
            (json!({"tag": "100.64:foo"}), "ok"),
            (json!({"time": "00:30:15"}), "ok"),
            (json!({"url": ":8003/"}), "ssrf.localhost_name"),
            (json!({"target": ":8003/latest"}), "ssrf.localhost_name"),
            (json!({"q": ":/admin"}), "ssrf.localhost_name"),
            (json!({"q": "::"}), "ok"),
            (json!({"q": ":)"}), "ok"),
            (
                json!({"package": "foo@http://127.0.0.1:8003/x.whl"}),
                "ssrf.loopback",
            ),
            (
                json!({"requirement": "foo@ http://169.254.169.254/x.whl"}),
                "ssrf.cloud_metadata",
            ),
            (
                json!({"packages": ["foo[extra] @ http://127.0.0.1:8003/x.whl"]}),
                "ssrf.loopback",
            ),
            (json!({"spec": "foo@git+http://127.0.0.1:8003/x"}), refused),
            (
                json!({"packages": ["@scope/pkg@1.2.3", "pkg@^1.2.0"]}),
                "ok",
            ),
            (json!({"email": "a@b.com"}), "ok"),
            (json!({"code": "fn f() { g(x, y) }"}), "ok"),
            (json!({"q": "[1-3] items"}), "ok"),
        ]);
        assert!(wrong.is_empty(), "{wrong:#?}");
        // Under `--resolve`, the hosts those readings name are looked up
        // (F39).
        let g = keeper("[net]\nresolve = true\n");
        for (args, host) in [
            (
                json!({"url": "{http,x}://loop.example.com/"}),
                "loop.example.com",
            ),
            (
                json!({"package": "foo@http://loop.example.com/x.whl"}),
                "loop.example.com",
            ),
            (
                json!({"q": "https://{a,loop}.example.com/"}),
                "loop.example.com",
            ),
            (json!({"host": "{loop}.example.com"}), "loop.example.com"),
            (json!({"url": "{loop}.example.com/x"}), "loop.example.com"),
            (
                json!({"repo": "git@loop.example.com:x/y.git"}),
                "loop.example.com",
            ),
            (json!({"repo": "[loop.example.com]:x"}), "loop.example.com"),
        ] {
            let names = g.check_arguments("t", &args).unwrap();
            assert!(names.iter().any(|n| n.host() == host), "{args}: {names:?}");
        }
    }

    /// Attack s48's last kinds: an empty host, punctuation a client trims
    /// around an address, and what ordinary use writes under host-named
    /// keys.
    #[test]
    fn host_named_texts_round_s49() {
        let refused = REFUSED;
        let wrong = decided_wrongly(&[
            // F18: an empty host is the local host to Node and CPython.
            (json!({"host": ""}), "ssrf.unspecified"),
            (json!({"host": " "}), "ssrf.unspecified"),
            (json!({"ip": "\u{0}"}), "ssrf.unspecified"),
            (json!({"host": "\u{200b}"}), "ssrf.unspecified"),
            (json!({"host": "''"}), "ssrf.unspecified"),
            (json!({"server": {"address": ""}}), "ssrf.unspecified"),
            (json!({"hosts": ["example.com", ""]}), "ssrf.unspecified"),
            (json!({"k0": "IP: "}), "ok"),
            (json!({"server": {"name": ""}}), "ok"),
            (json!({"host": null}), "ok"),
            // F16: punctuation around an address.
            (json!({"host": "127.0.0.1)"}), refused),
            (json!({"host": "127.0.0.1'"}), refused),
            (json!({"host": "\"127.0.0.1'"}), refused),
            (json!({"host": "127.0.0.1-"}), refused),
            (json!({"host": "127.0.0.1\u{ff09}"}), refused),
            (json!({"host": ".127.0.0.1"}), "ssrf.loopback"),
            (json!({"host": "~127.0.0.1"}), "ssrf.loopback"),
            (json!({"hosts": "a.example.com, 10.0.0.1!"}), refused),
            (json!({"host": "[::1]."}), "ssrf.loopback"),
            (json!({"host": "example.com."}), "ok"),
            (json!({"host": "/var/run/postgresql"}), "ok"),
            // FP3: hardware addresses, initials and versions in prose,
            // wildcards, package versions.
            (json!({"i2c_addr": "0x48"}), "ok"),
            (json!({"reg_addr": "0x10"}), "ok"),
            (json!({"memAddr": "4096"}), "ok"),
            (json!({"modbus_addr": "17"}), "ok"),
            (json!({"device_addr": "0x1A"}), "ok"),
            (json!({"redis_addr": "127.1"}), "ssrf.loopback"),
            (json!({"bind_addr": "0"}), refused),
            (json!({"shipping_addr": "P.O. Box 123, Springfield"}), "ok"),
            (
                json!({"billing_addr": "1600 Amphitheatre Pkwy, Mountain View, CA 94043, U.S.A."}),
                "ok",
            ),
            (json!({"shipping_addr": "Attn: Bob, 1 Main St"}), "ok"),
            (json!({"hosts": "J.R.R. Tolkien, C.S. Lewis"}), "ok"),
            (json!({"domain": "e.g. finance, healthcare"}), "ok"),
            (json!({"server": "Ubuntu 22.04, 8 vCPU"}), "ok"),
            (json!({"hosts": "8.8.8.8, db"}), "ssrf.single_label_name"),
            (
                json!({"hosts": "a.example.com, db"}),
                "ssrf.single_label_name",
            ),
            (json!({"hosts": "fe80::, db"}), refused),
            (json!({"allowed_origins": ["*"]}), "ok"),
            (json!({"origin": "*"}), "ok"),
            (json!({"server": "node@20"}), "ok"),
            (json!({"server": "mcp-server-git@0.6.2"}), "ok"),
            (json!({"server": "x@0"}), "ssrf.unspecified"),
            (json!({"server": "x@127.1"}), "ssrf.loopback"),
            (json!({"server": "x@10.1"}), "ssrf.private_use"),
            // F20 (s49): a URL delimited as `urllib.request` unwraps it.
            (json!({"url": "<http://127.0.0.1:8003/>"}), "ssrf.loopback"),
            (
                json!({"url": "<URL:http://127.0.0.1:8003/>"}),
                "ssrf.loopback",
            ),
            (json!({"url": " <URL: http://localhost:8003/> "}), refused),
            (json!({"url": "<\thttp://2130706433:8003/>"}), refused),
            (json!({"url": "<file:///etc/hostname>"}), "url.scheme"),
            (
                json!({"q": "<http://169.254.169.254/>"}),
                "ssrf.cloud_metadata",
            ),
            (
                json!({"urls": ["<http://169.254.169.254/latest/>"]}),
                "ssrf.cloud_metadata",
            ),
            (json!({"cfg": "url: <http://169.254.169.254/>"}), refused),
            (json!({"q": "<b>bold</b>"}), "ok"),
            (json!({"url": "'http://127.0.0.1:8003/'"}), "ssrf.loopback"),
            (json!({"url": "`http://127.0.0.1:8003/`"}), "ssrf.loopback"),
            (
                json!({"q": "(http://169.254.169.254/)"}),
                "ssrf.cloud_metadata",
            ),
            (json!({"q": "'quoted' and (parenthesised)"}), "ok"),
            (json!({"host": "[::1]"}), "ssrf.loopback"),
            (json!({"q": "URL: see the docs"}), "ok"),
            // F22 (s49): a host name no resolver answers that curl globs,
            // read as the glob expands (attack s50, F30).
            (json!({"url": "http://{127.0.0.1}:8003/"}), "ssrf.loopback"),
            (
                json!({"url": "http://{example.com,127.0.0.1}:8003/"}),
                "ssrf.loopback",
            ),
            (json!({"url": "http://127.0.0.1{,}:8003/"}), "ssrf.loopback"),
            (json!({"url": "{a,b}.example.com/x"}), "ok"),
            (json!({"url": "{a,db}.internal/x"}), refused),
            (json!({"url": "http://a!b.example.com/"}), "url.ambiguous"),
            (json!({"host": "{a.example.com,127.0.0.1}"}), refused),
            (json!({"url": "http://a_b.example.com/"}), "ok"),
            (json!({"url": "{base}/v1"}), "ok"),
            // F26 (s49): a host as a JSON number, as JavaScript writes it.
            (json!({"host": 2_130_706_433.0}), "ssrf.loopback"),
            (json!({"host": 2.130_706_433e9}), "ssrf.loopback"),
            (json!({"host": -0.0}), refused),
            (json!({"host": 2_852_039_166.0}), "ssrf.cloud_metadata"),
            (
                json!({"server": {"value": 2_130_706_433.0}}),
                "ssrf.loopback",
            ),
            (
                json!({"server": {"address": 2_130_706_433.0}}),
                "ssrf.loopback",
            ),
            (json!({"hosts": [2_130_706_433.0]}), "ssrf.loopback"),
            (json!({"hosts": {"a": 2_130_706_433.0}}), "ssrf.loopback"),
            (json!({"host": 2_130_706_433.5}), "ok"),
            (json!({"port": 2_130_706_433.0}), "ok"),
            // F28 (s49): git's scp-like remotes.
            (
                json!({"repo": "git@10.0.0.5:team/secret.git"}),
                "ssrf.private_use",
            ),
            (
                json!({"repo": "10.0.0.5:team/secret.git"}),
                "ssrf.private_use",
            ),
            (json!({"remote": "git@127.0.0.1:x/y.git"}), "ssrf.loopback"),
            (json!({"repository": "127.0.0.1:x/y.git"}), "ssrf.loopback"),
            (json!({"repo": "git@localhost:x"}), refused),
            (json!({"repo": "git@metadata.google.internal:x"}), refused),
            (json!({"repo": "git@db.internal:x"}), refused),
            (json!({"repo": "git@[::1]:x"}), "ssrf.loopback"),
            (json!({"repo": "git@github.com:org/repo.git"}), "ok"),
            (json!({"repo": "git@203.0.113.9:x.git"}), refused),
            (json!({"repo": "git@8.8.8.8:x.git"}), "ok"),
            (json!({"q": "12:30pm"}), "ok"),
            (json!({"q": "10.1:Overview"}), "ok"),
            (json!({"repo": "git@db:x"}), "ok"),
            (json!({"q": "1.1:In the beginning"}), "ok"),
            // A `key=value` text is text (attack s50, FP6, FP9, FP11).
            (
                json!({"content": "DB_HOST=localhost\nPGHOST=127.0.0.1\n"}),
                "ok",
            ),
            (
                json!({"query": "index=main host=10.0.0.5 status=500"}),
                "ok",
            ),
            (
                json!({"connection_string": "Server=tcp:db.example.com,1433;Database=x"}),
                "ok",
            ),
            (json!({"dsn": "host=db.example.com port=5432"}), "ok"),
            (json!({"q": "Server=db.example.com;Database=x"}), "ok"),
        ]);
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn numbers_as_javascript_writes_them() {
        let n = |v: Value| match v {
            Value::Number(n) => js_integer(&n),
            _ => None,
        };
        assert_eq!(n(json!(2_130_706_433.0)).as_deref(), Some("2130706433"));
        assert_eq!(n(json!(-0.0)).as_deref(), Some("0"));
        assert_eq!(n(json!(-5.0)).as_deref(), Some("-5"));
        assert_eq!(n(json!(7)).as_deref(), Some("7"));
        assert_eq!(n(json!(1e20)).as_deref(), Some("100000000000000000000"));
        assert_eq!(n(json!(1e21)), None);
        assert_eq!(n(json!(0.5)), None);
    }

    /// F15 (attack s48): under `--resolve`, a name with an IDNA deviation
    /// character is looked up as IDNA 2003 reads it too (`ß` is `ss` to a
    /// Python server), wherever a host is read.
    #[test]
    fn deviation_characters_are_resolved_both_ways() {
        let g = keeper("[net]\nresolve = true\n");
        for (args, want) in [
            (
                json!({"host": "\u{df}.attacker.example.com"}),
                "ss.attacker.example.com",
            ),
            (
                json!({"host": "\u{3c2}.attacker.example.com"}),
                "xn--4xa.attacker.example.com",
            ),
            (
                json!({"url": "http://\u{df}.attacker.example.com:8003/"}),
                "ss.attacker.example.com",
            ),
            (
                json!({"url": "\u{df}.attacker.example.com:8003/"}),
                "ss.attacker.example.com",
            ),
            (
                json!({"hostname": "STRA\u{df}E.attacker.example.com"}),
                "strasse.attacker.example.com",
            ),
            (json!({"q": "http://\u{df}.example.com/"}), "ss.example.com"),
        ] {
            let names = g.check_arguments("t", &args).unwrap();
            let hosts: Vec<&str> = names.iter().map(PendingName::host).collect();
            assert!(hosts.contains(&want), "{args}: {hosts:?}");
            assert!(hosts.len() >= 2, "{args}: {hosts:?}");
        }
    }

    /// A scheme-less text under a URI-named key is read as a server that
    /// adds `http://` reads it, with or without `--resolve`: a name the
    /// operator denies and an address are refused either way.
    #[test]
    fn a_uri_named_scheme_less_text_is_vetted_unresolved() {
        let g = keeper("[net]\ndeny = [\"evil.example.com\"]\n");
        assert_eq!(
            code(&g, "t", json!({"url": "evil.example.com/x"})),
            "ssrf.operator_deny"
        );
        assert_eq!(code(&g, "t", json!({"url": "127.1/x"})), "url.ambiguous");
        assert_eq!(code(&g, "t", json!({"url": "good.example.com/x"})), "ok");
        assert_eq!(code(&g, "t", json!({"note": "evil.example.com/x"})), "ok");
    }

    #[test]
    fn urls_anywhere_in_arguments() {
        let g = keeper("");
        assert_eq!(
            code(&g, "t", json!({"url": "http://169.254.169.254/"})),
            "ssrf.cloud_metadata"
        );
        assert_eq!(
            code(&g, "t", json!({"a": {"b": ["x", "gopher://x:70/"]}})),
            "url.scheme"
        );
        assert_eq!(
            code(&g, "t", json!({"q": "Re: minutes", "n": "TODO: fix"})),
            "ok"
        );
        assert_eq!(code(&g, "t", json!({"u": "https://example.com/"})), "ok");
        assert_eq!(code(&g, "t", json!("file:///etc/passwd")), "url.scheme");
        // White space after the colon (attack s62, F1): a URL still to a
        // parser that keeps or encodes it, of a scheme that runs code or
        // carries its data; prose with a colon stays text.
        for spaced in [
            "data: ,x",
            "DATA: ,x",
            "data:  text/html;base64,PHNjcmlwdD4=",
            "data:\u{a0}text/plain,x",
            "data:\u{3000},x",
            "data: ;base64,eAo=",
            "data: text/plain ;charset=utf-8,x",
            "javascript: alert(1)",
            "JavaScript:\u{a0}alert(1)",
            "vbscript: msgbox(1)",
            "file: /etc/passwd",
            "file: \\\\server\\share",
            "http: //169.254.169.254/",
            "gopher: //127.0.0.1:25/",
        ] {
            let got = code(&g, "t", json!({ "note": spaced }));
            assert!(got != "ok", "{spaced:?}: {got}");
        }
        for prose in [
            "Data: 1, 2, 3",
            "Data: none",
            "data: the results, below",
            "File: report.pdf",
            "Files: a, b",
            "Java: 17",
            "Http: see the docs",
            "Re: minutes",
            "javascript:",
            "javascript: ",
        ] {
            assert_eq!(code(&g, "t", json!({ "note": prose })), "ok", "{prose:?}");
        }
        // Each percent-decoding is a reading: a server that unquotes its
        // argument fetches the decoded URL (#20 re-attack, F11).
        for (args, want) in [
            (json!({"u": "http%3A%2F%2F127.0.0.1%2F"}), "ssrf.loopback"),
            (
                json!({"u": "http%253A%252F%252F169.254.169.254%252F"}),
                "ssrf.cloud_metadata",
            ),
            (json!({"http%3A%2F%2F127.0.0.1%2F": 1}), "ssrf.loopback"),
            (
                json!({"u": "https://example.com/?next=http%3A%2F%2F127.0.0.1%2F"}),
                "ok",
            ),
            (json!({"u": "100%25 done: see"}), "ok"),
            // Deeper than the gateway decodes (#20 re-attack, N8): refused
            // whatever it decodes to; double-encoded text still passes.
            (
                json!({"u": "http%25253A%25252F%25252F127.0.0.1%25252F"}),
                "url.ambiguous",
            ),
            (json!({"u": "x%25252541"}), "url.ambiguous"),
            (
                json!({"u": "https://169.254.169.254%2525252F@example.com/"}),
                "url.ambiguous",
            ),
            // Decodings that keep the scheme and authority as written name
            // the same destination: a URL with an encoded space, or one
            // encoded deeper in its path or query only, passes.
            (json!({"u": "https://example.com/my%20file.pdf"}), "ok"),
            (json!({"u": "https://example.com/a%2520b"}), "ok"),
            (
                json!({"u": "https://example.com/a%25252520b?q=%252525"}),
                "ok",
            ),
            (json!({"u": "http://127.0.0.1/a%20b"}), "ssrf.loopback"),
            (json!({"u": "50%2525 off"}), "ok"),
            // JavaScript's `unescape` (N8): `%uXXXX` is a reading too.
            (
                json!({"u": "http%u003A%u002F%u002F127.0.0.1%u002F"}),
                "ssrf.loopback",
            ),
            (
                json!({"u": "%u0068ttp://169.254.169.254/"}),
                "ssrf.cloud_metadata",
            ),
            (json!({"u": "caf%u00e9 %u2014 50%"}), "ok"),
            // The two decodings in either order (#20 re-attack s41, S4):
            // `unescape` of `%u0025` gives a percent layer, a
            // percent-decoding of `%25u` a `%u` escape.
            (
                json!({"u": "http%u00253A%u00252F%u00252F127.0.0.1%u00252F"}),
                "ssrf.loopback",
            ),
            (
                json!({"u": "http%u0025253A%u0025252F%u0025252F127.0.0.1%u0025252F"}),
                "url.ambiguous",
            ),
            (
                json!({"u": "http%u00253A%u002F%u002F127.0.0.1%u002F"}),
                "ssrf.loopback",
            ),
            (
                json!({"u": "http%25u003A%25u002F%25u002F127.0.0.1%25u002F"}),
                "ssrf.loopback",
            ),
            (
                json!({"u": "%u0025u0068ttp://169.254.169.254/"}),
                "ssrf.cloud_metadata",
            ),
            (json!({"u": "https://example.com/?q=%u00e9%2520"}), "ok"),
        ] {
            assert_eq!(code(&g, "t", args.clone()), want, "{args}");
        }
        let many: Vec<Value> = (0..=MAX_SCANNED_STRINGS).map(|_| json!("x")).collect();
        assert_eq!(
            code(&g, "t", json!({ "a": many })),
            "policy.arguments_too_complex"
        );
    }

    #[test]
    fn resolve_names_collected() {
        let g = keeper("[net]\nresolve = true\n");
        let n = g
            .check_arguments(
                "t",
                &json!({"u": "https://a.example.com/", "v": ["http://b.example.com:81/"]}),
            )
            .unwrap();
        let mut hosts: Vec<_> = n.iter().map(|p| (p.host(), p.port())).collect();
        hosts.sort();
        assert_eq!(hosts, vec![("a.example.com", 443), ("b.example.com", 81)]);
        // An address is vetted as written: nothing to look up.
        let n = g
            .check_arguments(
                "t",
                &json!({"u": ["http://93.184.215.14/", "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/"]}),
            )
            .unwrap();
        assert!(n.is_empty(), "{n:?}");
        // Without `[net] resolve` nothing is looked up, so nothing is kept
        // (and the bound on names does not apply).
        let many: Vec<String> = (0..=crate::gate::MAX_RESOLVED_NAMES)
            .map(|i| format!("http://h{i}.example.com/"))
            .collect();
        assert_eq!(
            keeper("").check_arguments("t", &json!({ "u": many })),
            Ok(vec![])
        );
        let r = g.check_arguments("t", &json!({ "u": many })).unwrap_err();
        assert_eq!(r.code(), "policy.arguments_too_complex");
        // The same name twice is one lookup.
        let n = g
            .check_arguments(
                "t",
                &json!({"u": ["http://a.example.com/x", "http://a.example.com/y"]}),
            )
            .unwrap();
        assert_eq!(n.len(), 1);
    }

    /// Attack s66, A-F1: an exemption (`kind = "text"`, and `kind = "url"`
    /// lifting the path check) applies to the tool named as written; a
    /// tool whose name only folds as it does keeps every default check,
    /// and still gets what the rule requires (its `max_bytes`).
    #[test]
    fn arg_exemptions_match_as_written() {
        let g = keeper(
            r#"
[[args]]
tool = "notes"
pointer = "/body"
kind = "text"
max_bytes = 64
[[args]]
tool = "notes"
pointer = "/path"
kind = "url"
"#,
        );
        let metadata = json!({"body": "http://169.254.169.254/latest/"});
        assert_eq!(code(&g, "notes", metadata.clone()), "ok");
        for twin in ["Notes", "NOTES", "\u{ff4e}otes", "note\u{17f}"] {
            assert_eq!(
                code(&g, twin, metadata.clone()),
                "ssrf.cloud_metadata",
                "{twin}"
            );
            assert_eq!(
                code(&g, twin, json!({"body": "x".repeat(65)})),
                "policy.arg_too_large",
                "{twin}"
            );
            assert_eq!(
                code(&g, twin, json!({"path": "http://169.254.169.254/"})),
                "ssrf.cloud_metadata",
                "{twin}"
            );
        }
        assert_eq!(
            code(&g, "notes", json!({"body": "x".repeat(65)})),
            "policy.arg_too_large"
        );
    }

    #[test]
    fn arg_rules() {
        let g = keeper(
            r#"
[[args]]
tool = "fetch"
pointer = "/url"
kind = "url"
max_bytes = 30
[[args]]
tool = "write_*"
pointer = "/content"
kind = "text"
[[args]]
tool = "big"
pointer = ""
kind = "text"
max_bytes = 10
"#,
        );
        assert_eq!(
            code(&g, "fetch", json!({"url": "plainwords"})),
            "url.malformed"
        );
        assert_eq!(code(&g, "fetch", json!({"url": 3})), "policy.arg_kind");
        assert_eq!(
            code(
                &g,
                "fetch",
                json!({"url": "https://example.com/a-long-path-here"})
            ),
            "policy.arg_too_large"
        );
        assert_eq!(
            code(&g, "fetch", json!({"url": "https://example.com/"})),
            "ok"
        );
        assert_eq!(
            code(&g, "write_file", json!({"content": "see http://10.0.0.1/"})),
            "ok"
        );
        assert_eq!(
            code(&g, "write_file", json!({"content": "http://10.0.0.1/"})),
            "ok"
        );
        assert_eq!(
            code(&g, "read_file", json!({"content": "http://10.0.0.1/"})),
            "ssrf.private_use"
        );
        assert_eq!(
            code(&g, "big", json!({"a": "0123456789"})),
            "policy.arg_too_large"
        );
        // `text` names a string or strings, as every kind does: an object
        // there would exempt its members (attack pass s46 on #20).
        for content in [
            json!({"path": "/etc/passwd"}),
            json!([{"url": "http://10.0.0.1/"}]),
            json!(3),
        ] {
            assert_eq!(
                code(&g, "write_file", json!({ "content": content })),
                "policy.arg_kind",
                "{content}"
            );
        }
        assert_eq!(
            code(
                &g,
                "write_file",
                json!({"content": ["a", "http://10.0.0.1/"]})
            ),
            "ok"
        );
    }

    /// Each form that reads as a path, alone (so no other form covers for
    /// it), and prose that does not.
    #[test]
    fn what_reads_as_a_path() {
        for path in [
            "/etc",
            "\\srv",
            "~",
            "~root/x",
            ".",
            "..",
            "./a",
            ".\\a",
            "../a",
            "..\\a",
            "a/../b",
            "a\\..\\b",
            "  /etc",
            "%2e%2e%2fa",
            "%2E%2E/a",
            "%252e%252e%252fa",
            "a%2f..%2fb",
            "%2fetc",
            "%7e/x",
        ] {
            assert!(reads_as_a_path(path), "{path}");
        }
        for prose in [
            "1/2", "and/or", "a.b", "..a", ".a", "a..b", "a/.b", "", "x~", "100%", "50%2e",
        ] {
            assert!(!reads_as_a_path(prose), "{prose}");
        }
    }

    /// A client's answer to a server's request is read as arguments are:
    /// URLs anywhere, path-named members against the roots; only the
    /// `file:` URIs of a roots list where an answer to `roots/list` stands
    /// are the client's own and go unchecked; names to resolve are
    /// returned.
    #[test]
    fn client_answers_are_checked_as_arguments() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        let g = Gatekeeper {
            roots: Some(
                Roots::new(
                    std::slice::from_ref(&base),
                    base.clone(),
                    None,
                    crate::gate::RelativePaths::Cwd,
                    crate::gate::TildePaths::Refuse,
                    crate::gate::VariablePaths::Refuse,
                )
                .unwrap(),
            ),
            ..keeper("[net]\nresolve = true\n")
        };
        let open = keeper("");
        let check = |g: &Gatekeeper, v: Value, form: Answered| {
            g.check_client_answer(&v, form)
                .map(|n| n.iter().map(|p| p.host().to_owned()).collect::<Vec<_>>())
                .map_err(|e| e.code())
        };
        let answer = |v: Value| check(&g, v, Answered::Result);
        assert_eq!(
            answer(json!({"content": {"type": "text", "text": "http://169.254.169.254/"}})),
            Err("ssrf.cloud_metadata")
        );
        assert_eq!(
            answer(json!({"action": "accept", "content": {"filePath": "/etc/passwd"}})),
            Err("path.outside_root")
        );
        assert_eq!(
            answer(json!({"content": {"type": "text", "text": "see https://a.example.com/x"}})),
            Ok(vec![]),
            "text that only mentions a URL is text"
        );
        // A model's answer that begins with a heading (#20 re-attack, FP1).
        for text in [
            "Summary:\nThe report looks fine.",
            "Steps:\n1. open the file",
        ] {
            assert_eq!(
                answer(json!({"role": "assistant", "content": {"type": "text", "text": text}})),
                Ok(vec![]),
                "{text}"
            );
        }
        assert_eq!(
            answer(json!({"action": "accept", "content": {"site": "https://a.example.com/x"}})),
            Ok(vec!["a.example.com".to_owned()])
        );
        // A roots list answering `roots/list`: the client's file: URIs.
        let roots = json!({"roots": [{"uri": "file:///etc", "name": "etc"}]});
        assert_eq!(check(&open, roots.clone(), Answered::RootsList), Ok(vec![]));
        let local = json!({"roots": [{"uri": "file://localhost/etc"}, {"uri": "FILE:/srv"}]});
        assert_eq!(check(&open, local, Answered::RootsList), Ok(vec![]));
        // Only in an answer to `roots/list` (#20 re-attack, N6): a sampled
        // or elicited result, or an input response with other members, is
        // no roots list, whatever member it has.
        assert!(check(&open, roots.clone(), Answered::Result).is_err());
        let elicited =
            json!({"action": "accept", "content": {}, "roots": [{"uri": "file:///etc"}]});
        assert!(check(&open, elicited.clone(), Answered::Result).is_err());
        assert!(check(&open, json!({"e1": elicited}), Answered::Inputs).is_err());
        let sampled = json!({"role": "assistant", "content": {"type": "text", "text": "x"}, "roots": [{"uri": "file:///etc"}]});
        assert!(check(&open, sampled.clone(), Answered::Result).is_err());
        assert!(check(&open, json!({"e1": sampled}), Answered::Inputs).is_err());
        // Only roots of this machine: `file://host/` is a share on another.
        for remote in [
            "file://169.254.169.254/latest/",
            "file://127.0.0.1/etc",
            "file://evil.example.com/share",
            "file:\\\\evil.example.com\\share",
        ] {
            let answer = json!({"roots": [{"uri": remote}]});
            assert!(
                check(&open, answer.clone(), Answered::RootsList).is_err(),
                "{remote}"
            );
            assert!(
                check(&open, json!({"e1": answer}), Answered::Inputs).is_err(),
                "{remote}"
            );
        }
        assert_eq!(
            check(&g, json!({"e1": roots.clone()}), Answered::Inputs),
            Ok(vec![]),
            "replaced by the gateway's roots on its way"
        );
        assert!(
            answer(roots.clone()).is_err(),
            "with --root no client result answers roots/list"
        );
        assert!(
            check(&g, roots, Answered::RootsList).is_err(),
            "with --root the gateway answers roots/list: a client's answer carries nothing unchecked"
        );
        assert_eq!(
            check(
                &open,
                json!({"roots": [{"uri": "http://169.254.169.254/latest/"}]}),
                Answered::RootsList
            ),
            Err("ssrf.cloud_metadata"),
            "a root of another scheme is checked"
        );
        assert_eq!(
            check(
                &open,
                json!({"e1": {"roots": [{"uri": "file:///x", "name": "http://127.0.0.1/"}]}}),
                Answered::Inputs
            ),
            Err("ssrf.loopback"),
            "only the file: URIs are the client's"
        );
        // A `roots` member anywhere else is a value like any other.
        assert_eq!(
            answer(json!({"action": "accept", "content": {"roots": ["/etc/passwd"]}})),
            Err("path.outside_root")
        );
        assert_eq!(
            check(
                &open,
                json!({"e1": {"action": "accept", "content": {"roots": ["http://169.254.169.254/"]}}}),
                Answered::Inputs
            ),
            Err("ssrf.cloud_metadata")
        );
        assert_eq!(
            check(
                &open,
                json!({"_meta": {"roots": [{"uri": "http://169.254.169.254/"}]}}),
                Answered::Result
            ),
            Err("ssrf.cloud_metadata")
        );
        // An error object is read as a result is.
        assert_eq!(
            answer(json!({"code": -1, "message": "x", "data": {"path": "/etc/passwd"}})),
            Err("path.outside_root")
        );
        assert_eq!(
            check(
                &open,
                json!({"code": -1, "message": "http://169.254.169.254/latest/"}),
                Answered::Result
            ),
            Err("ssrf.cloud_metadata")
        );
    }

    #[test]
    fn path_arguments() {
        let (_t, _, g) = rooted(
            "[[args]]\ntool = \"x\"\npointer = \"/opts/target\"\nkind = \"path\"\n",
            crate::gate::RelativePaths::Cwd,
        );
        assert_eq!(code(&g, "t", json!({"path": "data/a"})), "ok");
        assert_eq!(
            code(&g, "t", json!({"path": "/etc/passwd"})),
            "path.outside_root"
        );
        assert_eq!(
            code(&g, "t", json!({"paths": ["data/a", "/etc"]})),
            "path.outside_root"
        );
        assert_eq!(
            code(&g, "t", json!({"source": "data/a", "destination": "../x"})),
            "path.outside_root"
        );
        assert_eq!(
            code(&g, "t", json!({"x": {"cwd": "/"}})),
            "path.outside_root"
        );
        assert_eq!(code(&g, "t", json!({"content": "/etc/passwd"})), "ok");
        assert_eq!(
            code(&g, "t", json!({"path": "file:///etc/passwd"})),
            "url.scheme"
        );
        assert_eq!(
            code(&g, "x", json!({"opts": {"target": "/etc"}})),
            "path.outside_root"
        );
        assert_eq!(code(&g, "x", json!({"opts": {"target": ["data/q"]}})), "ok");
        // One value, two readings: a path that looks like an allowed URL
        // still gets the root check, by name and by rule.
        for p in [
            "http://8.8.8.8/../../../etc/passwd",
            "https://example.com/../../x",
            "HTTP://93.184.216.34/a",
        ] {
            assert_eq!(
                code(&g, "t", json!({"path": p})),
                "path.outside_root",
                "{p}"
            );
            assert_eq!(
                code(&g, "x", json!({"opts": {"target": p}})),
                "path.outside_root",
                "{p}"
            );
        }
        assert_eq!(code(&g, "t", json!({"url": "http://8.8.8.8/a"})), "ok");
        // A path that is also a network-path URL (`//host/…`) is refused
        // as the path it names, not as a host (a newcomer read
        // `ssrf.single_label_name` for `//tmp/x`).
        for p in ["//tmp/x", "//etc/passwd", "///etc/passwd"] {
            assert_eq!(
                code(&g, "t", json!({"path": p})),
                "path.outside_root",
                "{p}"
            );
            assert_eq!(
                code(&g, "t", json!({"files": {p: "x"}})),
                "path.outside_root",
                "{p} as a key"
            );
        }
        // Members of objects under a path-named key: checked when their text
        // reads as a path (rooted, home, dot, climbing), at any depth; prose
        // with a slash and member names pass.
        for (args, want) in [
            (
                json!({"files": [{"a": "/etc/passwd"}]}),
                "path.outside_root",
            ),
            (json!({"files": [{"a": {"b": "~/x"}}]}), "path.outside_root"),
            (json!({"paths": {"to": "../x"}}), "path.outside_root"),
            (
                json!({"dirs": [{"n": "data/../../x"}]}),
                "path.outside_root",
            ),
            (json!({"dirs": [{"/etc": 1}]}), "path.outside_root"),
            (json!({"files": [{"a": "./data/a"}]}), "ok"),
            (
                json!({"files": [{"type": "text", "content": "1/2 and/or"}]}),
                "ok",
            ),
            (json!({"notes": [{"a": "/etc/passwd"}]}), "ok"),
            (json!({"filePATH2": "/etc"}), "path.outside_root"),
        ] {
            assert_eq!(code(&g, "t", args.clone()), want, "{args}");
        }
    }

    /// A path is read as a URL parser reads it (tab, CR and LF deleted, C0
    /// controls and spaces trimmed: `urlsplit`, WHATWG) and as a Windows
    /// server reads it (`\\` a separator), in every place and every
    /// relative-path policy (#20 re-attack, N2, N2b, N9).
    #[test]
    fn paths_read_as_parsers_and_windows_read_them() {
        for relative in [
            crate::gate::RelativePaths::Refuse,
            crate::gate::RelativePaths::Cwd,
            crate::gate::RelativePaths::EachRoot,
        ] {
            let (_t, base, g) = rooted("", relative);
            let inside = base.join("data/a.txt").to_string_lossy().into_owned();
            for bad in [
                "a\t:/etc/passwd",
                "a\n:/etc/passwd",
                "a\r:/etc/passwd",
                "C\t:/etc/passwd",
                "\ta:/etc/passwd",
                "a\t:../../secret.txt",
                "a\t:%2fetc%2fpasswd",
                "\u{1}/etc/passwd",
                "\u{1f}/etc/passwd",
                "\u{0}/etc/passwd",
                "\u{1f}a:/etc/passwd",
                "\u{1}../../secret.txt",
                "..\\..\\secret.txt",
                "data\\..\\..\\secret.txt",
                "C:\\..\\..\\secret.txt",
                "C:..\\..\\secret.txt",
                "%5c..%5c..%5csecret.txt",
                "%u002e%u002e/%u002e%u002e/secret.txt",
                "%u002Fetc%u002Fpasswd",
                "%u00252e%u00252e/secret.txt",
                "%25u002e%25u002e/secret.txt",
            ] {
                for name in ["uri", "href", "resourceUri", "file_uri", "path"] {
                    assert_eq!(
                        code(&g, "t", json!({ name: bad })),
                        "path.outside_root",
                        "{relative:?} {name} {bad:?}"
                    );
                }
                assert_eq!(
                    g.resource_decision("resources/read", bad)
                        .map(|_| "ok")
                        .unwrap_or_else(|e| e.code()),
                    // A control character in a resource URI is refused
                    // first, as in a tool name.
                    if bad.contains(|c: char| c < ' ' && !matches!(c, '\t' | '\r' | '\n')) {
                        "tool.poisoned"
                    } else {
                        "path.outside_root"
                    },
                    "{relative:?} resources/read {bad:?}"
                );
            }
            // The same readings of a path inside pass.
            for good in [inside.clone(), format!("{inside}\n")] {
                assert_eq!(
                    code(&g, "t", json!({ "path": good })),
                    "ok",
                    "{relative:?} {good:?}"
                );
            }
            if relative == crate::gate::RelativePaths::EachRoot {
                assert_eq!(code(&g, "t", json!({"path": "sub\\a.txt"})), "ok");
            }
        }
    }

    /// A path-named text holding several paths (F25, attack s49): each
    /// part a server splitting it reads is checked, and a `kind = "path"`
    /// rule's too.
    /// Attack s50 F34: a host in a YAML text given as a number in any
    /// rendering a YAML loader resolves (PyYAML's 1.1 ints, 1.2's `0o`,
    /// an integral float) is the address that number is.
    /// YAML as other loaders read it (#20 attack s52 A12–A15): NEL, LS
    /// and PS are line breaks to PyYAML (YAML 1.1); a tab after `:` is
    /// separation to js-yaml and the `yaml` package; `!!int` reads a block
    /// scalar's number without its line break; a stream's scalar document
    /// is a value; JSON after `//` or `/* */` comments is JSON.
    #[test]
    fn yaml_as_other_loaders_read_it() {
        let g = keeper("");
        for (cfg, want) in [
            ("name: x\u{2028}url: http://127.0.0.1/", "ssrf.loopback"),
            ("name: x\u{85}url: http://127.0.0.1/", "ssrf.loopback"),
            ("name: x\u{2029}host: 2130706433", "ssrf.loopback"),
            ("db:\u{2028}  host: 127.0.0.1", "ssrf.loopback"),
            ("b:\u{2028}- http://169.254.169.254/", "ssrf.cloud_metadata"),
            ("name: x\nurl:\thttp://127.0.0.1/", "ssrf.loopback"),
            ("host:\t127.1", "ssrf.loopback"),
            ("host:\t\t127.0.0.1", "ssrf.loopback"),
            ("db:\n  host:\t2130706433", "ssrf.loopback"),
            ("-\thttp://127.0.0.1/", "ssrf.loopback"),
            ("a: 1\u{2028}host:\t127.0.0.1", "ssrf.loopback"),
            ("{a: 1,\u{2028}host: 127.1}", "ssrf.loopback"),
            ("host: !!int |\n  0x7f_00_00_01", "ssrf.loopback"),
            ("host: !!int |\n  0x7f_00_00_01\n", "ssrf.loopback"),
            ("host: !!int |\n  2:44:24:22:53:53", "ssrf.loopback"),
            ("host: !!int |\n  0_17700000001", "ssrf.loopback"),
            (
                "host: !!int |\n  0b1111111_000000000000000000000001",
                "ssrf.loopback",
            ),
            ("host: !!int \"0x7f_00_00_01\\n\"", "ssrf.loopback"),
            ("host: !!float |\n  2130706433.0", "ssrf.loopback"),
            ("---\nhttp://127.0.0.1/", "ssrf.loopback"),
            ("--- >\n  http://127.0.0.1/", "ssrf.loopback"),
            ("--- http://127.0.0.1/", "ssrf.loopback"),
            ("---\nok\n---\nhttp://10.0.0.1/", "ssrf.private_use"),
            ("// c\n{\"url\": \"http://127.0.0.1/\"}", "ssrf.loopback"),
            ("/* c */ [\"http://127.0.0.1/\"]", "ssrf.loopback"),
            (
                "// a\n/* b\n */\n// c\n{\"host\": \"127.1\"}",
                "ssrf.loopback",
            ),
        ] {
            assert_eq!(code(&g, "t", json!({ "cfg": cfg })), want, "{cfg:?}");
        }
        assert_ne!(code(&g, "t", json!({"cfg": "{host:\t127.1}"})), "ok");
        for cfg in [
            "name: x\u{2028}note: hello",
            "a:\tb",
            "---\nhello",
            "--- plain text",
            "// c\n{\"a\": 1}",
            "// just a comment: see http://example.com/",
            "port: !!int |\n  8080",
            "text: \"a\\tb\"",
        ] {
            assert_eq!(code(&g, "t", json!({ "cfg": cfg })), "ok", "{cfg:?}");
        }
    }

    #[test]
    fn yaml_numbers_under_host_keys_are_addresses() {
        let g = keeper("");
        for cfg in [
            "host: 2_130_706_433",
            "host: +2_130_706_433",
            "host: 0b1111111000000000000000000000001",
            "host: 0x7f_00_00_01",
            "host: 2:44:24:22:53:53",
            "host: 0_17700000001",
            "host: 0o17700000001",
            "host: 2130706433.0",
            "host: 2.130706433e+9",
            "host: 2130706433e0",
            "host: !!int 2_130_706_433",
            "hosts:\n  - 2_130_706_433",
            "server:\n  host: 2_130_706_433",
            "{host: 2130706433.0}",
        ] {
            assert_eq!(
                code(&g, "t", json!({ "cfg": cfg })),
                "ssrf.loopback",
                "{cfg}"
            );
        }
        assert_eq!(
            code(&g, "t", json!({"cfg": "host: 3:40:3:53:6:6"})),
            "ssrf.cloud_metadata"
        );
        assert_ne!(code(&g, "t", json!({"cfg": "{host: 2_130_706_433}"})), "ok");
        // A string is no number: under a host key, the name it spells, as
        // `{"host": "2_130_706_433"}` is (attack s77-A, F3).
        for cfg in ["host: '2_130_706_433'", "host: !!str 0x7f_00_00_01"] {
            assert_eq!(
                code(&g, "t", json!({ "cfg": cfg })),
                "ssrf.single_label_name",
                "{cfg}"
            );
        }
        for cfg in [
            "version: 2:30\nhost: example.com",
            "port: 0x1F90\nname: 1_000",
            "host: example.com\nport: 8_080",
            "ratio: 1.5e3",
        ] {
            assert_eq!(code(&g, "t", json!({ "cfg": cfg })), "ok", "{cfg}");
        }
    }

    /// Attack s50 F32 and FP6/FP9/FP11: under a key naming settings text
    /// (a connection string, a command line, an environment), its
    /// `key=value` items are checked in their keys' places, as libpq,
    /// SqlClient, getopt and curl read them; the same text under any other
    /// key (a file's content, a query) is text.
    #[test]
    fn settings_text_under_settings_keys() {
        let g = keeper("");
        for (args, want) in [
            (
                json!({"dsn": "host = 127.0.0.1 port = 5432"}),
                "ssrf.loopback",
            ),
            (
                json!({"dsn": "hostaddr = 169.254.169.254"}),
                "ssrf.cloud_metadata",
            ),
            (
                json!({"dsn": "host = '127.0.0.1' port=5432"}),
                "ssrf.loopback",
            ),
            (
                json!({"conninfo": "dbname=x host\t=\t127.0.0.1"}),
                "ssrf.loopback",
            ),
            (json!({"args": "-x127.0.0.1:8080"}), "ssrf.loopback"),
            (json!({"args": "-h127.0.0.1"}), "ssrf.loopback"),
            (
                json!({"args": ["--connect-to", "::127.0.0.1:8003", "http://example.com:8003/"]}),
                "ssrf.loopback",
            ),
            (
                json!({"args": "--connect-to=::127.0.0.1:8003"}),
                "ssrf.loopback",
            ),
            (
                json!({"args": ["--resolve", "*:8003:127.0.0.1", "http://example.com:8003/"]}),
                "ssrf.loopback",
            ),
            (
                json!({"args": "--resolve=+example.com:8003:127.0.0.1"}),
                "ssrf.loopback",
            ),
            (
                json!({"args": ["--url=http://169.254.169.254/"]}),
                "ssrf.cloud_metadata",
            ),
            (
                json!({"flags": "--proxy=http://127.0.0.1:8080"}),
                "ssrf.loopback",
            ),
            (
                json!({"env": "HTTP_PROXY=http://127.0.0.1:8080"}),
                "ssrf.loopback",
            ),
            (json!({"env": {"PGHOST": "127.0.0.1"}}), "ssrf.loopback"),
            (json!({"env": ["PGHOST=10.0.0.5"]}), "ssrf.private_use"),
            (
                json!({"connection_string": "Server=127.0.0.1;Database=x;User Id=sa"}),
                "ssrf.loopback",
            ),
            (
                json!({"connection_string": "Server=tcp:10.0.0.5,1433;Database=x"}),
                "ssrf.private_use",
            ),
            (
                json!({"connectionString": "Data Source=10.0.0.5,1433"}),
                "ssrf.private_use",
            ),
            (
                json!({"args": ["-x127.0.0.1:3128", "https://example.com/"]}),
                "ssrf.loopback",
            ),
            (
                json!({"argv": "curl http://169.254.169.254/latest/"}),
                "ssrf.cloud_metadata",
            ),
            (
                json!({"args": "--execute=http_proxy=127.0.0.1:8003"}),
                "ssrf.loopback",
            ),
            (json!({"args": "-x12''7.0.0.1:8003"}), "ssrf.loopback"),
            (
                json!({"dsn": "(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=127.0.0.1)(PORT=1521)))"}),
                "ssrf.loopback",
            ),
        ] {
            assert_eq!(code(&g, "t", args.clone()), want, "{args}");
        }
        assert_ne!(
            code(
                &g,
                "t",
                json!({"connection_string": "Server=.;Database=master;Trusted_Connection=True"})
            ),
            "ok"
        );
        for args in [
            json!({"connection_string": "Server=db.example.com,1433;Database=x;User Id=sa"}),
            json!({"connection_string": "Server=tcp:db.example.com,1433;Database=x"}),
            json!({"connection_string": "Driver={ODBC Driver 18 for SQL Server};Server=db.example.com;Database=x"}),
            json!({"odbc": "Driver={ODBC Driver 18 for SQL Server};Server=tcp:myserver.database.windows.net,1433;Database=x;Encrypt=yes"}),
            json!({"connection_string": "Server=myhost.corp.example.com\\INST1,1433;Database=x"}),
            json!({"dsn": "host=db.example.com port=5432 dbname=app"}),
            json!({"args": ["-O2", "-lpthread", "-j4", "--verbose", "--out=build/x"]}),
            json!({"dsn": "(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=db.example.com)(PORT=1521))(CONNECT_DATA=(SERVICE_NAME=orcl)))"}),
            json!({"command": "ls -la /tmp && echo 12:30:45"}),
            // Attack s51 FP12, FP13: bare addresses in arguments, shell
            // commands, SQLite files.
            json!({"args": "grep -rn 127.0.0.1 src/"}),
            json!({"args": "uvicorn main:app --host 0.0.0.0"}),
            json!({"args": "python3 -m http.server --bind 127.0.0.1"}),
            json!({"command": "curl http://169.254.169.254/latest/"}),
            json!({"cmd": "echo 'open localhost:3000'"}),
            json!({"connection_string": "Data Source=:memory:"}),
            json!({"connection_string": "Data Source=C:\\data\\app.sqlite;Version=3"}),
            json!({"env": "NODE_ENV=production\nPORT=8080"}),
            json!({"content": "DB_HOST=localhost\nPGHOST=127.0.0.1\n"}),
            json!({"query": "index=main host=10.0.0.5 status=500 | stats count by uri"}),
            json!({"query": "SELECT * FROM logs WHERE host='127.0.0.1'"}),
            json!({"note": "set host=127.0.0.1 in the config"}),
        ] {
            assert_eq!(code(&g, "t", args.clone()), "ok", "{args}");
        }
        // Under `--resolve`, a name so read is looked up (attack s50 F39).
        let r = keeper("[net]\nresolve = true\n");
        for args in [
            json!({"dsn": "host = db.example.com port=5432"}),
            json!({"connection_string": "Data Source=db.example.com,1433"}),
            json!({"args": ["--proxy=http://db.example.com:3128/"]}),
        ] {
            let names = r.check_arguments("t", &args).unwrap();
            assert!(
                names.iter().any(|n| n.host() == "db.example.com"),
                "{args}: {names:?}"
            );
        }
    }

    /// A root whose own path holds a list separator (attack s62, B-F1:
    /// `My Documents`): under `lists = "split"` (the default) every path
    /// under it is refused, as a splitting server reads the root's
    /// neighbour first, and the start-up says so; under `"whole"` the text
    /// is one path, confined as any other.
    #[test]
    fn a_root_with_a_list_separator_needs_whole_paths() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        for dir in ["My Documents", "proj:2024", "a,b"] {
            std::fs::create_dir_all(base.join(dir)).unwrap();
            std::fs::write(base.join(dir).join("a.txt"), "a").unwrap();
            std::fs::create_dir_all(base.join(dir.split([' ', ':', ',']).next().unwrap())).unwrap();
            let roots = Roots::new(
                &[PathBuf::from(dir)],
                base.clone(),
                None,
                crate::gate::RelativePaths::Refuse,
                crate::gate::TildePaths::Refuse,
                crate::gate::VariablePaths::Refuse,
            )
            .unwrap();
            assert!(crate::gate::splits_a_path(roots.roots()[0]), "{dir}");
            let inside = base.join(dir).join("a.txt").to_string_lossy().into_owned();
            let outside = format!("{inside}/../../../etc/passwd");
            for (policy, want) in [
                ("", "path.outside_root"),
                ("[paths]\nlists = \"whole\"\n", "ok"),
            ] {
                let g = Gatekeeper {
                    roots: Some(roots.clone()),
                    ..keeper(policy)
                };
                assert_eq!(
                    code(&g, "t", json!({ "path": inside })),
                    want,
                    "{dir} {policy}"
                );
                assert_eq!(
                    code(&g, "t", json!({ "path": outside })),
                    "path.outside_root"
                );
            }
        }
        assert!(!crate::gate::splits_a_path(std::path::Path::new(
            "/data/my-docs_2024"
        )));
    }

    #[test]
    fn path_lists_in_one_text() {
        let (_t, base, g) = rooted(
            "[[args]]\ntool = \"t\"\npointer = \"/x\"\nkind = \"path\"\n",
            crate::gate::RelativePaths::Refuse,
        );
        std::fs::create_dir_all(base.join("data")).unwrap();
        std::fs::write(base.join("data/a.txt"), "a").unwrap();
        let inside = base.join("data/a.txt").to_string_lossy().into_owned();
        for sep in ["\n", "\r\n", ",", ";", "|", " ", "\t", ":", ", "] {
            let list = format!("{inside}{sep}/etc/passwd");
            for name in ["paths", "x"] {
                assert_eq!(
                    code(&g, "t", json!({ name: list })),
                    "path.outside_root",
                    "{name}: {list:?}"
                );
            }
        }
        let spaced = base
            .join("data/My Report, final.pdf")
            .to_string_lossy()
            .into_owned();
        for ok in [inside.as_str(), spaced.as_str()] {
            assert_eq!(code(&g, "t", json!({ "paths": ok })), "ok", "{ok}");
        }
        let both = format!("{inside}\n{inside}");
        assert_eq!(code(&g, "t", json!({ "paths": both })), "ok");
        assert_eq!(
            path_list_parts("/a:/b c,~/d;x|../e").collect::<Vec<_>>(),
            ["/a", "/b", "~/d", "../e"]
        );
        assert_eq!(path_list_parts("/a").count(), 0);
        assert_eq!(path_list_parts("a/b, c d").count(), 0);
        // Attack s50 F33: the information separators split too.
        for sep in ['\u{1c}', '\u{1d}', '\u{1e}', '\u{1f}', '\u{85}', '\u{2028}'] {
            let text = format!("{inside}{sep}/etc/passwd");
            assert_eq!(
                path_list_parts(&text).last(),
                Some("/etc/passwd"),
                "{sep:?}"
            );
            assert_ne!(code(&g, "t", json!({ "paths": text })), "ok", "{sep:?}");
        }
        // FP8: `~NAME` that no user is named is part of a file's name;
        // a user's home, or a path under one, is a path.
        for (text, parts) in [
            ("/r/notes ~old.txt", vec!["/r/notes"]),
            ("/r/a, ~B", vec!["/r/a"]),
            ("/r/a ~root", vec!["/r/a", "~root"]),
            ("/r/a ~", vec!["/r/a", "~"]),
            ("/r/a ~www-data$", vec!["/r/a", "~www-data$"]),
            ("/r/a ~Old.txt/x", vec!["/r/a", "~Old.txt/x"]),
        ] {
            assert_eq!(path_list_parts(text).collect::<Vec<_>>(), parts, "{text}");
        }
        let tilde_file = base
            .join("data/notes ~old.txt")
            .to_string_lossy()
            .into_owned();
        let r = g.check_arguments("t", &json!({ "paths": tilde_file }));
        assert!(r.is_ok(), "{:?}", r.err().map(|e| e.message().to_owned()));
    }

    /// Names of a file's location get the path check: a file's URI when
    /// its value is no URL, any URI when its value reads as a path, a
    /// location after a file word, path abbreviations (#20 re-attack, N3
    /// rest).
    #[test]
    fn file_location_names() {
        let (_t, base, g) = rooted("", crate::gate::RelativePaths::Refuse);
        let inside = base.join("data/a.txt").to_string_lossy().into_owned();
        for name in [
            "file_uri",
            "fileUri",
            "fileUrl",
            "file_url",
            "fileURL",
            "fileLocation",
            "file_location",
            "fp",
            "fn",
            "input_fp",
            "uri",
            "url",
            "href",
            "resourceUri",
            "location",
        ] {
            for p in [
                "/etc/passwd",
                "../../etc/passwd",
                "~/.ssh/id_rsa",
                "/tmp/../etc/passwd",
                "%2e%2e/%2E%2E/etc/passwd",
                "%2fetc%2fpasswd",
            ] {
                assert_eq!(
                    code(&g, "t", json!({ name: p })),
                    "path.outside_root",
                    "{name}: {p}"
                );
                assert_eq!(
                    code(&g, "t", json!({"o": [{ name: p }]})),
                    "path.outside_root",
                    "nested {name}: {p}"
                );
            }
            assert_eq!(code(&g, "t", json!({ name: inside })), "ok", "{name}");
            // A URL under a URI name gets the URL check alone (a path
            // name's value gets both).
            let want = if is_path_name(name) {
                "path.outside_root"
            } else {
                "ok"
            };
            assert_eq!(
                code(&g, "t", json!({ name: "https://example.com/a.txt" })),
                want,
                "{name}"
            );
            assert_eq!(
                code(&g, "t", json!({ name: "http://169.254.169.254/" })),
                "ssrf.cloud_metadata",
                "{name}"
            );
        }
        // A file's name or URI is a path whatever it looks like; a plain
        // URI only when it reads as one.
        for name in ["file_uri", "fileUrl", "fileLocation", "fn"] {
            assert_eq!(
                code(&g, "t", json!({ name: "notes.txt" })),
                "path.outside_root",
                "{name}"
            );
        }
        for name in ["uri", "href", "location", "callbackFn"] {
            assert_eq!(code(&g, "t", json!({ name: "notes.txt" })), "ok", "{name}");
        }
        assert_eq!(code(&g, "t", json!({"location": "New York"})), "ok");
    }

    /// F15: a scheme `[resources] schemes` names is the server's own: its
    /// URIs pass the resource decision and argument checks; others do not,
    /// and a network or file scheme cannot be named.
    #[test]
    fn own_resource_schemes() {
        let plain = keeper("");
        let own = keeper("[resources]\nschemes = [\"test\", \"Memo\"]\n");
        let read = |g: &Gatekeeper, uri: &str| {
            g.resource_decision("resources/read", uri)
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        assert_eq!(read(&plain, "test://static/resource/1"), "url.scheme");
        assert_eq!(read(&own, "test://static/resource/1"), "ok");
        assert_eq!(read(&own, "MEMO:insights"), "ok");
        assert_eq!(read(&own, " te\tst://x"), "ok");
        assert_eq!(read(&own, "note://x"), "url.scheme");
        assert!(read(&own, "http://169.254.169.254/").starts_with("ssrf."));
        assert_eq!(
            code(&own, "t", json!({"uri": "test://a", "k": {"test://b": 1}})),
            "ok"
        );
        assert_eq!(code(&own, "t", json!({"uri": "gopher://a"})), "url.scheme");
        for bad in ["http", "HTTPS", "file", "gopher", "x", "1ab", "a b"] {
            let text = format!("[resources]\nschemes = [\"{bad}\"]\n");
            assert!(Policy::parse(&text).is_err(), "{bad}");
        }
    }

    /// Attack s67, A-N1: the values a template hands its server, by
    /// operator.
    #[test]
    fn template_values_by_operator() {
        let v = |t: &str, u: &str| template_values(t, u).into_iter().next().map(Value::Object);
        assert_eq!(
            v("demo://h/ip-{host}", "demo://h/ip-169.254.169.254"),
            Some(json!({"host": "169.254.169.254"}))
        );
        assert_eq!(
            v("demo://j/{host}.json", "demo://j/169.254.169.254.json"),
            Some(json!({"host": "169.254.169.254"}))
        );
        assert_eq!(
            v(
                "demo://mx/x{;url}",
                "demo://mx/x;url=http%3A%2F%2F127.0.0.2%2F"
            ),
            Some(json!({"url": "http%3A%2F%2F127.0.0.2%2F"}))
        );
        assert_eq!(
            v("demo://q/{?a,url}", "demo://q/?a=1&url=http://h/"),
            Some(json!({"a": "1", "url": "http://h/"}))
        );
        assert_eq!(
            v("demo://fr/x{#url}", "demo://fr/x#http://h/"),
            Some(json!({"url": "http://h/"}))
        );
        assert_eq!(
            v("demo://y/{.host}/p", "demo://y/.10.0.0.1/p"),
            Some(json!({"host": "10.0.0.1"}))
        );
        assert_eq!(
            v("demo://files/{+path}", "demo://files//etc/passwd"),
            Some(json!({"path": "/etc/passwd"}))
        );
        assert_eq!(
            v("demo:x/{host}/p", "demo:x/1.2.3.4/p"),
            Some(json!({"host": "1.2.3.4"}))
        );
        assert_eq!(v("demo://h/ip-{host}", "demo://other/ip-1"), None);
        let both: Vec<Value> = template_values("demo://g/{a}-{h}", "demo://g/x-y-10.0.0.1")
            .into_iter()
            .map(Value::Object)
            .collect();
        assert_eq!(
            both,
            [
                json!({"a": "x", "h": "y-10.0.0.1"}),
                json!({"a": "x-y", "h": "10.0.0.1"})
            ]
        );
        assert_eq!(v("demo://j/{host}.json", "demo://j/x.txt"), None);
        assert_eq!(v("demo://static/a", "demo://static/a"), None);
    }

    /// Attack s66, A-F3 and A-F2: a URI of the server's own scheme passes
    /// as a name, but what a template may take out of it is checked as
    /// arguments are: a URL after any `/` of its path (written, or
    /// percent-encoded as a simple `{var}` expansion writes it), a query
    /// value, an address as its authority; in `resources/read` and in
    /// tool arguments alike. Past `MAX_OWN_URI_VALUES` values, refused.
    #[test]
    fn values_inside_own_scheme_uris_are_checked() {
        let own = keeper("[resources]\nschemes = [\"demo\"]\n");
        let read = |uri: &str| {
            own.resource_decision("resources/read", uri)
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        for (uri, want) in [
            (
                "demo://fetch/http://169.254.169.254/latest/meta-data/",
                "ssrf.cloud_metadata",
            ),
            ("demo://fetch/a/b/http://127.0.0.2:8765/", "ssrf.loopback"),
            (
                "demo://get/http%3A%2F%2F169.254.169.254%2Flatest",
                "ssrf.cloud_metadata",
            ),
            (
                "demo://q?url=http://169.254.169.254/latest/",
                "ssrf.cloud_metadata",
            ),
            (
                "demo://q?a=1&url=http%3A%2F%2F127.0.0.2%2F",
                "ssrf.loopback",
            ),
            ("demo:http://10.0.0.1/", "ssrf.private_use"),
            ("demo://169.254.169.254/page", "ssrf.cloud_metadata"),
            ("demo://u:pw@127.0.0.1:80/page", "ssrf.loopback"),
            (
                "demo://fetch/demo://x/http://169.254.169.254/",
                "ssrf.cloud_metadata",
            ),
            // Verification of s67: a rootless path, a path parameter, a
            // fragment (`demo:x/{h}/p`, `{;u}`, `{#u}`).
            ("demo:x/169.254.169.254/p", "ssrf.cloud_metadata"),
            ("demo:x/10.0.0.1/p", "ssrf.private_use"),
            ("demo://h/x/[fd00::1]/p", "ssrf.unique_local"),
            ("demo:r/localhost/p", "ssrf.localhost_name"),
            (
                "demo:x;u=http%3A%2F%2F169.254.169.254",
                "ssrf.cloud_metadata",
            ),
            (
                "demo://fixed/x;url=http%3A%2F%2F127.0.0.2%2F",
                "ssrf.loopback",
            ),
            (
                "demo://fixed/x#http%3A%2F%2F169.254.169.254",
                "ssrf.cloud_metadata",
            ),
            ("demo://fixed/page", "ok"),
            ("demo://docs/v1.2.3/readme.md;rev=2#intro", "ok"),
            ("demo://docs/8.8.8.8/page", "ok"),
            // Attack s68-A: a zone identifier, percent-encoded slashes
            // and spaces, comma lists; version numbers pass.
            ("demo:x/[fd00::1%25eth0]/p", "ssrf.unique_local"),
            (
                "demo:x/[::ffff:169.254.169.254%25eth0]/p",
                "ssrf.cloud_metadata",
            ),
            ("demo:x/%2F169.254.169.254", "ssrf.cloud_metadata"),
            ("demo:x/%2Flocalhost", "ssrf.localhost_name"),
            ("demo:x/%20169.254.169.254%20", "ssrf.cloud_metadata"),
            ("demo:x/a%2C10.0.0.1", "ssrf.private_use"),
            ("demo://q/a,169.254.169.254/p", "ssrf.cloud_metadata"),
            ("demo:x/0xa9fea9fe/p", "url.ambiguous"),
            ("demo:x/0251.0376.0251.0376/p", "url.ambiguous"),
            ("demo://static/resource/1", "ok"),
            ("demo://docs/api/intro/1.2", "ok"),
            ("demo://docs/api/v1.2.3/notes", "ok"),
            ("demo://crates/foo/0.4.2", "ok"),
            ("demo://crates/foo/10.2", "ok"),
            // Attack s68-A, FP1: a version in the middle of the path
            // (the rest `1.2/intro` a `{+var}` takes is no host); a
            // short form of a refused address is one.
            ("demo://docs/api/1.2/intro", "ok"),
            ("demo://docs/1.2.3/notes", "ok"),
            ("demo:x/1.2/p", "ok"),
            ("demo:r/2024.1/notes", "ok"),
            ("demo://docs/127.1/x", "url.ambiguous"),
            ("demo:x/169.254.169.254./p", "url.ambiguous"),
            ("demo://fetch/https://example.com/x?y=1", "ok"),
            ("demo://static/resource/1?q=a&b", "ok"),
            ("demo:insights", "ok"),
        ] {
            assert_eq!(read(uri), want, "{uri}");
        }
        assert_eq!(
            code(
                &own,
                "t",
                json!({"uri": "demo://fetch/http://169.254.169.254/latest/"})
            ),
            "ssrf.cloud_metadata"
        );
        for (args, want) in [
            (
                json!({"uri": "demo:x/169.254.169.254/p"}),
                "ssrf.cloud_metadata",
            ),
            (
                json!({"q": "demo://h/p#http://10.0.0.1/"}),
                "ssrf.private_use",
            ),
            (json!({"uri": "demo://docs/v1.2/readme.md"}), "ok"),
        ] {
            assert_eq!(code(&own, "t", args.clone()), want, "{args}");
        }
        let long = format!("demo://x/{}", "a/".repeat(MAX_OWN_URI_VALUES + 1));
        assert_eq!(read(&long), "policy.arguments_too_complex");
        let fits = format!("demo://x/{}", "a/".repeat(MAX_OWN_URI_VALUES - 2));
        assert_eq!(read(&fits), "ok");
    }

    /// JSONC as its decoders read it: comments outside strings dropped,
    /// a comma before a closing bracket dropped, strings as written;
    /// `None` for strict JSON (nothing to drop) and for what stays no JSON.
    #[test]
    fn jsonc_as_its_decoders_read_it() {
        assert_eq!(
            jsonc_reading("{\"a\": /* x */ 1, \"b\": \"//no /* comment\", // c\n}"),
            Some(json!({"a": 1, "b": "//no /* comment"}))
        );
        assert_eq!(jsonc_reading("[1, 2,\n]"), Some(json!([1, 2])));
        assert_eq!(jsonc_reading("{\"a\": 1}"), None);
        assert_eq!(jsonc_reading("{a: 1, // x\n}"), None);
        assert_eq!(
            jsonc_reading("{\"a\": \"x\\\"/*\", /* y */ \"b\": 2}"),
            Some(json!({"a": "x\"/*", "b": 2}))
        );
    }

    /// A string that holds a JSON array or object, a Python literal or a
    /// YAML collection is checked as what it holds, in its place (a server
    /// on the Python SDK decodes it; #20 attack pass, F1, re-attack N9);
    /// a text no decoder reads one way is refused.
    #[test]
    fn json_in_a_string_is_checked_as_what_it_holds() {
        let (_t, _, g) = rooted(
            "[[args]]\ntool = \"t\"\npointer = \"/target\"\nkind = \"path\"\n\n[[args]]\ntool = \"t\"\npointer = \"/cfg/target\"\nkind = \"path\"\n",
            crate::gate::RelativePaths::EachRoot,
        );
        let cases = [
            (
                json!({"urls": "[\"http://127.0.0.2:8080/\"]"}),
                "ssrf.loopback",
            ),
            (
                json!({"urls": " \n[\"http://127.0.0.2/\"] "}),
                "ssrf.loopback",
            ),
            (
                json!({"o": "{\"a\": {\"u\": \"gopher://x/\"}}"}),
                "url.scheme",
            ),
            (json!({"paths": "[\"/etc/passwd\"]"}), "path.outside_root"),
            (json!({"paths": "[\"a.txt\"]"}), "ok"),
            (
                json!({"o": "{\"file_path\": \"/etc/passwd\"}"}),
                "path.outside_root",
            ),
            (json!({"target": "[\"/etc/passwd\"]"}), "path.outside_root"),
            // Nested texts: a string in the array holds JSON again.
            (
                json!({"o": "[\"[\\\"http://10.0.0.1/\\\"]\"]"}),
                "ssrf.private_use",
            ),
            // Bracketed, with strings, not strict JSON (Python reads `NaN`,
            // `Infinity`, `1e999`, lone surrogates): refused.
            (
                json!({"urls": "[NaN, \"http://127.0.0.2/\"]"}),
                "policy.arguments_too_complex",
            ),
            (
                json!({"cfg": "{\"path\": \"/etc/passwd\", \"x\": NaN}"}),
                "policy.arguments_too_complex",
            ),
            (
                json!({"cfg": "{\"path\": \"/etc/passwd\", \"x\": 1e999}"}),
                "policy.arguments_too_complex",
            ),
            (
                json!({"cfg": "{\"\\udc00\": 1, \"path\": \"/etc/passwd\"}"}),
                "policy.arguments_too_complex",
            ),
            (
                json!({"cfg": "[{\"path\": \"/etc/passwd\"}, Infinity]"}),
                "policy.arguments_too_complex",
            ),
            // Not bracketed at both ends: no decoder reads it whole; each
            // string literal is still checked.
            (
                json!({"q": "[x] \"http://127.0.0.2/\" said"}),
                "ssrf.loopback",
            ),
            (json!({"q": "[x] \"https://example.com/\" said"}), "ok"),
            // JSON a decoder reads otherwise than this check.
            (
                json!({"o": "{\"u\": \"x\", \"u\": \"y\"}"}),
                "policy.arguments_too_complex",
            ),
            (
                json!({"o": format!("{}{}", "[".repeat(200), "]".repeat(200))}),
                "policy.arguments_too_complex",
            ),
            // Text that only looks like JSON stays text.
            (
                json!({"q": "[draft] see {x}", "r": "{placeholder}", "s": "[1, 2]"}),
                "ok",
            ),
            (json!({"q": "{\"ok\": \"https://example.com/\"}"}), "ok"),
            // Bracketed at both ends by two constructs (a TOML table and an
            // array, two INI sections, two references): no decoder reads
            // it whole, so it is text with its literals checked (#20
            // attack s78-A, FP1).
            (
                json!({"content": "[project]\nname = \"x\"\ndependencies = [\n  \"requests>=2\",\n]\n"}),
                "ok",
            ),
            (
                json!({"content": "[package]\nname = \"x\"\nversion = \"0.1.0\"\n\n[dependencies]\n"}),
                "ok",
            ),
            (
                json!({"content": "[Unit]\nDescription=\"svc\"\n[Install]\n"}),
                "ok",
            ),
            (json!({"content": "[1] \"Smith\" 2020. See [2]"}), "ok"),
            (
                json!({"config": "[tool.ruff]\nselect = [\n  \"E\",\n  \"F\",\n]\n"}),
                "ok",
            ),
            (
                json!({"content": "[tool]\nurl = \"http://127.0.0.2/\"\nx = [1]"}),
                "ssrf.loopback",
            ),
            // Comments and Python's triple quotes, and a quote inside a
            // YAML plain scalar, hide no bracket (attack s79-A, B5).
            (
                json!({"data": "{'a': 1, # }\n 'u': 'http://127.0.0.2/'}"}),
                "ssrf.loopback",
            ),
            (
                json!({"data": "{'a': '''x'}''', 'u': 'http://127.0.0.2/'}"}),
                "policy.arguments_too_complex",
            ),
            (
                json!({"data": "{'a': \"\"\"x\"}\"\"\", 'u': 'http://127.0.0.2/'}"}),
                "policy.arguments_too_complex",
            ),
            (
                json!({"data": "{x: it's, y: '}', u: 'http://127.0.0.2/'}"}),
                "policy.arguments_too_complex",
            ),
            (
                json!({"data": "{a: 1, /* } */ u: 'http://127.0.0.2/'}"}),
                "policy.arguments_too_complex",
            ),
            (
                json!({"data": "{'a': 1, # }\n 'host': '127.1'}"}),
                "ssrf.loopback",
            ),
            // What a file holds, beside its path under a path-named key,
            // is text (GitHub's `push_files`; attack s79-B, F2); any
            // other member that reads as a path is still checked.
            (
                json!({"files": [{"path": "a.txt", "content": "// hello\n../../x", "commit_message": "/etc"}]}),
                "ok",
            ),
            (
                json!({"files": [{"path": "a.txt", "edits": [{"oldText": "/a", "newText": "// b"}]}]}),
                "ok",
            ),
            (
                json!({"files": [{"path": "a.txt", "other": "/etc/passwd"}]}),
                "path.outside_root",
            ),
            // A map's keys are the caller's: without a path member beside
            // them, content names are no exemption (attack s80-B, N1).
            (
                json!({"paths": {"data": "/etc/passwd"}}),
                "path.outside_root",
            ),
            (
                json!({"files": {"content": "/etc/passwd"}}),
                "path.outside_root",
            ),
            (
                json!({"attachments": [{"filename": "a.txt", "base64": "/9j/4AAQ"}]}),
                "ok",
            ),
            // Text after a collection that decoders read past (attack
            // s80-A, N1, N2).
            (
                json!({"data": "{'u': 'http://127.0.0.2/'} # x"}),
                "ssrf.loopback",
            ),
            (
                json!({"data": "{'u': 'http://127.0.0.2/'},"}),
                "policy.arguments_too_complex",
            ),
            (
                json!({"data": "{'a': 1}, {'u': 'http://127.0.0.2/'}"}),
                "policy.arguments_too_complex",
            ),
            (
                json!({"data": "{a: 1, // }\n u: 'http://127.0.0.2/'}"}),
                "policy.arguments_too_complex",
            ),
            // JSONC (VS Code's settings) is read as its decoders read it
            // (attack s79-A, FP1).
            (
                json!({"data": "{\n  // editor\n  \"editor.fontSize\": 14\n}"}),
                "ok",
            ),
            (json!({"config": "{\n  \"editor.fontSize\": 14,\n}"}), "ok"),
            (
                json!({"data": "{\n  // c\n  \"url\": \"http://127.0.0.2/\",\n}"}),
                "ssrf.loopback",
            ),
            (
                json!({"data": "{\"a\": 1 // \"http://127.0.0.2/\"\n}"}),
                "ssrf.loopback",
            ),
            // Brackets inside strings and comments do not end the
            // collection: still one collection, still refused.
            (
                json!({"urls": "[\"]\", NaN, \"http://127.0.0.2/\"]"}),
                "policy.arguments_too_complex",
            ),
            (
                json!({"cfg": "{'a': ']', 'b': 'it\\'s', 'path': '/etc/passwd'}"}),
                "policy.arguments_too_complex",
            ),
            (
                json!({"cfg": "{// }\n\"path\": \"/etc/passwd\", \"x\": NaN}"}),
                "policy.arguments_too_complex",
            ),
        ];
        for (args, want) in cases {
            assert_eq!(code(&g, "t", args.clone()), want, "{args}");
        }
        // Python literals, YAML flow and block collections and BOM-led
        // JSON are read as a server's decoder reads them; a bracketed text
        // no reader here reads whole, and YAML a loader reads otherwise
        // (an alias, a duplicate or collection key), are refused (#20
        // re-attack, N9).
        let outside = "path.outside_root";
        let complex = "policy.arguments_too_complex";
        for (text, want) in [
            ("{'path': '/etc/passwd'}", outside),
            ("{'url': 'http://127.0.0.2/', 'n': None}", "ssrf.loopback"),
            ("[{'file_path': '/etc/passwd', 'ok': True}]", outside),
            ("{path: /etc/passwd}", outside),
            ("{'target': '/etc/passwd'}", outside),
            ("path: /etc/passwd", outside),
            ("opts:\n  files:\n    - ../../etc/passwd\n", outside),
            ("- http://127.0.0.2/\n- x\n", "ssrf.loopback"),
            ("---\nname: x\n---\nsrc: ~/.ssh/id_rsa\n", outside),
            ("target: /etc/passwd", outside),
            ("\u{feff}{\"path\": \"/etc/passwd\"}", outside),
            ("\u{feff}[{\"files\": [\"/etc/passwd\"]}]", outside),
            (
                "\u{a0}{\"url\": \"http://127.0.0.2/\"}\u{2028}",
                "ssrf.loopback",
            ),
            ("{'a': 'it\\'s', 'path': '/etc/passwd'}", complex),
            ("a: &x /etc/passwd\npath: *x", complex),
            ("path: a.txt\npath: /etc/passwd", complex),
            ("? [a]\n: /etc/passwd", complex),
            // Tags: `!!binary` read as the text it decodes to, core tags
            // as text, any other tag refused (#20 re-attack, F9).
            ("path: !!binary L2V0Yy9wYXNzd2Q=", outside),
            ("path: !!binary |\n  L2V0Yy9w\n  YXNzd2Q=\n", outside),
            ("path: !!binary L2V0Yy9wYXNzd2Q", outside),
            ("path: !!binary c3ViL2EudHh0", "ok"),
            ("path: !!binary //79", complex),
            // Every reading lenient decoders give (#20, N3): a stray `=`
            // before the data, `-` and `_` as Python's junk, quoted, flow,
            // sequences; a value one of whose readings is refused is.
            ("path: !!binary =L2V0Yy9wYXNzd2Q=", outside),
            ("path: !!binary ==L2V0Yy9wYXNzd2Q=", outside),
            ("path: !!binary '=L2V0Yy9wYXNzd2Q='", outside),
            ("path: !!binary \"= L2V0Yy9wYXNzd2Q=\"", outside),
            ("path: !!binary = L2V0Yy9wYXNzd2Q=", outside),
            ("{path: !!binary =L2V0Yy9wYXNzd2Q=}", outside),
            ("paths: [!!binary =L2V0Yy9wYXNzd2Q=]", outside),
            ("path: !!binary L2V0Y_y9wYXNzd2Q=", outside),
            ("path: !!binary -L2V0Yy9wYXNzd2Q=", outside),
            ("path: !!binary c3ViLw==Li4vLi4vZXRjL3Bhc3N3ZA==", outside),
            (
                "url: !!binary =aHR0cDovLzE2OS4yNTQuMTY5LjI1NC8=",
                "ssrf.cloud_metadata",
            ),
            ("path: !!binary =c3ViL2EudHh0", "ok"),
            ("path: !!binary c3Vi_L2EudHh0", "ok"),
            ("path: !!str /etc/passwd", outside),
            ("path: !!str sub/a.txt", "ok"),
            ("path: ! sub/a.txt", "ok"),
            ("path: !!python/bytes L2V0Yw==", complex),
            ("path: !local /etc/passwd", complex),
            (
                "%TAG !! tag:example.com,2000:\n---\npath: !!binary L2V0Yy9wYXNzd2Q=",
                complex,
            ),
            ("{'path': 'a.txt'}", "ok"),
            ("path: sub/a.txt", "ok"),
            ("File: report.pdf is attached", "ok"),
            ("Note: see the docs.\nPath: unchanged", "ok"),
            ("{'a': 1}", "ok"),
            ("{'paths': ('/etc/passwd',)}", complex),
            ("[b'/etc/passwd']", complex),
            ("['\\x68ttp://127.0.0.2/']", complex),
            ("('http://127.0.0.2/',)", "ssrf.loopback"),
            ("(('/etc/passwd',),)", complex),
            ("(see the notes)", "ok"),
            ("(it's fine)", "ok"),
            // JSON in JSON: a JSON string holding a text.
            ("\"[\\\"http://127.0.0.2/\\\"]\"", "ssrf.loopback"),
            ("\"{\\\"path\\\": \\\"/etc/passwd\\\"}\"", outside),
            ("\"plain\"", "ok"),
        ] {
            assert_eq!(code(&g, "t", json!({ "cfg": text })), want, "{text:?}");
        }
        // An `[[args]]` pointer leads into JSON held in a string (#20
        // re-attack, N2).
        let (_t2, _, ruled) = rooted(
            "[[args]]\ntool = \"t\"\npointer = \"/cfg/target\"\nkind = \"path\"\n\n[[args]]\ntool = \"t\"\npointer = \"/list/0\"\nkind = \"path\"\n",
            crate::gate::RelativePaths::EachRoot,
        );
        assert_eq!(
            code(&ruled, "t", json!({"cfg": "{\"target\": \"/etc/passwd\"}"})),
            "path.outside_root"
        );
        assert_eq!(
            code(&ruled, "t", json!({"list": "[\"/etc/passwd\"]"})),
            "path.outside_root"
        );
        assert_eq!(
            code(&ruled, "t", json!({"cfg": "{\"target\": \"a.txt\"}"})),
            "ok"
        );
        assert_eq!(code(&ruled, "t", json!({"cfg": "[draft]"})), "ok");
        // Deeper than MAX_EMBEDDED_JSON_DEPTH texts: refused; at it, read.
        let mut text = json!("x");
        for _ in 0..MAX_EMBEDDED_JSON_DEPTH {
            text = json!(json!([text]).to_string());
        }
        assert_eq!(code(&g, "t", json!({ "o": text.clone() })), "ok");
        let deeper = json!(json!([text]).to_string());
        assert_eq!(
            code(&g, "t", json!({ "o": deeper })),
            "policy.arguments_too_complex"
        );
        // The strings decoded count against the scan bound.
        let many: Vec<Value> = (0..MAX_SCANNED_STRINGS).map(|_| json!("x")).collect();
        let inner = json!(many).to_string();
        assert_eq!(
            code(&g, "t", json!({ "o": inner })),
            "policy.arguments_too_complex"
        );
    }

    /// A string literal of a text no decoder reads whole is read as
    /// Python's and JavaScript's decoders read it: one holding a lone
    /// surrogate (which both keep) or an escape JSON does not know (a
    /// lenient reader's `\x41`, `\U`) is checked, not left out; a lone
    /// surrogate is read dropped and as a delimiter (#20 mend).
    #[test]
    fn literals_with_lone_surrogates_or_unknown_escapes_are_checked() {
        let (_t, _, g) = rooted("", crate::gate::RelativePaths::EachRoot);
        let metadata = "ssrf.cloud_metadata";
        let outside = "path.outside_root";
        for (args, want) in [
            (
                json!({"q": r#"[x] "\ud800http://169.254.169.254/" said"#}),
                metadata,
            ),
            (
                json!({"q": r#"[x] "http://169.254.169.254\udc00/" said"#}),
                metadata,
            ),
            (
                json!({"q": r#"[x] "http://169.254.\ud800169.254/" said"#}),
                metadata,
            ),
            (
                json!({"q": r#"[x] "http://169.254.169.254/\x41" said"#}),
                "url.ambiguous",
            ),
            (
                json!({"q": r#"[x] "x" "http://169.254.169.254/\U" said"#}),
                "url.ambiguous",
            ),
            (
                json!({"q": r#"[x] "\ud800https://example.com/\u0041" said"#}),
                "ok",
            ),
            (
                json!({"paths": r#"["a.txt", "\ud800../../etc/passwd""#}),
                outside,
            ),
            (
                json!({"paths": r#"["a.txt", "/etc/\udbffpasswd""#}),
                outside,
            ),
            (json!({"paths": r#"["a.txt", "/etc/passwd\x41""#}), outside),
            (json!({"paths": r#"["a.txt", "\U/../../etc""#}), outside),
            (json!({"paths": r#"["a.txt", "sub/\ud800b.txt""#}), "ok"),
            // Bracketed, holding such a literal: not strict JSON, refused.
            (
                json!({"paths": r#"["a.txt", "\x41"]"#}),
                "policy.arguments_too_complex",
            ),
            (
                json!({"paths": r#"["\ud800"]"#}),
                "policy.arguments_too_complex",
            ),
        ] {
            assert_eq!(code(&g, "t", args.clone()), want, "{args}");
        }
        assert_eq!(
            string_literals(r#"["a\ud800b\udc00\udc00c", "\ud800x", "", "\ud800", "\x41\u0042""#),
            ["abc", "a", "b", "c", "x", "", "", "\\x41B"]
        );
    }

    /// Members of a mediated request beside the ones its method names get
    /// the argument checks (#20 attack pass: `params.extra`, `params.task`).
    #[test]
    fn other_params_members_are_checked() {
        let g = keeper("");
        let other = |params: Value, known: &[&str]| {
            g.check_other_params(Some(&params), known)
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        let known = &["name", "arguments"];
        assert_eq!(
            other(
                json!({"name": "x", "arguments": {}, "extra": "http://127.0.0.1/"}),
                known
            ),
            "ssrf.loopback"
        );
        assert_eq!(
            other(
                json!({"name": "x", "task": {"ttl": 1, "u": "gopher://x/"}}),
                known
            ),
            "url.scheme"
        );
        assert_eq!(
            other(
                json!({"name": "http://127.0.0.1/", "arguments": {"u": "http://127.0.0.1/"}, "_meta": {"u": "http://127.0.0.1/"}}),
                known
            ),
            "ok",
            "the named members are the method's to check; _meta is the client's"
        );
        let request = |method: &str, params: Value| {
            g.check_request(method, Some(&params))
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        assert_eq!(
            request(
                "prompts/get",
                json!({"name": "p", "extra": "http://10.0.0.1/"})
            ),
            "ssrf.private_use"
        );
        assert_eq!(
            request(
                "resources/read",
                json!({"uri": "https://example.com/", "x": {"url": "http://127.0.0.1/"}})
            ),
            "ssrf.loopback"
        );
        assert_eq!(
            request(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "v"}, "more": "http://127.0.0.1/"})
            ),
            "ssrf.loopback"
        );
        assert_eq!(request("ping", json!({"x": "http://127.0.0.1/"})), "ok");
        // Members of `completion/complete`'s `ref` beside the spec's (#20
        // re-attack, N8).
        for (extra, want) in [
            (json!({"url": "http://127.0.0.1/"}), "ssrf.loopback"),
            (json!({"_meta": {"u": "gopher://x/"}}), "url.scheme"),
            (
                json!({"title": "T", "x": ["http://10.0.0.1/"]}),
                "ssrf.private_use",
            ),
            (json!({"title": "T", "hint": "plain"}), "ok"),
        ] {
            for r in [
                json!({"type": "ref/prompt", "name": "p"}),
                json!({"type": "ref/resource", "uri": "https://example.com/{x}"}),
            ] {
                let mut r = r;
                for (k, v) in extra.as_object().unwrap() {
                    r[k] = v.clone();
                }
                assert_eq!(
                    request(
                        "completion/complete",
                        json!({"ref": r, "argument": {"name": "a", "value": "v"}})
                    ),
                    want,
                    "{r}"
                );
            }
        }
        let (_t, _, rooted_g) = rooted("", crate::gate::RelativePaths::Refuse);
        assert_eq!(
            rooted_g
                .check_request(
                    "completion/complete",
                    Some(&json!({"ref": {"type": "ref/prompt", "name": "p", "path": "/etc/passwd"}, "argument": {"name": "a", "value": "v"}}))
                )
                .map_err(|e| e.code())
                .err(),
            Some("path.outside_root")
        );
    }

    /// `completion/complete` of a resource template decides the template
    /// expanded with the values the request gives, unencoded: a server
    /// completing `file:///…/data/{name}` may list what that names (#20
    /// attack pass s46).
    #[test]
    fn a_completion_decides_the_template_with_the_values_given() {
        let (_t, base, g) = rooted("", crate::gate::RelativePaths::Refuse);
        let data = format!("file://{}/data", base.display());
        let complete = |template: String, argument: Value, context: Value| {
            g.check_request(
                "completion/complete",
                Some(&json!({"ref": {"type": "ref/resource", "uri": template},
                             "argument": argument, "context": {"arguments": context}})),
            )
            .map(|_| "ok")
            .unwrap_or_else(|e| e.code())
        };
        let arg = |name: &str, value: &str| json!({"name": name, "value": value});
        let mut wrong = Vec::new();
        for (template, argument, context, want) in [
            (
                format!("{data}/{{name}}"),
                arg("name", "a.txt"),
                json!({}),
                "ok",
            ),
            // A variable not given expands to nothing (RFC 6570), so it
            // absorbs no `..` (#20 attack s46b, F4).
            (
                format!("{data}{{/dir}}{{/name}}"),
                arg("name", ".."),
                json!({}),
                "path.outside_root",
            ),
            (
                format!("{data}{{/dir,name}}"),
                arg("name", ".."),
                json!({}),
                "path.outside_root",
            ),
            (
                format!("{data}{{/sect}}{{/name}}"),
                arg("sect", "sub"),
                json!({}),
                "ok",
            ),
            (
                format!("{data}{{/sect}}{{/name}}"),
                arg("name", "a.txt"),
                json!({"sect": "sub"}),
                "ok",
            ),
            // The empty expansion writes `//` before a given `..`: a
            // server that hands the path to the system as written reads
            // `R//..` as R's parent (the URL parser reads R).
            (
                format!("{data}/{{sect}}/{{name}}"),
                arg("name", ".."),
                json!({}),
                "path.outside_root",
            ),
            (
                format!("{data}/{{+sect}}{{/name}}"),
                arg("name", ".."),
                json!({}),
                "path.outside_root",
            ),
            (
                format!("{data}{{/sect}}{{/name}}"),
                arg("name", ".."),
                json!({"sect": ""}),
                "path.outside_root",
            ),
            (
                format!("{data}/{{sect}}/{{name}}"),
                arg("name", "a.txt"),
                json!({}),
                "ok",
            ),
            (
                format!("{data}/{{sect}}/{{name}}"),
                arg("sect", "sub"),
                json!({}),
                "ok",
            ),
            // A prefix modifier keeps that many characters.
            (
                format!("{data}/x/{{v:2}}/{{w}}"),
                arg("v", "..root"),
                json!({"w": ".."}),
                "path.outside_root",
            ),
            (
                format!("{data}/{{v:2}}"),
                arg("v", "ab/../.."),
                json!({}),
                "path.outside_root",
            ),
            (
                format!("{data}/{{v:3}}"),
                arg("v", "abc/../.."),
                json!({}),
                "path.outside_root",
            ),
            (format!("{data}/{{v:2}}"), arg("v", "ab"), json!({}), "ok"),
            // An absolute value is itself to a completer that joins it.
            (
                format!("{data}/{{name}}"),
                arg("name", "/etc"),
                json!({}),
                "path.outside_root",
            ),
            (
                format!("{data}/{{name}}"),
                arg("name", "~/"),
                json!({}),
                "path.outside_root",
            ),
            (
                format!("{data}/{{name}}"),
                arg("name", "\\etc"),
                json!({}),
                "path.outside_root",
            ),
            // A value given under another name may still be this
            // variable's, to a server that names it otherwise.
            (
                format!("{data}/{{a}}"),
                arg("name", "/etc"),
                json!({}),
                "path.outside_root",
            ),
            (
                format!("{data}/{{name}}"),
                arg("name", &format!("{}/data/x", base.display())),
                json!({}),
                "ok",
            ),
            (
                "https://example.com/{q}".to_owned(),
                arg("q", "/etc"),
                json!({}),
                "ok",
            ),
            (
                format!("{data}/{{name}}"),
                arg("name", "../../etc/passwd"),
                json!({}),
                "path.outside_root",
            ),
            (
                format!("{data}{{/sect,name}}"),
                arg("name", "x"),
                json!({"sect": "../.."}),
                "path.outside_root",
            ),
            // The TypeScript SDK writes `R` `sub,x`: R's sibling `Rsub,x`.
            (
                format!("{data}{{/sect,name}}"),
                arg("name", "x"),
                json!({"sect": "sub"}),
                "path.outside_root",
            ),
            (
                format!("{data}/{{+sect,name}}"),
                arg("name", "x"),
                json!({"sect": "sub"}),
                "ok",
            ),
            (
                format!("{data}/{{+rest}}"),
                arg("rest", "a/../../../x"),
                json!({}),
                "path.outside_root",
            ),
            (
                format!("{data}/{{name}}"),
                arg("other", "../../x"),
                json!({}),
                "path.outside_root",
            ),
            (
                format!("{data}/{{name}}"),
                arg("other", "sub"),
                json!({"more": "x.txt"}),
                "ok",
            ),
            (
                "https://example.com/{q}".to_owned(),
                arg("q", "ok"),
                json!({}),
                "ok",
            ),
            (
                "https://example.com/search{?q}".to_owned(),
                arg("q", "x"),
                json!({}),
                "ok",
            ),
        ] {
            let got = complete(template.clone(), argument.clone(), context.clone());
            if got != want {
                wrong.push(format!(
                    "{template} {argument} {context}: {got}, not {want}"
                ));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// `completion/complete` decides a template as each library a server
    /// may expand it with names its variables: the TypeScript SDK (`;` a
    /// name's, `v:3` a name, `*` and spaces taken off, an expression of
    /// several without its prefix), `str.replace` (the braces' text the
    /// name), and any other (each value given in each variable, whatever
    /// its name) (#20 attack s47, F5 and F6).
    #[test]
    fn a_completion_decides_the_template_as_each_library_names_it() {
        let (_t, base, g) = rooted("", crate::gate::RelativePaths::Refuse);
        std::fs::create_dir(base.join("data/sub")).unwrap();
        let data = format!("file://{}/data", base.display());
        let complete = |template: &str, params: Value| {
            let mut params = params;
            params["ref"] = json!({"type": "ref/resource", "uri": template});
            g.check_request("completion/complete", Some(&params))
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        let arg = |name: &str, value: &str| json!({"argument": {"name": name, "value": value}});
        let out = "path.outside_root";
        let up = "../../../../etc";
        let mut wrong = Vec::new();
        for (tail, params, want) in [
            // F5: the SDK's names.
            ("/{;v}", arg(";v", ".."), out),
            ("/{v:3}", arg("v:3", ".."), out),
            ("/{*v}", arg("v", ".."), out),
            ("/{ v}", arg("v", ".."), out),
            ("/{v }", arg("v", ".."), out),
            ("/{v**}", arg("v*", ".."), out),
            ("/{ *v\t}", arg("v", ".."), out),
            ("/{\u{feff}v}", arg("v", ".."), out),
            (
                "/{;v}",
                json!({"argument": {"name": "x", "value": "a"},
                       "context": {"arguments": {";v": ".."}}}),
                out,
            ),
            ("/{+ v}", arg("v", up), out),
            ("/{+v:3}", arg("v:3", up), out),
            ("/{+*v}", arg("v", up), out),
            ("/{#v:3}", arg("v:3", up), out),
            ("/{}", arg("undefined", ".."), out),
            ("/{ , }", arg("undefined", ".."), out),
            // F6: several names, no prefix.
            ("/{.x,y}", arg("y", ".."), out),
            ("{/x,y}", arg("y", "_sib"), out),
            ("{#x,y}", arg("y", "_sib"), out),
            ("{.x,y}", arg("y", "_sib"), out),
            ("/sub{/x,y}", arg("x", "/../.."), out),
            // `str.replace`: the braces' text the name.
            ("{/x}", arg("/x", "_sib"), out),
            ("{.x}", arg(".x", "_sib"), out),
            ("/{?x}", arg("?x", ".."), out),
            ("/{&x}", arg("&x", ".."), out),
            ("/{x*}", arg("x*", ".."), out),
            // Any other naming: a value in each variable, and in all.
            ("/{V}", arg("v", ".."), out),
            ("/{v%41}", arg("vA", ".."), out),
            ("/{a}{b}", arg("other", ".."), out),
            ("/{a}{a}", arg("other", "."), out),
            ("/{a}", json!({"argument": {"value": ".."}}), out),
            ("/{a}", json!({"context": {"arguments": {"zz": ".."}}}), out),
            (
                "{/v*}",
                json!({"context": {"arguments": {"v": ["..", ".."]}}}),
                out,
            ),
            ("/{a}", arg("other", "/etc"), out),
            // Passes.
            ("/{name}", arg("name", "notes.txt"), "ok"),
            ("/{;v}", arg(";v", "notes.txt"), "ok"),
            ("/{v:3}", arg("v:3", "abc"), "ok"),
            ("/{*v}", arg("v", "sub"), "ok"),
            ("/{ v}", arg("v", "notes.txt"), "ok"),
            ("/{+ v}", arg("v", "sub/a.txt"), "ok"),
            ("/{.x,y}", arg("y", "txt"), "ok"),
            ("/{name}", arg("name", "."), "ok"),
            ("/{name}.txt", arg("name", "notes"), "ok"),
            // (`dir` would be a relative path to the argument checks.)
            ("{/sect}{/name}", arg("sect", "sub"), "ok"),
            (
                "{/sect}{/name}",
                json!({"argument": {"name": "name", "value": "a.txt"},
                       "context": {"arguments": {"sect": "sub"}}}),
                "ok",
            ),
            ("/sub{/x,y}", arg("y", "a.txt"), "ok"),
            // `..` in both: R/sub/../.. to RFC 6570.
            ("/sub{/x,y}", arg("y", ".."), out),
            (
                "/{x}",
                json!({"context": {"arguments": {"x": 7, "y": null}}}),
                "ok",
            ),
        ] {
            let template = format!("{data}{tail}");
            let got = complete(&template, params.clone());
            if got != want {
                wrong.push(format!("{template} {params}: {got}, not {want}"));
            }
        }
        // Not a file: template: a value is no path.
        for (template, value) in [
            ("https://api.example.com/{id}", "42"),
            ("https://api.example.com/{id}", ".."),
            ("https://api.example.com/{id}", "../../x"),
            ("https://api.example.com/v{/a,b}", "_sib"),
            ("https://api.example.com/items{?q}", "a+b"),
        ] {
            let got = complete(template, arg("id", value));
            if got != "ok" {
                wrong.push(format!("{template} {value}: {got}"));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// A completion's values and expansions are bounded: more than
    /// [`MAX_SCANNED_STRINGS`] values or expansions, or an expansion with
    /// values longer than [`crate::net::MAX_URL_BYTES`], are refused.
    #[test]
    fn a_completion_is_decided_within_bounds() {
        let g = keeper("[tools]\n");
        let complete = |template: &str, context: Value, value: &str| {
            g.check_request(
                "completion/complete",
                Some(&json!({"ref": {"type": "ref/resource", "uri": template},
                             "argument": {"name": "a", "value": value},
                             "context": {"arguments": context}})),
            )
            .map(|_| "ok")
            .unwrap_or_else(|e| e.code())
        };
        let many = |n: usize| {
            Value::Object(
                (0..n)
                    .map(|i| (format!("k{i}"), json!(format!("v{i}"))))
                    .collect(),
            )
        };
        // Six readings of one variable (the `str.replace` one takes no
        // value anywhere): 7 + 18 per value, the argument's among them.
        let template = "https://api.example.com/{a}";
        assert_eq!(complete(template, many(908), "v"), "ok");
        assert_eq!(
            complete(template, many(909), "v"),
            "policy.arguments_too_complex"
        );
        // Values repeated count once.
        let same = Value::Object((0..2000).map(|i| (format!("k{i}"), json!("v"))).collect());
        assert_eq!(complete(template, same, "v"), "ok");
        assert_eq!(complete("https://api.example.com/x", many(2000), "v"), "ok");
        let given = json!({"argument": {"name": "a", "value": "v"},
                           "context": {"arguments": many(MAX_SCANNED_STRINGS)}});
        let given = Given::new(given.as_object());
        assert_eq!(
            given.values().map_err(|e| e.code()).err(),
            Some("policy.arguments_too_complex")
        );
        let given = json!({"argument": {"name": "a", "value": "v"},
                           "context": {"arguments": many(MAX_SCANNED_STRINGS - 1)}});
        assert_eq!(
            Given::new(given.as_object()).values().map(|v| v.len()).ok(),
            Some(MAX_SCANNED_STRINGS)
        );
        let room = crate::net::MAX_URL_BYTES - template.len() + 3;
        assert_eq!(complete(template, json!({}), &"a".repeat(room)), "ok");
        assert_eq!(
            complete(template, json!({}), &"a".repeat(room + 1)),
            "policy.arguments_too_complex"
        );
    }

    /// [`expansion`] under each naming, exactly.
    #[test]
    fn expansions_under_each_naming() {
        let pairs = [
            ("v", "V"),
            (";v", "S"),
            ("v:3", "P"),
            ("v*", "T"),
            ("x", "X"),
            ("y", "Y"),
            ("undefined", "U"),
            ("/x", "L"),
            ("v\u{85}", "N"),
            ("w", "é..z"),
        ];
        let params = json!({"context": {"arguments": pairs
            .iter()
            .map(|(n, v)| (n.to_string(), json!(v)))
            .collect::<serde_json::Map<String, Value>>()}});
        let named = Given::new(params.as_object());
        let reading = |naming, undefined_empty, prefix| Expansion {
            naming,
            undefined_empty,
            prefix,
        };
        let rfc = reading(Naming::Rfc6570, true, false);
        let rfc_prefix = reading(Naming::Rfc6570, true, true);
        let sdk = reading(Naming::TsSdk, true, false);
        let sdk_x = reading(Naming::TsSdk, false, false);
        let literal = reading(Naming::Literal, true, false);
        let mut wrong = Vec::new();
        for (template, fill, reading, want) in [
            ("r/{;v}", Fill::Named(&named), sdk, "r/S"),
            ("r/{;v}", Fill::Named(&named), rfc, "r/;v=V"),
            ("r/{;v}", Fill::Named(&named), literal, "r/S"),
            ("r/{v:3}", Fill::Named(&named), sdk, "r/P"),
            ("r/{v:3}", Fill::Named(&named), rfc, "r/V"),
            ("r/{w:2}", Fill::Named(&named), rfc_prefix, "r/é."),
            ("r/{w:9}", Fill::Named(&named), rfc_prefix, "r/é..z"),
            ("r/{w:2}", Fill::Named(&named), sdk, "r/"),
            ("r/{*v}", Fill::Named(&named), sdk, "r/V"),
            ("r/{v**}", Fill::Named(&named), sdk, "r/T"),
            ("r/{ v\t}", Fill::Named(&named), sdk, "r/V"),
            ("r/{\u{feff}v\u{2028}}", Fill::Named(&named), sdk, "r/V"),
            ("r/{v\u{85}}", Fill::Named(&named), sdk, "r/N"),
            ("r/{}", Fill::Named(&named), sdk, "r/U"),
            ("r/{+}", Fill::Named(&named), sdk, "r/U"),
            ("r{/x,y}", Fill::Named(&named), sdk, "rX,Y"),
            ("r{/x,y}", Fill::Named(&named), rfc, "r/X/Y"),
            ("r{/z,y}", Fill::Named(&named), sdk, "rY"),
            ("r{/z,q}", Fill::Named(&named), sdk, "r"),
            ("r{/z,q}", Fill::Named(&named), sdk_x, "rx,x"),
            ("r{/x,}", Fill::Named(&named), sdk, "r/X"),
            (
                "r{#x}{.x}{/x}{+x}{x}",
                Fill::Named(&named),
                sdk,
                "r#X.X/XXX",
            ),
            ("r{?x,q}{&y}{?v}", Fill::Named(&named), sdk, "r?x=X&y=Y&v=V"),
            ("r{&x}{?q}", Fill::Named(&named), sdk, "r&x=X"),
            ("r{?q}{?x}", Fill::Named(&named), sdk, "r?x=X"),
            ("r{?q}", Fill::Named(&named), sdk_x, "r?q=x"),
            ("r{?}", Fill::Named(&named), sdk, "r"),
            ("r{/x}", Fill::Named(&named), literal, "rL"),
            ("r{/q}", Fill::Named(&named), literal, "r"),
            ("r/{a}{b}", Fill::Every("E"), rfc, "r/EE"),
            ("r/{a}{b,c}", Fill::One(1, "E", None), rfc, "r/E"),
            ("r/{a}{b,c}", Fill::One(2, "E", None), rfc, "r/E"),
            ("r/{x}{y,c}", Fill::One(1, "E", Some(&named)), rfc, "r/XE"),
            ("r/{x}{y,c}", Fill::One(2, "E", Some(&named)), rfc, "r/XY,E"),
            (
                "r/{a}{b,c}",
                Fill::One(2, "E", None),
                reading(Naming::Rfc6570, false, false),
                "r/xx,E",
            ),
            ("r/{a}{/b,c}", Fill::One(2, "E", None), sdk, "r/E"),
            ("r/{a}{b,c}", Fill::One(3, "E", None), rfc, "r/"),
            (
                "r/{a}{b}",
                Fill::Nothing,
                reading(Naming::Rfc6570, false, false),
                "r/xx",
            ),
        ] {
            match expansion(&format!("u:{template}"), fill, reading) {
                Ok(got) if got == format!("u:{want}") => {}
                got => wrong.push(format!("{template} {reading:?}: {got:?}, not {want}")),
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
        let long = format!("u:r/{}{{a}}", "b".repeat(crate::net::MAX_URL_BYTES));
        assert!(expansion(&long, Fill::Nothing, sdk).is_ok());
        assert_eq!(
            expansion(&long, Fill::Every(""), sdk).map_err(|e| e.code()),
            Err("policy.arguments_too_complex")
        );
        assert!(!js_space('\u{85}'));
        let count =
            |template: &str, naming| template_parts(template, naming).map(|p| variable_count(&p));
        assert_eq!(count("u:r/{a}{b,c}{}x", Naming::Rfc6570).ok(), Some(4));
        assert_eq!(count("u:r/{a}{b,c}{}{?}", Naming::TsSdk).ok(), Some(4));
        assert_eq!(count("u:r/{a}{b,c}", Naming::Literal).ok(), Some(2));
        assert_eq!(count("u:r/", Naming::TsSdk).ok(), Some(0));
        assert!(js_space('\u{feff}') && js_space(' ') && js_space('\u{3000}'));
        assert_eq!(after_file_scheme("FiLe:/x"), Some("/x"));
        assert_eq!(after_file_scheme("files:/x"), None);
        assert_eq!(after_file_scheme("file"), None);
    }

    /// A `file:` URI is decided as the URL parser reads it and as written:
    /// `R/sub//../..` names R's parent to a server that hands the URL's
    /// path to the system, R to one that parses it (#20 attack s46b, F4).
    #[test]
    fn a_file_uri_is_decided_as_written_too() {
        let (_t, base, g) = rooted("", crate::gate::RelativePaths::Refuse);
        std::fs::create_dir(base.join("data/sub")).unwrap();
        let read = |uri: &str| {
            g.resource_decision("resources/read", uri)
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        let data = format!("{}/data", base.display());
        for (uri, want) in [
            (format!("file://{data}//.."), "path.outside_root"),
            (format!("file://{data}/sub//../.."), "path.outside_root"),
            (
                format!("file://localhost{data}/sub//../.."),
                "path.outside_root",
            ),
            (format!("FILE:{data}/sub//../.."), "path.outside_root"),
            (format!("file:{data}/sub//%2e%2e/.."), "path.outside_root"),
            (format!("file://{data}/sub/../.."), "path.outside_root"),
            (format!("file://{data}//a.txt"), "ok"),
            (format!("file://{data}/sub//.."), "ok"),
            (format!("file://{data}/sub/a%20b.txt"), "ok"),
            (format!("file://localhost{data}/a.txt"), "ok"),
            (format!("file:{data}/a.txt"), "ok"),
        ] {
            assert_eq!(read(&uri), want, "{uri}");
        }
        for (uri, written) in [
            ("file:///r//x", "/r//x"),
            ("File://host/r/x", "/r/x"),
            ("file://host", ""),
            ("file:/r/x", "/r/x"),
            ("file:r/x", "r/x"),
            ("/r/x", "/r/x"),
            ("/data//x", "/data//x"),
            ("https://h/x", "https://h/x"),
            ("fil", "fil"),
        ] {
            assert_eq!(written_file_path(uri), written, "{uri}");
        }
    }

    /// A resource URI without a scheme is a path to the server (#20 attack
    /// pass, F5).
    #[test]
    fn a_resource_uri_without_a_scheme_is_a_path() {
        let (_t, base, g) = rooted("", crate::gate::RelativePaths::Refuse);
        let read = |uri: &str| {
            g.resource_decision("resources/read", uri)
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        assert_eq!(read("/etc/passwd"), "path.outside_root");
        assert_eq!(read("../secret.txt"), "path.outside_root");
        assert_eq!(read(" a.txt"), "path.outside_root");
        let inside = base.join("data/a.txt");
        assert_eq!(read(&inside.to_string_lossy()), "ok");
        assert_eq!(read("//127.0.0.1/x"), "path.outside_root");
        assert_eq!(read("https://example.com/x"), "ok");
        // A one-letter scheme or a drive: a URL parser hands the server
        // the path after it (#20 re-attack, F4).
        for uri in [
            "a:/etc/passwd",
            "C:",
            "z:/",
            "x:..",
            "A:\\Windows",
            "b:../secret.txt",
        ] {
            assert_eq!(read(uri), "path.outside_root", "{uri}");
        }
        assert_eq!(
            read(&format!("a:{}", inside.display())),
            "path.outside_root",
            "relative as written"
        );
        let (_t2, base2, cwd) = rooted("", crate::gate::RelativePaths::Cwd);
        let inside2 = base2.join("data/a.txt");
        let read_cwd = |uri: &str| {
            cwd.resource_decision("resources/read", uri)
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        assert_eq!(read_cwd("data/a.txt"), "ok");
        assert_eq!(
            read_cwd("a:/etc/passwd"),
            "path.outside_root",
            "each reading"
        );
        assert_eq!(
            read_cwd(&format!("c:{}", inside2.display())),
            "path.outside_root"
        );
        assert_eq!(
            code(&g, "t", json!({"uri": "a:/etc/passwd"})),
            "path.outside_root"
        );
        assert_eq!(
            code(&g, "t", json!({"path": "c:/etc/passwd"})),
            "path.outside_root"
        );
        assert_eq!(code(&g, "t", json!({"uri": "Q: why?"})), "ok", "prose");
        assert_eq!(
            keeper("")
                .resource_decision("resources/read", "/etc/passwd")
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code()),
            "ok"
        );
    }

    #[test]
    fn tool_decisions() {
        let g = keeper("[tools]\nallow = [\"read_*\", \"list\"]\ndeny = [\"read_secret*\"]\n");
        let d = |n: &str| {
            g.tool_decision(n, &ToolView::default(), None)
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        // Deny in any case, allow only as written.
        assert_eq!(d("READ_SECRET_KEY"), "policy.tool_denied");
        assert_eq!(d("Read_Secret"), "policy.tool_denied");
        assert_eq!(d("READ_FILE"), "policy.tool_denied");
        assert_eq!(d("read_file"), "ok");
        assert_eq!(d("list"), "ok");
        assert_eq!(d("write_file"), "policy.tool_denied");
        assert_eq!(d("read_secrets"), "policy.tool_denied");
        assert_eq!(d("read_\u{200B}file"), "tool.poisoned");
        let deny = g
            .tool_decision("read_secrets", &ToolView::default(), None)
            .unwrap_err();
        assert_eq!(deny.rule(), "tools.deny \"read_secret*\"");
    }

    /// A deny glob holds against every name whose case fold or NFKC form
    /// is a denied one (dotless ı, long s, the Kelvin sign, capital sharp
    /// s, fullwidth letters, ligatures), in tool and prompt names and the
    /// tool globs of rules (#20 re-attack, N8).
    #[test]
    fn deny_globs_hold_against_folded_names() {
        let g = keeper(
            "[tools]\ndeny = [\"write_*\", \"secret\", \"kill\", \"strasse\", \"file_*\"]\n[prompts]\ndeny = [\"fetch\"]\n\n[[args]]\ntool = \"fetch\"\npointer = \"/u\"\nkind = \"path\"\n",
        );
        let tool = |n: &str| {
            g.tool_decision(n, &ToolView::default(), None)
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        for name in [
            "wr\u{131}te_file",
            "WR\u{130}TE_FILE",
            "\u{ff57}\u{ff52}\u{ff49}\u{ff54}\u{ff45}_file",
            "\u{17f}ecret",
            "SECRET",
            "\u{212a}ill",
            "stra\u{df}e",
            "STRA\u{1e9e}E",
            "\u{fb01}le_x",
        ] {
            assert_eq!(tool(name), "policy.tool_denied", "{name:?}");
        }
        for name in ["read_file", "secrets", "kil", "writ"] {
            assert_eq!(tool(name), "ok", "{name}");
        }
        for name in ["FETCH", "\u{ff46}etch", "fetc\u{210e}"] {
            assert_eq!(
                g.prompt_decision(name).map_err(|e| e.code()),
                Err("policy.prompt_denied"),
                "{name:?}"
            );
        }
        // A rule's tool glob applies to the folded name too.
        for name in ["fetch", "FETCH", "\u{ff46}etch"] {
            assert_eq!(
                code(&g, name, json!({"u": "a.txt"})),
                "path.outside_root",
                "{name:?}"
            );
        }
        assert_eq!(code(&g, "other", json!({"u": "a.txt"})), "ok");
    }

    #[test]
    fn pins_and_poison() {
        let mut pins = Pins::default();
        pins.insert("a".into(), "h1".into());
        let g = Gatekeeper {
            poison: PoisonMode::Refuse,
            ..Gatekeeper::default()
        };
        let st = |h: &str, p| ToolState {
            colliding: false,
            conflicting: false,
            hash: h.into(),
            poisoned: p,
        };
        let d = |n: &str, c: Option<&ToolState>| {
            g.decide_one(n, c, Some(&pins))
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        assert_eq!(d("a", Some(&st("h1", false))), "ok");
        assert_eq!(d("a", Some(&st("h2", false))), "tool.definition_changed");
        assert_eq!(d("a", None), "tool.not_listed");
        assert_eq!(d("b", Some(&st("h1", false))), "tool.not_pinned");
        assert_eq!(d("a", Some(&st("h1", true))), "tool.poisoned");
    }

    #[test]
    fn representative_expansions() {
        let e = |t: &str| representative_expansion(t).map_err(|r| r.code());
        assert_eq!(e("https://h/{a}/b{+c}"), Ok("https://h/x/bx".to_owned()));
        assert_eq!(
            e("file:///r{/p}{.ext}{?q,r}{&s}{;t}{#f}"),
            Ok("file:///r/x.x?q=x&r=x&s=x;t=x#x".to_owned())
        );
        // With values: as written, each operator's prefix and separator.
        let values: serde_json::Map<String, Value> =
            ["p", "e", "q", "r", "s", "t", "f", "g", "h", "k"]
                .iter()
                .map(|n| (n.to_string(), json!(format!("<{n}>"))))
                .collect();
        let params = json!({"context": {"arguments": values}});
        let given = Given::new(params.as_object());
        assert_eq!(
            expansion(
                "file:///r{/p,none}{.e}{?q,r}{&s}{;t}{#f}{+g}{h*}{k:3}",
                Fill::Named(&given),
                Expansion::PLACEHOLDER
            )
            .map_err(|r| r.code()),
            Ok("file:///r/<p>/x.<e>?q=<q>&r=<r>&s=<s>;t=<t>#<f><g><h><k>".to_owned())
        );
        for host_variable in [
            "{scheme}://169.254.169.254/latest",
            "http://127.0.0.{n}/",
            "http://{host}/",
            "http://h{.tld}/",
            "http://h{;p}/",
            "demo://h{&a}",
            "http://u:{p}@h/",
            "{+base}/x",
        ] {
            assert_eq!(
                e(host_variable),
                Err("tool.bad_response"),
                "{host_variable}"
            );
        }
        assert_eq!(e("file:///etc/{name}"), Ok("file:///etc/x".to_owned()));
        // An expression whose expansion starts a path, query or fragment
        // right after the host is no part of it (verification of s67: such
        // templates were hidden).
        for (template, expanded) in [
            ("demo://fixed{?h}", "demo://fixed?h=x"),
            ("demo://seg{/parts*}", "demo://seg/x"),
            ("demo://h{#f}", "demo://h#x"),
            ("http://169.254.169.254{/path}", "http://169.254.169.254/x"),
        ] {
            assert_eq!(e(template), Ok(expanded.to_owned()), "{template}");
        }
        assert_eq!(e(""), Ok(String::new()));
        for bad in ["{", "a{b", "}", "a}b", "{{a}}", "{a{b}}"] {
            assert_eq!(e(bad), Err("tool.bad_response"), "{bad}");
        }
    }

    #[test]
    fn templates_hidden_by_their_fixed_parts() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        let mut g = keeper("[tools]\n");
        g.roots = Some(
            Roots::new(
                std::slice::from_ref(&root),
                root.clone(),
                None,
                crate::gate::RelativePaths::Cwd,
                crate::gate::TildePaths::Refuse,
                crate::gate::VariablePaths::Refuse,
            )
            .unwrap(),
        );
        let inside = format!("file://{}/{{name}}", root.display());
        let operator = format!("file://{}{{/p}}", root.display());
        let mut page = json!({"resourceTemplates": [
            {"uriTemplate": "https://example.com/{p}"},
            {"uriTemplate": "http://169.254.169.254/{+k}"},
            {"uriTemplate": "http://{host}/"},
            {"uriTemplate": "file:///etc/{name}"},
            {"uriTemplate": inside},
            {"uriTemplate": operator},
            {"uriTemplate": "gopher://h/{x}"},
            {"uriTemplate": "https://e/{x"},
            {"name": "no template"},
        ]});
        let hidden = g.filter_list_page("resources/templates/list", &mut page);
        let shown: Vec<&str> = page["resourceTemplates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["uriTemplate"].as_str().unwrap())
            .collect();
        assert_eq!(
            shown,
            vec![
                "https://example.com/{p}",
                inside.as_str(),
                operator.as_str()
            ]
        );
        // `http://{host}/` too: its host is not fixed. Each by its
        // template (s59, K12-B), none for the entry without one.
        let named: Vec<Option<&str>> = hidden.iter().map(|(t, _)| t.as_deref()).collect();
        assert_eq!(
            named,
            vec![
                Some("http://169.254.169.254/{+k}"),
                Some("http://{host}/"),
                Some("file:///etc/{name}"),
                Some("gopher://h/{x}"),
                Some("https://e/{x"),
                None
            ]
        );
        let mut page = json!({"prompts": [{"name": "p"}, {"title": "no name"}],
            "resources": [{"uri": "https://example.com/"}, {"name": "no uri"}]});
        assert_eq!(g.filter_list_page("prompts/list", &mut page).len(), 1);
        assert_eq!(g.filter_list_page("resources/list", &mut page).len(), 1);
        assert_eq!(
            page,
            json!({"prompts": [{"name": "p"}], "resources": [{"uri": "https://example.com/"}]})
        );
    }

    /// `c` written in a JSON string literal: as it is (escaped where it must
    /// be), as `\uXXXX` (a surrogate pair past the BMP), or with its short
    /// escape if it has one (else `\uXXXX` in capitals).
    fn spell(c: char, form: usize) -> String {
        let units = |upper: bool| -> String {
            c.encode_utf16(&mut [0; 2])
                .iter()
                .map(|u| match upper {
                    true => format!("\\u{u:04X}"),
                    false => format!("\\u{u:04x}"),
                })
                .collect()
        };
        let short = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '/' => Some("\\/"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            _ => None,
        };
        match (form, short) {
            (0, _) if c != '"' && c != '\\' => c.to_string(),
            (2, Some(s)) => s.to_owned(),
            (2, None) => units(true),
            _ => units(false),
        }
    }

    /// The decision the core makes for `addr` as a URL's host: `ok` when
    /// public, else the core's code.
    fn core_code(addr: std::net::IpAddr) -> String {
        let host = match addr {
            std::net::IpAddr::V4(a) => a.to_string(),
            std::net::IpAddr::V6(a) => format!("[{a}]"),
        };
        match crate::net::classify_url(&format!("http://{host}/")) {
            Ok(_) => "ok".to_owned(),
            Err(d) => d.kind().as_str().to_owned(),
        }
    }

    /// JSON values with any strings and keys, nested a few levels.
    fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            any::<String>().prop_map(Value::String),
            any::<i64>().prop_map(|n| json!(n)),
            Just(Value::Null),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map(any::<String>(), inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::default())]

        /// Exact oracle (#20 attack s78-A, FP1): an array or object written
        /// by a JSON encoder is one collection whatever its strings hold
        /// (brackets, quotes, `//`); a text whose first bracket closes a
        /// TOML or INI header is not, whatever follows it.
        #[test]
        fn one_collection_is_where_the_first_bracket_closes_last(
            v in any_json(),
            header in "[a-zA-Z][a-zA-Z0-9._-]{0,12}",
            tail in proptest::prelude::any::<String>(),
        ) {
            if v.is_array() || v.is_object() {
                let text = serde_json::to_string(&v).unwrap();
                proptest::prop_assert!(one_collection(&text), "{}", text);
                let pretty = serde_json::to_string_pretty(&v).unwrap();
                proptest::prop_assert!(one_collection(&pretty), "{}", pretty);
            }
            let toml = format!("[{header}]\nkey = {tail}]");
            proptest::prop_assert!(!one_collection(&toml), "{}", toml);
        }

        /// Exact oracle (#20 attack s46, F1): under a host-named key, an
        /// IPv6 address written bare, and an IPv4 address written as one
        /// decimal number, are decided as the core decides that address
        /// in a URL, with or without `--resolve`.
        #[test]
        fn a_host_named_address_is_decided_as_the_core_decides_it(
            v6 in proptest::prelude::any::<u128>(),
            v4 in proptest::prelude::any::<u32>(),
            mapped in proptest::prelude::any::<bool>(),
            resolve in proptest::prelude::any::<bool>(),
        ) {
            let g = keeper(if resolve { "[net]\nresolve = true\n" } else { "" });
            // Every IPv6 block matters, IPv4-mapped ones in particular.
            let v6 = if mapped {
                std::net::Ipv4Addr::from(v4).to_ipv6_mapped()
            } else {
                std::net::Ipv6Addr::from(v6)
            };
            let addr = std::net::IpAddr::V6(v6);
            proptest::prop_assert_eq!(
                code(&g, "t", json!({"host": v6.to_string()})),
                core_code(addr)
            );
            let four = std::net::IpAddr::V4(std::net::Ipv4Addr::from(v4));
            proptest::prop_assert_eq!(
                code(&g, "t", json!({"target_host": v4.to_string()})),
                core_code(four)
            );
        }

        /// A literal spelling a known text with any mix of raw characters
        /// and escapes, lone surrogates put between its characters, reads
        /// as that text (the lone surrogates dropped) and, when they part
        /// it, as each part on its own (#20 mend).
        #[test]
        fn string_literals_read_what_was_spelled(
            text in proptest::collection::vec(proptest::prelude::any::<char>(), 0..16),
            forms in proptest::collection::vec(0..3_usize, 16),
            lone in proptest::collection::vec(
                proptest::option::of(proptest::sample::select(vec![0xd800_u16, 0xdbff, 0xdc00, 0xdfff])),
                17,
            ),
        ) {
            let mut literal = String::new();
            let mut parts = vec![String::new()];
            for (i, slot) in lone.iter().enumerate().take(text.len() + 1) {
                if let Some(u) = slot {
                    literal.push_str(&format!("\\u{u:04x}"));
                    parts.push(String::new());
                }
                if let Some(&c) = text.get(i) {
                    literal.push_str(&spell(c, forms[i]));
                    parts.last_mut().unwrap().push(c);
                }
            }
            parts.retain(|p| !p.is_empty());
            let mut want = vec![text.iter().collect::<String>()];
            if parts.len() > 1 {
                want.extend(parts);
            }
            let t = format!("[x] \"{literal}\" said");
            proptest::prop_assert_eq!(string_literals(&t), want, "{}", t);
        }
    }
}
