//! The one decision function: whether a tool exists for the client
//! ([`Gatekeeper::tool_decision`], used both to filter `tools/list` and to
//! refuse `tools/call`), and whether a call's arguments may reach the child
//! ([`Gatekeeper::check_arguments`]).

use serde_json::Value;

use super::code::{GateCode, Refusal};
use super::paths::{is_path_name, Roots};
use super::pin::Pins;
use super::poison::{self, PoisonMode};
use super::policy::{ArgKind, ArgRule, Policy};
use super::urls::{looks_like_url, vet_url, PendingName};

/// Most strings of one call's `arguments` the gateway inspects; a call with
/// more is refused (`policy.arguments_too_complex`) rather than half-checked.
pub const MAX_SCANNED_STRINGS: usize = 16_384;

/// What the gateway last saw of a tool's definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolState {
    /// [`super::pin::definition_hash`] of the whole definition as the child sent it.
    pub hash: String,
    /// `true` when a string of the definition (its name aside) carries
    /// invisible or deceptive characters.
    pub poisoned: bool,
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
    /// May tool `name` be shown and called? `current` is what the gateway
    /// saw of its definition in the child's latest listing; `pins` is the
    /// pin set under `--pin`.
    ///
    /// # Errors
    /// `tool.poisoned` (a name with hidden characters, or a poisoned
    /// definition under `--poison refuse`), `policy.tool_denied`, and under
    /// `--pin`: `tool.not_listed`, `tool.not_pinned`, `tool.definition_changed`.
    pub fn tool_decision(
        &self,
        name: &str,
        current: Option<&ToolState>,
        pins: Option<&Pins>,
    ) -> Result<(), Refusal> {
        let (found, _) = poison::clean(name);
        if !found.is_clean() {
            return Err(Refusal::new(
                GateCode::Poisoned,
                format!("the tool name carries {}", found.summary()),
                "builtin poison check (names)",
            ));
        }
        if let Some(g) = self.policy.tools_deny.first_match(name) {
            return Err(Refusal::new(
                GateCode::ToolDenied,
                format!("tool `{name}` is denied by the policy"),
                format!("tools.deny \"{g}\""),
            ));
        }
        if let Some(allow) = &self.policy.tools_allow {
            if allow.first_match(name).is_none() {
                return Err(Refusal::new(
                    GateCode::ToolDenied,
                    format!("tool `{name}` is not in the policy's allow list"),
                    "tools.allow",
                ));
            }
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

    /// The whole decision on a `tools/call`: [`Gatekeeper::tool_decision`]
    /// (the same one that filters `tools/list`), then
    /// [`Gatekeeper::check_arguments`].
    ///
    /// # Errors
    /// The first refusal.
    pub fn check_call(
        &self,
        name: &str,
        current: Option<&ToolState>,
        pins: Option<&Pins>,
        args: &Value,
    ) -> Result<Vec<PendingName>, Refusal> {
        self.tool_decision(name, current, pins)?;
        self.check_arguments(name, args)
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
            let Some(v) = args.pointer(&rule.pointer) else {
                continue;
            };
            exempt.push(v);
            self.apply_rule(rule, v, &mut names, &mut budget)?;
        }
        // Generic walk: (value, `true` when it is the value of a path-named key
        // or an element of such an array).
        let mut stack: Vec<(&Value, bool)> = vec![(args, false)];
        while let Some((v, pathy)) = stack.pop() {
            if exempt.iter().any(|e| std::ptr::eq(*e, v)) {
                continue;
            }
            match v {
                Value::String(s) => {
                    spend(&mut budget)?;
                    // One value, both readings: a path-named argument that
                    // looks like a URL gets the URL check and the path check.
                    if looks_like_url(s) {
                        if let Some(n) = vet_url(&self.policy.net, s, URL_RULE)? {
                            names.push(n);
                        }
                    }
                    if pathy {
                        if let Some(roots) = &self.roots {
                            roots.check(s, "builtin path check (by argument name)")?;
                        }
                    }
                }
                Value::Array(a) => stack.extend(a.iter().map(|e| (e, pathy && !e.is_object()))),
                Value::Object(m) => stack.extend(m.iter().map(|(k, v)| (v, is_path_name(k)))),
                _ => {}
            }
        }
        Ok(names)
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
        if rule.kind == ArgKind::Text {
            return Ok(());
        }
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
        for s in strings {
            spend(budget)?;
            match rule.kind {
                ArgKind::Url => {
                    if let Some(n) = vet_url(&self.policy.net, s, &rule.label())? {
                        names.push(n);
                    }
                }
                ArgKind::Path => {
                    if looks_like_url(s) {
                        if let Some(n) = vet_url(&self.policy.net, s, &rule.label())? {
                            names.push(n);
                        }
                    }
                    match &self.roots {
                        Some(r) => r.check(s, &rule.label())?,
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
        }
        Ok(())
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::PathBuf;

    fn keeper(policy: &str) -> Gatekeeper {
        Gatekeeper {
            policy: Policy::parse(policy).unwrap(),
            ..Gatekeeper::default()
        }
    }

    fn code(g: &Gatekeeper, tool: &str, args: Value) -> &'static str {
        g.check_arguments(tool, &args)
            .map(|_| "ok")
            .unwrap_or_else(|e| e.code())
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
        let many: Vec<Value> = (0..=MAX_SCANNED_STRINGS).map(|_| json!("x")).collect();
        assert_eq!(
            code(&g, "t", json!({ "a": many })),
            "policy.arguments_too_complex"
        );
    }

    #[test]
    fn resolve_names_collected() {
        let g = keeper("");
        let n = g
            .check_arguments(
                "t",
                &json!({"u": "https://a.example/", "v": ["http://b.example:81/"]}),
            )
            .unwrap();
        let mut hosts: Vec<_> = n.iter().map(|p| (p.host(), p.port())).collect();
        hosts.sort();
        assert_eq!(hosts, vec![("a.example", 443), ("b.example", 81)]);
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
    }

    #[test]
    fn path_arguments() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("data")).unwrap();
        let g = Gatekeeper {
            roots: Some(
                Roots::new(
                    &[PathBuf::from("data")],
                    base.clone(),
                    None,
                    crate::gate::RelativePaths::Cwd,
                    crate::gate::TildePaths::Refuse,
                )
                .unwrap(),
            ),
            ..keeper("[[args]]\ntool = \"x\"\npointer = \"/opts/target\"\nkind = \"path\"\n")
        };
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
    }

    #[test]
    fn tool_decisions() {
        let g = keeper("[tools]\nallow = [\"read_*\", \"list\"]\ndeny = [\"read_secret*\"]\n");
        let d = |n: &str| {
            g.tool_decision(n, None, None)
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        assert_eq!(d("read_file"), "ok");
        assert_eq!(d("list"), "ok");
        assert_eq!(d("write_file"), "policy.tool_denied");
        assert_eq!(d("read_secrets"), "policy.tool_denied");
        assert_eq!(d("read_\u{200B}file"), "tool.poisoned");
        let deny = g.tool_decision("read_secrets", None, None).unwrap_err();
        assert_eq!(deny.rule(), "tools.deny \"read_secret*\"");
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
            hash: h.into(),
            poisoned: p,
        };
        let d = |n: &str, c: Option<&ToolState>| {
            g.tool_decision(n, c, Some(&pins))
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        assert_eq!(d("a", Some(&st("h1", false))), "ok");
        assert_eq!(d("a", Some(&st("h2", false))), "tool.definition_changed");
        assert_eq!(d("a", None), "tool.not_listed");
        assert_eq!(d("b", Some(&st("h1", false))), "tool.not_pinned");
        assert_eq!(d("a", Some(&st("h1", true))), "tool.poisoned");
    }
}
