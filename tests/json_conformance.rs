//! JSONTestSuite (nst/JSONTestSuite, MIT; copied in tests/data/JSONTestSuite
//! with its README) through `toolgate json-check`'s code path: the strict
//! layer under the default limits. Every `y_` file is accepted except the two
//! duplicated-key files (a documented exception: RFC 7493 §2.3), every `n_`
//! file is rejected, every `i_` file has the outcome listed in docs/json.md, and
//! so has every `test_transform/` file.
use std::path::{Path, PathBuf};

use toolgate::json::{parse_strict, JsonError, Limits};

/// `y_` files our strict layer rejects on purpose: duplicate keys.
const Y_EXCEPTIONS: &[&str] = &[
    "y_object_duplicated_key.json",
    "y_object_duplicated_key_and_value.json",
];

/// `i_` outcomes: `None` accepted, `Some(code)` rejected with `JsonError::code()`.
const I_OUTCOMES: &[(&str, Option<&str>)] = &[
    ("i_number_double_huge_neg_exp.json", None),
    ("i_number_huge_exp.json", Some("syntax")),
    ("i_number_neg_int_huge_exp.json", Some("syntax")),
    ("i_number_pos_double_huge_exp.json", Some("syntax")),
    ("i_number_real_neg_overflow.json", Some("syntax")),
    ("i_number_real_pos_overflow.json", Some("syntax")),
    ("i_number_real_underflow.json", None),
    ("i_number_too_big_neg_int.json", None),
    ("i_number_too_big_pos_int.json", None),
    ("i_number_very_big_negative_int.json", None),
    ("i_object_key_lone_2nd_surrogate.json", Some("syntax")),
    (
        "i_string_1st_surrogate_but_2nd_missing.json",
        Some("syntax"),
    ),
    (
        "i_string_1st_valid_surrogate_2nd_invalid.json",
        Some("syntax"),
    ),
    ("i_string_UTF-16LE_with_BOM.json", Some("invalid_utf8")),
    ("i_string_UTF-8_invalid_sequence.json", Some("invalid_utf8")),
    ("i_string_UTF8_surrogate_U+D800.json", Some("invalid_utf8")),
    (
        "i_string_incomplete_surrogate_and_escape_valid.json",
        Some("syntax"),
    ),
    ("i_string_incomplete_surrogate_pair.json", Some("syntax")),
    (
        "i_string_incomplete_surrogates_escape_valid.json",
        Some("syntax"),
    ),
    ("i_string_invalid_lonely_surrogate.json", Some("syntax")),
    ("i_string_invalid_surrogate.json", Some("syntax")),
    ("i_string_invalid_utf-8.json", Some("invalid_utf8")),
    ("i_string_inverted_surrogates_U+1D11E.json", Some("syntax")),
    ("i_string_iso_latin_1.json", Some("invalid_utf8")),
    ("i_string_lone_second_surrogate.json", Some("syntax")),
    (
        "i_string_lone_utf8_continuation_byte.json",
        Some("invalid_utf8"),
    ),
    ("i_string_not_in_unicode_range.json", Some("invalid_utf8")),
    (
        "i_string_overlong_sequence_2_bytes.json",
        Some("invalid_utf8"),
    ),
    (
        "i_string_overlong_sequence_6_bytes.json",
        Some("invalid_utf8"),
    ),
    (
        "i_string_overlong_sequence_6_bytes_null.json",
        Some("invalid_utf8"),
    ),
    ("i_string_truncated-utf-8.json", Some("invalid_utf8")),
    ("i_string_utf16BE_no_BOM.json", Some("invalid_utf8")),
    ("i_string_utf16LE_no_BOM.json", Some("invalid_utf8")),
    ("i_structure_500_nested_arrays.json", Some("too_deep")),
    (
        "i_structure_UTF-8_BOM_empty_object.json",
        Some("byte_order_mark"),
    ),
];

fn files(prefix: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/JSONTestSuite/test_parsing");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with(prefix))
        .collect();
    v.sort();
    v
}

fn check(path: &Path) -> Result<(), JsonError> {
    parse_strict(&std::fs::read(path).unwrap(), &Limits::default()).map(|_| ())
}

fn name(p: &Path) -> &str {
    p.file_name().unwrap().to_str().unwrap()
}

#[test]
fn y_files_are_accepted_except_duplicate_keys() {
    let ys = files("y_");
    assert_eq!(ys.len(), 95);
    for p in &ys {
        let r = check(p);
        if Y_EXCEPTIONS.contains(&name(p)) {
            assert!(
                matches!(r, Err(JsonError::DuplicateKey(_))),
                "{}: {r:?}",
                name(p)
            );
        } else {
            assert!(r.is_ok(), "{}: {r:?}", name(p));
        }
    }
}

#[test]
fn n_files_are_rejected() {
    let ns = files("n_");
    assert_eq!(ns.len(), 188);
    for p in &ns {
        assert!(check(p).is_err(), "{} accepted", name(p));
        // The rpc layer refuses them as parse errors too (never a panic).
        let e = toolgate::rpc::parse_tool_call(&std::fs::read(p).unwrap()).unwrap_err();
        assert_eq!(e.error.jsonrpc_code(), -32700, "{}", name(p));
    }
}

#[test]
fn i_files_match_the_readme_table() {
    let is = files("i_");
    assert_eq!(is.len(), I_OUTCOMES.len());
    for p in &is {
        let (_, want) = I_OUTCOMES
            .iter()
            .find(|(n, _)| *n == name(p))
            .unwrap_or_else(|| panic!("{} not in the table", name(p)));
        let got = check(p).err().map(|e| e.code());
        assert_eq!(got, *want, "{}", name(p));
    }
}

/// Where the binary is built (feature `cli`), drive `toolgate json-check` itself.
#[test]
fn json_check_binary_agrees() {
    // Cargo may name the binary even where its required feature is off (and it was never
    // built): the feature, not the variable, says whether it exists.
    if !cfg!(feature = "cli") {
        return;
    }
    let Some(bin) = option_env!("CARGO_BIN_EXE_toolgate") else {
        return;
    };
    for p in files("") {
        let n = name(&p);
        if !n.ends_with(".json") {
            continue;
        }
        let status = std::process::Command::new(bin)
            .arg("json-check")
            .arg(&p)
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert_eq!(status.code() == Some(0), check(&p).is_ok(), "{n}");
        assert!(matches!(status.code(), Some(0 | 1)), "{n}");
    }
}

/// `test_transform/` outcomes (what a parser makes of inputs that parse but
/// are easy to transform wrongly): `None` accepted, `Some(code)` rejected.
/// Also listed in docs/json.md.
const TRANSFORM_OUTCOMES: &[(&str, Option<&str>)] = &[
    ("number_-9223372036854775808.json", None),
    ("number_-9223372036854775809.json", None),
    ("number_1.0.json", None),
    ("number_1.000000000000000005.json", None),
    ("number_1000000000000000.json", None),
    ("number_10000000000000000999.json", None),
    ("number_1e-999.json", None),
    ("number_1e6.json", None),
    ("number_9223372036854775807.json", None),
    ("number_9223372036854775808.json", None),
    ("object_key_nfc_nfd.json", None),
    ("object_key_nfd_nfc.json", None),
    (
        "object_same_key_different_values.json",
        Some("duplicate_key"),
    ),
    ("object_same_key_same_value.json", Some("duplicate_key")),
    ("object_same_key_unclear_values.json", Some("duplicate_key")),
    ("string_1_escaped_invalid_codepoint.json", Some("syntax")),
    ("string_1_invalid_codepoint.json", Some("invalid_utf8")),
    ("string_2_escaped_invalid_codepoints.json", Some("syntax")),
    ("string_2_invalid_codepoints.json", Some("invalid_utf8")),
    ("string_3_escaped_invalid_codepoints.json", Some("syntax")),
    ("string_3_invalid_codepoints.json", Some("invalid_utf8")),
    ("string_with_escaped_NULL.json", None),
];

#[test]
fn transform_files_match_the_readme_table_and_serde_json() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/JSONTestSuite/test_transform");
    let mut seen: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    seen.sort();
    assert_eq!(seen.len(), TRANSFORM_OUTCOMES.len());
    for n in &seen {
        let (_, want) = TRANSFORM_OUTCOMES
            .iter()
            .find(|(t, _)| t == n)
            .unwrap_or_else(|| panic!("{n} not in the table"));
        let bytes = std::fs::read(dir.join(n)).unwrap();
        let got = parse_strict(&bytes, &Limits::default());
        assert_eq!(got.as_ref().err().map(JsonError::code), *want, "{n}");
        // What is accepted is exactly what serde_json makes of it: numbers
        // are not rounded differently, NFC and NFD keys stay two members,
        // an escaped NUL stays in the string.
        if let Ok(v) = got {
            let reference: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            assert_eq!(v, reference, "{n}");
        }
    }
}
