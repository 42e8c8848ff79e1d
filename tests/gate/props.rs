//! Properties of the policy layer.
use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{json, Value};
use toolgate::gate::{
    fold_name, tool_state, Gatekeeper, PageAsked, Pins, PoisonMode, Policy, ToolView,
};

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/gate.txt",
        ))),
        ..ProptestConfig::default()
    }
}

fn name() -> impl Strategy<Value = String> {
    "[ab_/]{1,4}"
}

fn glob() -> impl Strategy<Value = String> {
    "[ab_*?]{1,4}"
}

#[derive(Debug, Clone)]
struct Tool {
    name: String,
    poisoned_description: bool,
    poisoned_name: bool,
    version: u8,
}

fn tool() -> impl Strategy<Value = Tool> {
    (name(), any::<bool>(), prop::bool::weighted(0.1), 0u8..3).prop_map(
        |(name, poisoned_description, poisoned_name, version)| Tool {
            name,
            poisoned_description,
            poisoned_name,
            version,
        },
    )
}

impl Tool {
    fn name(&self) -> String {
        if self.poisoned_name {
            format!("{}\u{200B}", self.name)
        } else {
            self.name.clone()
        }
    }
    fn def(&self) -> Value {
        let d = if self.poisoned_description {
            "Reads.\u{E0049}"
        } else {
            "Reads."
        };
        json!({"name": self.name(), "description": d, "inputSchema": {"type": "object", "v": self.version}})
    }
}

fn policy_text(allow: &Option<Vec<String>>, deny: &[String]) -> String {
    let list = |v: &[String]| {
        v.iter()
            .map(|g| format!("{g:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut s = String::from("[tools]\n");
    if let Some(a) = allow {
        s.push_str(&format!("allow = [{}]\n", list(a)));
    }
    s.push_str(&format!("deny = [{}]\n", list(deny)));
    s
}

fn mode() -> impl Strategy<Value = PoisonMode> {
    prop_oneof![
        Just(PoisonMode::Keep),
        Just(PoisonMode::Strip),
        Just(PoisonMode::Refuse)
    ]
}

/// Argument strings: refused URLs, allowed URLs and text.
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just("http://127.0.0.1/x"),
        Just("//169.254.169.254/latest"),
        Just("gopher://example.com/"),
        Just("https://example.com/x"),
        Just("Re: minutes"),
        Just("[draft] {x}"),
        Just("plain"),
    ]
    .prop_map(|s| Value::String(s.to_owned()))
}

proptest! {
    #![proptest_config(config())]

    /// Nothing hidden from a listing is callable under a name a server
    /// that folds names reads as it: for tools named in any case,
    /// fullwidth or not, every name folding as a hidden tool's is refused,
    /// and the tools shown are exactly the tools callable (#20 attack s52
    /// A18).
    #[test]
    fn tools_hidden_are_refused_under_folded_names(
        tools in prop::collection::vec(
            ("[aA\u{FF41}b\u{FF22}]{1,2}", any::<bool>(), prop::bool::weighted(0.2), 0u8..2),
            0..8,
        ),
        poison in mode(),
        probes in prop::collection::vec("[aA\u{FF41}\u{FF21}bB]{1,2}", 0..6),
    ) {
        let g = Gatekeeper { policy: Policy::default(), roots: None, poison };
        let tools: Vec<Tool> = tools
            .into_iter()
            .map(|(name, poisoned_description, poisoned_name, version)| Tool {
                name,
                poisoned_description,
                // A name hidden for its own hidden character (attack s70-A):
                // its twins fold as it does once that is dropped.
                poisoned_name,
                version,
            })
            .collect();
        let defs: Vec<Value> = tools.iter().map(Tool::def).collect();
        let mut view = ToolView::default();
        let listing = view.listing_for(PageAsked::First);
        let mut page = json!({"tools": defs});
        g.filter_tools_page(listing, &mut page, &mut view, None);
        let shown: BTreeSet<String> = page["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect();
        let listed: BTreeSet<String> = tools.iter().map(Tool::name).collect();
        for n in listed.iter().cloned().chain(probes) {
            let callable = g.check_call(&n, &view, None, &json!({})).is_ok();
            if listed.contains(&n) {
                prop_assert_eq!(shown.contains(&n), callable, "tool {:?}", n);
            }
            if callable {
                for t in listed.iter().filter(|t| fold_name(t) == fold_name(&n)) {
                    prop_assert!(shown.contains(t), "{:?} callable, its twin {:?} hidden", n, t);
                }
            }
        }
    }

    /// The tools a listing shows are exactly the tools `tools/call` lets
    /// through, for generated policies, tool sets, pins and poison modes.
    #[test]
    fn tools_shown_are_tools_callable(
        allow in prop::option::of(prop::collection::vec(glob(), 0..4)),
        deny in prop::collection::vec(glob(), 0..3),
        tools in prop::collection::vec(tool(), 0..12),
        pinned in prop::option::of(prop::collection::vec((name(), 0u8..3), 0..8)),
        poison in mode(),
        probes in prop::collection::vec(name(), 0..6),
        split in 0usize..13,
    ) {
        let policy = Policy::parse(&policy_text(&allow, &deny)).unwrap();
        let g = Gatekeeper { policy, roots: None, poison };
        let pins = pinned.map(|list| {
            let mut p = Pins::default();
            for (n, v) in list {
                let t = Tool { name: n, poisoned_description: false, poisoned_name: false, version: v };
                p.insert(t.name(), tool_state(&t.def()).hash);
            }
            p
        });
        // One listing in two pages (the cut anywhere, an empty page included):
        // a name defined on both pages is decided as one defined twice on one.
        let defs: Vec<Value> = tools.iter().map(Tool::def).collect();
        let cut = split.min(defs.len());
        let mut view = ToolView::default();
        let listing = view.listing_for(PageAsked::First);
        let mut shown = BTreeSet::new();
        let mut text = String::new();
        for part in [&defs[..cut], &defs[cut..]] {
            let mut page = json!({"tools": part});
            g.filter_tools_page(listing, &mut page, &mut view, pins.as_ref());
            for t in page["tools"].as_array().unwrap() {
                prop_assert!(
                    shown.insert(t["name"].as_str().unwrap().to_owned()),
                    "{} shown twice", t["name"]
                );
            }
            text.push_str(&page.to_string());
        }
        // First occurrence of each name is what the listing considered; a
        // name the listing defines twice, differently, is refused (and shown
        // only when its first definition was on an earlier page, which the
        // client already has).
        let mut first: BTreeMap<String, &Tool> = BTreeMap::new();
        let mut conflicting = BTreeSet::new();
        for t in &tools {
            let f = *first.entry(t.name()).or_insert(t);
            if f.def() != t.def() {
                conflicting.insert(t.name());
            }
        }
        let candidates = first.keys().cloned().chain(probes);
        for n in candidates {
            let callable = g
                .check_call(&n, &view, pins.as_ref(), &json!({"q": "text"}))
                .is_ok();
            let listed = first.contains_key(&n);
            if conflicting.contains(&n) {
                prop_assert!(!callable, "tool {:?} defined twice", n);
            } else if listed {
                // Shown on an earlier page and refused from a later one
                // on, which lists a twin refused by its name or state
                // (docs/gate.md): the one way shown and callable differ.
                let at = tools.iter().position(|t| t.name() == n).unwrap_or(0);
                let twin_later = at < cut
                    && tools[cut..]
                        .iter()
                        .any(|t| t.name() != n && fold_name(&t.name()) == fold_name(&n));
                if !(shown.contains(&n) && !callable && twin_later) {
                    prop_assert_eq!(shown.contains(&n), callable, "tool {:?}", n);
                }
            } else {
                prop_assert!(!shown.contains(&n));
            }
        }
        // Nothing shown carries a hidden character in strip mode.
        if poison == PoisonMode::Strip {
            let hidden = text.contains('\u{E0049}');
            prop_assert!(!hidden, "a tag character survived stripping");
        }
    }

    /// Extended to every method and every listed kind of object: a prompt
    /// or resource a list hides is refused by every method that can name
    /// it (`prompts/get`, `completion/complete`, `resources/read`,
    /// `subscribe`), and one it shows is accepted by them.
    #[test]
    fn nothing_hidden_is_reachable(
        allow in prop::option::of(prop::collection::vec(glob(), 0..3)),
        deny in prop::collection::vec(glob(), 0..3),
        prompts in prop::collection::vec((name(), prop::bool::weighted(0.2)), 0..8),
        resources in prop::collection::vec(prop_oneof![
            Just("https://example.com/a".to_owned()),
            Just("http://169.254.169.254/x".to_owned()),
            Just("file:///etc/passwd".to_owned()),
            Just("ht\ttp://127.0.0.1/".to_owned()),
            Just("\u{a0}http://10.0.0.1/".to_owned()),
            Just("note".to_owned()),
            Just("custom:thing".to_owned()),
            "[a-z]{2,5}://[a-z0-9.]{1,12}/",
        ], 0..6),
    ) {
        let mut text = policy_text(&None, &[]).replace("[tools]", "[prompts]");
        if let Some(a) = &allow {
            text = format!("{}allow = [{}]\n", text, a.iter().map(|g| format!("{g:?}")).collect::<Vec<_>>().join(", "));
        }
        text = text.replace("deny = []", &format!("deny = [{}]", deny.iter().map(|g| format!("{g:?}")).collect::<Vec<_>>().join(", ")));
        let policy = Policy::parse(&text).unwrap();
        let g = Gatekeeper { policy, roots: None, poison: PoisonMode::Strip };
        let names: Vec<String> = prompts
            .iter()
            .map(|(n, p)| if *p { format!("{n}\u{FE0F}") } else { n.clone() })
            .collect();
        let mut page = json!({"prompts": names.iter().map(|n| json!({"name": n})).collect::<Vec<_>>(),
            "resources": resources.iter().map(|u| json!({"uri": u})).collect::<Vec<_>>()});
        g.filter_list_page("prompts/list", &mut page);
        g.filter_list_page("resources/list", &mut page);
        let shown = |member: &str, key: &str| -> BTreeSet<String> {
            page[member].as_array().unwrap().iter().map(|p| p[key].as_str().unwrap().to_owned()).collect()
        };
        let shown_prompts = shown("prompts", "name");
        let shown_resources = shown("resources", "uri");
        for n in &names {
            let get = g.check_request("prompts/get", Some(&json!({"name": n}))).is_ok();
            let complete = g.check_request("completion/complete", Some(&json!({
                "ref": {"type": "ref/prompt", "name": n}, "argument": {"name": "a", "value": "b"}}))).is_ok();
            prop_assert_eq!(shown_prompts.contains(n), get, "prompts/get {:?}", n);
            prop_assert_eq!(shown_prompts.contains(n), complete, "completion {:?}", n);
        }
        for u in &resources {
            for m in ["resources/read", "resources/subscribe"] {
                let ok = g.check_request(m, Some(&json!({"uri": u}))).is_ok();
                prop_assert_eq!(shown_resources.contains(u), ok, "{} {:?}", m, u);
            }
            let complete = g.check_request("completion/complete", Some(&json!({
                "ref": {"type": "ref/resource", "uri": u}, "argument": {"name": "a", "value": "b"}}))).is_ok();
            prop_assert_eq!(shown_resources.contains(u), complete, "completion {:?}", u);
        }
        prop_assert!(g.check_request("x/unknown", None).is_err());
    }

    /// A URL to an internal address is refused however a lenient parser's
    /// noise is spread through it (tab, CR, LF inside; Unicode whitespace
    /// around).
    #[test]
    fn lenient_noise_does_not_hide_a_url(
        host in prop_oneof![Just("127.0.0.1"), Just("169.254.169.254"), Just("10.1.2.3"), Just("[::1]")],
        cuts in prop::collection::vec((0usize..30, prop_oneof![Just('\t'), Just('\r'), Just('\n')]), 0..4),
        lead in prop_oneof![Just(""), Just("\u{a0}"), Just("\u{2028}"), Just(" \u{3000}"), Just("\u{1680}")],
    ) {
        let mut url: Vec<char> = format!("http://{host}/x").chars().collect();
        for (at, c) in cuts {
            let at = at.min(url.len());
            url.insert(at, c);
        }
        let text = format!("{lead}{}", url.iter().collect::<String>());
        let g = Gatekeeper::default();
        prop_assert!(g.check_arguments("t", &json!({"q": text})).is_err(), "{:?}", text);
    }

    /// Oracle: a scheme-less text whose host, read by the WHATWG parser
    /// (the `url` crate) after `http://`, is an internal address or name is
    /// refused however it is spelt: `\\` for `/` in the leading slashes,
    /// ideographic and fullwidth dots, fullwidth letters and digits,
    /// percent-encoded host bytes, upper case, a trailing dot, a user, a
    /// port.
    #[test]
    fn a_scheme_less_host_is_read_as_the_url_parser_reads_it(
        host in prop_oneof![
            Just("127.0.0.1"), Just("169.254.169.254"), Just("10.1.2.3"),
            Just("localhost"), Just("metadata.google.internal"),
        ],
        spell in prop::collection::vec(0u8..4, 32),
        lead in prop_oneof![Just(""), Just("//"), Just("\\\\"), Just("/\\"), Just("\\/")],
        user in prop_oneof![Just(""), Just("u@")],
        dot in prop_oneof![Just(""), Just(".")],
        port in prop_oneof![Just(""), Just(":8080")],
        tail in prop_oneof![Just("/x"), Just("\\x"), Just("?q"), Just("#f")],
    ) {
        let spelt: String = host
            .chars()
            .zip(spell.iter().cycle())
            .map(|(c, how)| match (c, how) {
                ('.', 1) => "\u{3002}".to_owned(),
                ('.', 2) => "\u{ff0e}".to_owned(),
                ('.', 3) => "%2e".to_owned(),
                (c, 1) if c.is_ascii_alphanumeric() => {
                    char::from_u32(u32::from(c) + 0xfee0).map(String::from).unwrap_or_default()
                }
                (c, 2) => format!("%{:02X}", u32::from(c)),
                (c, 3) => c.to_ascii_uppercase().to_string(),
                (c, _) => c.to_string(),
            })
            .collect();
        let text = format!("{lead}{user}{spelt}{dot}{port}{tail}");
        let fetched = if lead.is_empty() { format!("http://{text}") } else { format!("http:{text}") };
        let parsed = url::Url::parse(&fetched);
        prop_assume!(parsed.is_ok());
        let g = Gatekeeper::default();
        prop_assert!(g.check_arguments("t", &json!({"q": text})).is_err(), "{:?} fetches {:?}", text, parsed.map(|u| u.to_string()));
    }

    /// Text without a scheme-and-colon start is never taken for a URL, and
    /// passes the argument checks untouched. (`KEY: value` whose key names a
    /// host, `IP: a`, reads as a YAML mapping of a host to a name no
    /// resolver serves: the accepted false positive docs/gate.md lists.)
    #[test]
    fn prose_passes(words in prop::collection::vec("[A-Za-z]{1,8}(: [a-z ]{0,10})?", 0..6)) {
        prop_assume!(words.iter().all(|w| w
            .split_once(':')
            .is_none_or(|(key, _)| !toolgate::gate::host_name(key))));
        let g = Gatekeeper::default();
        let args: serde_json::Map<String, Value> = words
            .iter()
            .enumerate()
            .map(|(i, w)| (format!("k{i}"), Value::String(w.clone())))
            .collect();
        prop_assert!(g.check_arguments("t", &Value::Object(args)).is_ok());
    }

    /// Every URL with a special-purpose IP literal host is refused wherever
    /// it sits in the arguments.
    #[test]
    fn internal_literals_refused_anywhere(
        host in prop_oneof![
            Just("127.0.0.1"), Just("10.1.2.3"), Just("169.254.169.254"),
            Just("[::1]"), Just("[::ffff:10.0.0.1]"), Just("192.168.0.1"), Just("0.0.0.0"),
        ],
        depth in 0usize..5,
        scheme in prop_oneof![Just("http"), Just("https"), Just("HTTP")],
    ) {
        let mut v = json!(format!("{scheme}://{host}/x"));
        for i in 0..depth {
            v = if i % 2 == 0 { json!([1, v]) } else { json!({"inner": v}) };
        }
        let g = Gatekeeper::default();
        let args = json!({"a": v});
        prop_assert!(g.check_arguments("t", &args).is_err(), "{} passed", args);
    }

    /// Oracle: an array or object sent as a JSON text inside a string (as
    /// a client may for a server on the Python SDK, which decodes it) gets
    /// the verdict it gets sent as itself, at any depth.
    #[test]
    fn json_in_a_string_gets_the_verdict_of_what_it_holds(
        value in leaf().prop_recursive(3, 12, 4, |inner| prop_oneof![
            prop::collection::vec(inner.clone(), 1..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 1..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]),
        wrap in 1usize..3,
    ) {
        prop_assume!(value.is_array() || value.is_object());
        let g = Gatekeeper::default();
        let direct = g.check_arguments("t", &json!({"a": value.clone()})).is_ok();
        let mut text = value;
        for _ in 0..wrap {
            text = json!(text.to_string());
            if wrap > 1 {
                text = json!([text]);
            }
        }
        let wrapped = g.check_arguments("t", &json!({"a": text.clone()})).is_ok();
        prop_assert_eq!(direct, wrapped, "{}", text);
    }

    /// A resource template whose variables lie in its path is shown exactly
    /// when every URI read from it is accepted: its fixed scheme, host and
    /// port decide both.
    #[test]
    fn templates_shown_are_templates_readable(
        scheme in prop_oneof![Just("https"), Just("http"), Just("gopher"), Just("ftp")],
        host in prop_oneof![
            Just("example.com"), Just("docs.example.org:8443"), Just("127.0.0.1"),
            Just("169.254.169.254"), Just("[::1]"), Just("10.0.0.9"), Just("intranet"),
        ],
        path in prop_oneof![Just("/{p}"), Just("/a/{+rest}"), Just("/{x}/{y}.json"), Just("/static")],
        values in prop::collection::vec("[A-Za-z0-9_.-]{1,8}", 1..6),
    ) {
        let template = format!("{scheme}://{host}{path}");
        let g = Gatekeeper::default();
        let mut page = json!({"resourceTemplates": [{"uriTemplate": template}]});
        g.filter_list_page("resources/templates/list", &mut page);
        let shown = !page["resourceTemplates"].as_array().unwrap().is_empty();
        for v in &values {
            let mut uri = String::new();
            let mut open = false;
            for c in template.chars() {
                match c {
                    '{' => open = true,
                    '}' => { open = false; uri.push_str(v); }
                    _ if open => {}
                    c => uri.push(c),
                }
            }
            let ok = g.check_request("resources/read", Some(&json!({"uri": uri}))).is_ok();
            prop_assert_eq!(shown, ok, "{} read as {}", template, uri);
        }
    }
}

#[test]
fn docs_list_every_gate_code() {
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/codes.md")).unwrap();
    for c in toolgate::gate::GateCode::ALL {
        assert!(
            docs.contains(&format!("| `{}` |", c.code())),
            "docs/codes.md lacks {c}"
        );
    }
}

#[cfg(feature = "harness")]
proptest! {
    #![proptest_config(config())]

    /// The structured argument model of `harness::gate_arguments`: an
    /// address in any notation, in any carrier, is refused with exactly
    /// the reference's code, or passes when public.
    #[test]
    fn argument_carriers_get_the_reference_verdict(data in prop::collection::vec(any::<u8>(), 0..64)) {
        toolgate::harness::gate_arguments::gate_arguments(&data);
    }
}
