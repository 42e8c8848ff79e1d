//! A number oracle that shares no code with serde_json's number parser.
//!
//! [`check_numbers`] reads every number token of an accepted JSON text
//! itself, converts it with `str::parse::<f64>` (correctly rounded, from
//! `core`) or as an exact integer, and asserts that the parsed `Value`
//! holds exactly those numbers. It catches a float parse that is off by one
//! ulp (serde_json without its `float_roundtrip` feature), which then makes
//! a `Value -> text -> Value` round trip change the number.
use serde_json::{Number, Value};

/// A number as the oracle sees it: an integer serde_json keeps exactly, or
/// the bits of a correctly rounded `f64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Num {
    Int(i128),
    Float(u64),
}

/// The number a JSON number token denotes, as serde_json must store it:
/// integers without fraction or exponent that fit `u64` (non-negative) or
/// `i64` (negative, non-zero) stay integers; everything else, `-0`
/// included, is the correctly rounded `f64`.
fn token_value(tok: &str) -> Num {
    let integral = !tok.contains(['.', 'e', 'E']);
    if integral {
        if let Ok(u) = tok.parse::<u64>() {
            return Num::Int(i128::from(u));
        }
        if let Ok(i) = tok.parse::<i64>() {
            if i != 0 {
                return Num::Int(i128::from(i));
            }
        }
    }
    let f: f64 = tok
        .parse()
        .unwrap_or_else(|e| panic!("accepted number {tok:?} is not an f64: {e}"));
    Num::Float(f.to_bits())
}

fn value_number(n: &Number) -> Num {
    if let Some(u) = n.as_u64() {
        Num::Int(i128::from(u))
    } else if let Some(i) = n.as_i64() {
        Num::Int(i128::from(i))
    } else {
        Num::Float(n.as_f64().expect("a Number is u64, i64 or f64").to_bits())
    }
}

/// Every number token in a JSON text (outside strings), in document order.
/// Only meaningful on text a strict parser accepted.
pub fn number_tokens(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                out.push(&text[start..i]);
            }
            _ => i += 1,
        }
    }
    out
}

/// Asserts that `value` (the parse of `data`) holds exactly the numbers
/// written in `data`, each converted by the oracle (see the module docs).
/// Numbers are compared as multisets: `Map` does not keep member order.
pub fn check_numbers(data: &[u8], value: &Value) {
    let text = std::str::from_utf8(data).expect("accepted JSON is UTF-8");
    let mut want: Vec<Num> = number_tokens(text).into_iter().map(token_value).collect();
    let mut got = Vec::with_capacity(want.len());
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Number(n) => got.push(value_number(n)),
            Value::Array(a) => stack.extend(a),
            Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
    // A duplicate key would drop a member; the strict layer refuses those.
    want.sort_unstable();
    got.sort_unstable();
    if want != got {
        let bad: Vec<&str> = number_tokens(text)
            .into_iter()
            .filter(|t| got.binary_search(&token_value(t)).is_err())
            .collect();
        panic!("numbers not correctly parsed: {bad:?}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_skip_strings_and_literals() {
        let t = r#"{"a1":[1,-2.5e3,true,"x\"9",null,false,0.1E-2],"e":-0}"#;
        assert_eq!(number_tokens(t), ["1", "-2.5e3", "0.1E-2", "-0"]);
    }

    #[test]
    fn integers_and_negative_zero_follow_serde_json() {
        assert_eq!(
            token_value("18446744073709551615"),
            Num::Int(u64::MAX.into())
        );
        assert_eq!(
            token_value("-9223372036854775808"),
            Num::Int(i64::MIN.into())
        );
        assert_eq!(token_value("-0"), Num::Float((-0.0f64).to_bits()));
        assert_eq!(
            token_value("18446744073709551616"),
            Num::Float(18446744073709551616.0f64.to_bits())
        );
    }

    /// serde_json without `float_roundtrip` reads this one ulp off, and the
    /// `ToolCall` builder's text of that value reads back as another float.
    #[test]
    fn long_mantissa_with_exponent_is_correctly_rounded() {
        let data = br#"{"x":6.58026216034114918620348067e286}"#;
        let v: Value = serde_json::from_slice(data).unwrap();
        check_numbers(data, &v);
        let again: Value = serde_json::from_str(&v.to_string()).unwrap();
        assert_eq!(again, v);
    }
}
