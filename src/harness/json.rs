//! Harnesses for `toolgate::json`, checked against independent references:
//! `serde_json` for the grammar, a recursive depth count, and a simple
//! serde visitor that collects keys per object for duplicates.
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::json::{
    depth_of as api_depth_of, parse_strict, refuse_duplicate_json_keys, value_units, JsonError,
    Limits, MAX_JSON_DEPTH, MEMBER_VALUES, OBJECT_VALUES,
};

/// Reference depth: plain recursion (only used on values `serde_json` built,
/// whose depth its recursion limit keeps below 128).
pub fn reference_depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(reference_depth).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(reference_depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// Reference duplicate-key model: `Some(true)` when some object repeats a
/// key (after serde_json's unescaping), `Some(false)` when none does,
/// `None` when serde_json refuses the text.
pub fn reference_has_duplicate(data: &[u8]) -> Option<bool> {
    struct Dup<'a>(&'a mut bool);
    impl<'de> DeserializeSeed<'de> for Dup<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for Dup<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON")
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E: de::Error>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
            while a.next_element_seed(Dup(&mut *self.0))?.is_some() {}
            Ok(())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
            let mut seen = HashSet::new();
            while let Some(k) = a.next_key::<String>()? {
                if !seen.insert(k) {
                    *self.0 = true;
                }
                a.next_value_seed(Dup(&mut *self.0))?;
            }
            Ok(())
        }
    }
    let mut found = false;
    let mut de = serde_json::Deserializer::from_slice(data);
    Dup(&mut found).deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(found)
}

/// Reference cost of a parsed value, as [`crate::json::MAX_JSON_VALUES`]
/// counts it: each value one, each member [`MEMBER_VALUES`] more, each
/// object with a member [`OBJECT_VALUES`] more; with the number of empty
/// arrays in it (each of which [`value_units`], an upper bound read off the
/// bytes, counts as one value more).
pub fn reference_units(v: &Value) -> (usize, usize) {
    let (mut units, mut empty) = (0, 0);
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        units += 1;
        match v {
            Value::Array(a) => {
                empty += usize::from(a.is_empty());
                stack.extend(a);
            }
            Value::Object(m) => {
                if !m.is_empty() {
                    units += OBJECT_VALUES + m.len() * MEMBER_VALUES;
                }
                stack.extend(m.values());
            }
            _ => {}
        }
    }
    (units, empty)
}

/// Fuzz target `depth_of`: `depth_of` equals the recursive reference, and
/// `parse_strict` accepts exactly what serde_json accepts minus duplicates
/// and depth beyond the limit, to the same value; a depth limit equal to
/// the depth accepts, one less refuses; [`value_units`] is the reference
/// cost ([`reference_units`]) up to one per empty array, and a values
/// limit equal to it accepts, one less refuses.
pub fn depth_of(data: &[u8]) {
    let limits = Limits::default();
    let strict = parse_strict(data, &limits);
    let Ok(v) = serde_json::from_slice::<Value>(data) else {
        assert!(strict.is_err(), "strict accepted what serde_json refuses");
        let _ = IgnoredAny;
        return;
    };
    let d = api_depth_of(&v);
    assert_eq!(d, reference_depth(&v));
    let dup = reference_has_duplicate(data) == Some(true);
    match &strict {
        Ok(sv) => {
            assert_eq!(sv, &v, "strict value differs from serde_json's");
            assert!(d <= MAX_JSON_DEPTH);
            assert!(!dup, "strict missed a duplicate key");
        }
        Err(JsonError::TooDeep { .. }) => assert!(d > MAX_JSON_DEPTH),
        Err(JsonError::DuplicateKey(_)) => assert!(dup, "strict reported a phantom duplicate"),
        Err(JsonError::TooLarge { .. }) => assert!(data.len() > limits.max_payload_bytes),
        Err(JsonError::TooManyValues { .. }) => {
            assert!(value_units(data, limits.max_values).is_err());
        }
        Err(e) => panic!("serde_json accepts but strict says {e}"),
    }
    if strict.is_ok() {
        let (exact, empty) = reference_units(&v);
        let units = value_units(data, usize::MAX);
        assert!(
            units.is_ok_and(|u| exact <= u && u <= exact + empty),
            "value_units {units:?}, reference {exact} (+{empty} empty arrays)"
        );
        let units = units.unwrap_or_default();
        let at = Limits {
            max_values: units,
            ..limits
        };
        assert!(parse_strict(data, &at).is_ok());
        let below = Limits {
            max_values: units - 1,
            ..limits
        };
        assert!(matches!(
            parse_strict(data, &below),
            Err(JsonError::TooManyValues { limit, .. }) if limit == units - 1
        ));
    }
    if strict.is_ok() && d > 0 {
        let at = Limits {
            max_depth: d,
            ..limits
        };
        assert!(parse_strict(data, &at).is_ok());
        let below = Limits {
            max_depth: d - 1,
            ..limits
        };
        assert!(matches!(
            parse_strict(data, &below),
            Err(JsonError::TooDeep { .. })
        ));
    }
}

/// Fuzz target `duplicate_keys`: `refuse_duplicate_json_keys` agrees with
/// the strict parse and with the reference model, and its report points at
/// the second occurrence's opening quote, with a pointer ending in the key.
pub fn duplicate_keys(data: &[u8]) {
    let r = refuse_duplicate_json_keys(data);
    if let Err(d) = &r {
        assert_eq!(
            data.get(d.offset),
            Some(&b'"'),
            "offset {} is not a key",
            d.offset
        );
        let token = d.key.replace('~', "~0").replace('/', "~1");
        assert!(
            d.pointer.ends_with(&format!("/{token}")),
            "pointer {} does not end with {token}",
            d.pointer
        );
        let _ = d.to_string();
    }
    let strict = parse_strict(data, &Limits::default());
    match &strict {
        Ok(_) => assert!(r.is_ok(), "strict accepted a document with {r:?}"),
        Err(JsonError::DuplicateKey(d)) => assert_eq!(r.as_ref(), Err(d)),
        Err(_) => {}
    }
    if let Some(dup) = reference_has_duplicate(data) {
        let deep = serde_json::from_slice::<Value>(data)
            .map(|v| api_depth_of(&v) > MAX_JSON_DEPTH)
            .unwrap_or(true);
        if !deep {
            assert_eq!(r.is_err(), dup, "reference model disagrees");
        }
    }
}

/// A sink that asks for every member and element (except under keys
/// starting with `x`) and logs every call, so two scanners' reports can be
/// compared call for call.
#[derive(Default)]
struct LogSink(Vec<String>);

impl crate::json::Sink for LogSink {
    fn member(&mut self, parent: crate::json::Slot, key: &[u8]) -> crate::json::Slot {
        self.0.push(format!("member {parent} {key:?}"));
        if key.first() == Some(&b'x') {
            crate::json::NO_SLOT
        } else {
            2 + parent.wrapping_add(key.len() as u8) % 200
        }
    }
    fn element(&mut self, parent: crate::json::Slot) -> crate::json::Slot {
        self.0.push(format!("element {parent}"));
        2 + parent.wrapping_mul(3) % 200
    }
    fn record(&mut self, slot: crate::json::Slot, m: crate::json::Member) {
        self.0.push(format!("record {slot} {m:?}"));
    }
}

/// Differential check of issue 17, for as long as the legacy scanner
/// exists: the current scanner and the legacy one give the same verdict,
/// the same error (kind, offset, pointer, key) and the same value, through
/// `parse_strict` (default and shallow depth limits), through
/// `refuse_duplicate_json_keys`, and through the member-recording scan `rpc`
/// uses, call for call, with and without `finish`.
pub fn scanners_agree(data: &[u8]) {
    use crate::json::{legacy, scan, Options};
    for max_depth in [MAX_JSON_DEPTH, 3, 1, 0] {
        let limits = Limits {
            max_depth,
            ..Limits::default()
        };
        let new = parse_strict(data, &limits);
        let old = legacy::parse_strict(data, &limits);
        assert_eq!(new, old, "parse_strict disagrees at depth {max_depth}");
        if let (Ok(n), Ok(o)) = (&new, &old) {
            // `Value` equality says -0.0 == 0.0; the text does not.
            assert_eq!(n.to_string(), o.to_string());
        }
    }
    assert_eq!(
        refuse_duplicate_json_keys(data),
        legacy::refuse_duplicate_json_keys(data),
        "refuse_duplicate_json_keys disagrees"
    );
    for finish in [false, true] {
        for max_depth in [MAX_JSON_DEPTH, 2] {
            let opts = || Options { max_depth, finish };
            let (mut a, mut b) = (LogSink::default(), LogSink::default());
            let new = scan(data, opts(), &mut a);
            let old = legacy::scan(data, opts(), &mut b);
            assert_eq!(
                format!("{new:?}"),
                format!("{old:?}"),
                "scan outcome disagrees"
            );
            assert_eq!(a.0, b.0, "scan reports disagree");
        }
    }
}
