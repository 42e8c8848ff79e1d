//! Properties of `toolgate::json` (proptest; regressions persisted under
//! `proptest-regressions/json_props.txt`).
#![cfg(feature = "harness")]
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{Map, Value};
use toolgate::harness;
use toolgate::json::{depth_of, parse_strict, refuse_duplicate_json_keys, Limits};

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/json_props.txt",
        ))),
        ..ProptestConfig::default()
    }
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(6, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(".{0,6}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Bytes drawn mostly from JSON's own alphabet, to reach grammar corners.
fn jsonish() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            prop::sample::select(
                b"{}[]\",:0123456789-+.eEtrufalsn \\/u\t\nabAF\x01\xef\xbb\xbf\xff".to_vec()
            ),
            any::<u8>(),
        ],
        0..64,
    )
}

/// Encodes `s` as a JSON string, escaping each char as `\uXXXX` (surrogate
/// pairs above the BMP) when the matching flag says so.
fn encode_key(s: &str, escape: &[bool]) -> String {
    let mut out = String::from("\"");
    for (i, c) in s.chars().enumerate() {
        let esc = escape.get(i).copied().unwrap_or(false);
        if esc || c == '"' || c == '\\' || (c as u32) < 0x20 {
            let mut buf = [0u16; 2];
            for u in c.encode_utf16(&mut buf) {
                out.push_str(&format!("\\u{:04x}", u));
            }
        } else {
            out.push(c);
        }
    }
    out.push('"');
    out
}

proptest! {
    #![proptest_config(config())]

    /// Totality plus agreement with serde_json, the recursive depth and the
    /// reference duplicate model, on arbitrary bytes.
    #[test]
    fn total_and_agreeing_on_arbitrary_bytes(data in prop::collection::vec(any::<u8>(), 0..256)) {
        harness::json::depth_of(&data);
        harness::json::duplicate_keys(&data);
    }

    #[test]
    fn total_and_agreeing_on_jsonish_bytes(data in jsonish()) {
        harness::json::depth_of(&data);
        harness::json::duplicate_keys(&data);
    }

    /// Every value serde_json writes (compact or pretty), the strict layer
    /// reads back to the same value.
    #[test]
    fn agrees_with_serde_json_on_generated_values(v in value(), pretty in any::<bool>()) {
        let text = if pretty { serde_json::to_string_pretty(&v).unwrap() } else { v.to_string() };
        let strict = parse_strict(text.as_bytes(), &Limits::default()).unwrap();
        let reference: Value = serde_json::from_slice(text.as_bytes()).unwrap();
        // (Not `== v`: without its `float_roundtrip` feature serde_json may
        // read a float back one ulp off; agreement with serde_json is the point.)
        prop_assert_eq!(&strict, &reference);
        harness::json::depth_of(text.as_bytes());
    }

    /// `depth_of` equals the constructed depth: `d` containers around a leaf.
    #[test]
    fn depth_of_equals_constructed_depth(
        kinds in prop::collection::vec(any::<bool>(), 0..100),
        leaf in leaf(),
        sibling in value(),
    ) {
        let mut v = leaf;
        for (i, object) in kinds.iter().enumerate() {
            v = if *object {
                let mut m = Map::new();
                m.insert("k".into(), v);
                if i % 3 == 0 { m.insert("s".into(), Value::Null); }
                Value::Object(m)
            } else if i % 2 == 0 {
                Value::Array(vec![Value::Bool(true), v])
            } else {
                Value::Array(vec![v])
            };
        }
        prop_assert_eq!(depth_of(&v), kinds.len());
        let wrapped = Value::Array(vec![sibling.clone(), v]);
        let d = harness::json::reference_depth(&sibling).max(kinds.len()) + 1;
        prop_assert_eq!(depth_of(&wrapped), d);
    }

    /// Duplicate detection agrees with a simple model (a set of decoded keys)
    /// on objects with injected duplicates written with random escapes.
    #[test]
    fn duplicates_agree_with_model(
        keys in prop::collection::vec(prop::sample::select(vec!["a", "b", "é", "😀", "a/b", "~", "", "\n"]), 0..8),
        escapes in prop::collection::vec(prop::collection::vec(any::<bool>(), 0..4), 8),
        nest in any::<bool>(),
    ) {
        let mut members = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut first_dup: Option<(&str, usize)> = None;
        let prefix = if nest { r#"{"outer":[0,"# } else { "" };
        let mut text = String::from(prefix);
        text.push('{');
        for (i, k) in keys.iter().enumerate() {
            if i > 0 { text.push(','); }
            let at = text.len();
            text.push_str(&encode_key(k, &escapes[i % escapes.len()]));
            text.push_str(":1");
            if !seen.insert(*k) && first_dup.is_none() {
                first_dup = Some((k, at));
            }
            members.push(*k);
        }
        text.push('}');
        if nest { text.push_str("]}"); }
        let got = refuse_duplicate_json_keys(text.as_bytes());
        match first_dup {
            None => prop_assert!(got.is_ok(), "{text}: {got:?}"),
            Some((k, at)) => {
                let d = got.unwrap_err();
                prop_assert_eq!(d.key.as_str(), k);
                prop_assert_eq!(d.offset, at);
                let token = k.replace('~', "~0").replace('/', "~1");
                let want = if nest { format!("/outer/1/{token}") } else { format!("/{token}") };
                prop_assert_eq!(d.pointer, want);
            }
        }
        harness::json::duplicate_keys(text.as_bytes());
    }
}

proptest! {
    #![proptest_config(config())]

    /// Duplicate detection is exact where the scanner takes shortcuts: keys
    /// of eight bytes or more that share their first and last eight bytes
    /// (equal fingerprints, told apart only by their middles), and objects
    /// past `LINEAR_KEY_CHECK` members (the hash-set path). The model is a
    /// set of the keys as written; a repeat is spelled with random escapes.
    #[test]
    fn duplicates_exact_among_fingerprint_twins_and_many_members(
        n in 0usize..40,
        twins in any::<bool>(),
        repeat in prop::option::of(any::<prop::sample::Index>()),
        escapes in prop::collection::vec(any::<bool>(), 0..24),
    ) {
        // Long twins differ only in the middle; short keys are exact.
        let key = |i: usize| if twins && i.is_multiple_of(2) {
            format!("abcdefgh{i:04}ijklmnop")
        } else {
            format!("k{i}")
        };
        let mut text = String::from("{");
        let mut dup_at = None;
        for i in 0..n {
            text.push_str(&format!("{:?}:{i},", key(i)));
        }
        let again = repeat.filter(|_| n > 0).map(|ix| key(ix.index(n)));
        if let Some(k) = &again {
            dup_at = Some(text.len());
            text.push_str(&encode_key(k, &escapes));
            text.push_str(":null,");
        }
        text.push_str(r#""end":true}"#);
        let got = refuse_duplicate_json_keys(text.as_bytes());
        match (&again, dup_at) {
            (Some(k), Some(at)) => {
                let d = got.unwrap_err();
                prop_assert_eq!(&d.key, k);
                prop_assert_eq!(d.offset, at);
                prop_assert_eq!(d.pointer, format!("/{k}"));
                prop_assert!(parse_strict(text.as_bytes(), &Limits::default()).is_err());
            }
            _ => {
                prop_assert!(got.is_ok(), "{text}: {got:?}");
                let strict = parse_strict(text.as_bytes(), &Limits::default());
                let plain: Value = serde_json::from_str(&text).unwrap();
                prop_assert_eq!(strict.ok(), Some(plain));
            }
        }
        harness::json::duplicate_keys(text.as_bytes());
    }
}

/// A generated document (compact or pretty), optionally mutated: cut short,
/// a JSON-ish fragment spliced in, or a member `"k":0,` put at the start of
/// the n-th object (a duplicate when that object has the key).
fn mutated_document() -> impl Strategy<Value = Vec<u8>> {
    (
        value(),
        any::<bool>(),
        0u8..4,
        any::<prop::sample::Index>(),
        jsonish(),
        prop::sample::select(vec!["a", "b", "é", "\\u0061", "~", "", "x"]),
    )
        .prop_map(|(v, pretty, how, at, fragment, k)| {
            let text = if pretty {
                serde_json::to_string_pretty(&v).unwrap()
            } else {
                v.to_string()
            };
            let mut b = text.into_bytes();
            let i = at.index(b.len() + 1);
            match how {
                1 => b.truncate(i),
                2 => {
                    let tail = b.split_off(i);
                    b.extend_from_slice(&fragment[..fragment.len().min(6)]);
                    b.extend_from_slice(&tail);
                }
                3 => {
                    let opens: Vec<usize> = (0..b.len()).filter(|&j| b[j] == b'{').collect();
                    if !opens.is_empty() {
                        let j = opens[at.index(opens.len())] + 1;
                        let closes = b.get(j) == Some(&b'}');
                        let member = format!("\"{k}\":0{}", if closes { "" } else { "," });
                        let tail = b.split_off(j);
                        b.extend_from_slice(member.as_bytes());
                        b.extend_from_slice(&tail);
                    }
                }
                _ => {}
            }
            b
        })
}

proptest! {
    #![proptest_config(config())]

    /// Issue 17's differential property, for as long as the legacy scanner
    /// exists: old and new agree (verdict, error kind, offset, pointer,
    /// value, every sink report) on generated and mutated documents.
    #[test]
    fn scanners_agree_on_generated_documents(doc in mutated_document()) {
        harness::json::scanners_agree(&doc);
    }

    #[test]
    fn scanners_agree_on_jsonish_bytes(data in jsonish()) {
        harness::json::scanners_agree(&data);
    }

    #[test]
    fn scanners_agree_on_arbitrary_bytes(data in prop::collection::vec(any::<u8>(), 0..128)) {
        harness::json::scanners_agree(&data);
    }
}
