//! The SSRF cases (`tests/data/ssrf/*.jsonl`: the shared sample and our own
//! bypass-hunt file): every case's `expect` holds, through the library and
//! through `toolgate classify`.
//! `reason` lists acceptable reasons (`|`-separated); a `needs_dns` case may
//! also be denied, never allowed. See tests/data/ssrf/README.md for the
//! reason -> code mapping.
use serde_json::Value;
use std::net::IpAddr;
use toolgate::net::{classify_host, classify_ip, classify_url, Denial, Destination};

struct Case {
    input: String,
    kind: String,
    expect: String,
    reasons: Vec<String>,
}

/// Every case file in tests/data/ssrf/: the shared sample, then our own
/// (`ssrf_net_*.jsonl`, one line per fault found while hunting).
fn cases() -> Vec<Case> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ssrf");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(files.len() >= 2, "case files missing in {dir}");
    files
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| {
                    let v: Value = serde_json::from_str(l).unwrap();
                    let s = |k: &str| v[k].as_str().unwrap().to_owned();
                    Case {
                        input: s("input"),
                        kind: s("kind"),
                        expect: s("expect"),
                        reasons: s("reason").split('|').map(str::to_owned).collect(),
                    }
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The stable code a case-file reason stands for.
fn code_for(reason: &str) -> String {
    match reason {
        "private" => "ssrf.private_use".into(),
        "cgnat" => "ssrf.shared_address_space".into(),
        "ambiguous" | "malformed" | "scheme" | "userinfo" => format!("url.{reason}"),
        "public" => "public".into(),
        "dns_required" => "dns_required".into(),
        other => format!("ssrf.{other}"),
    }
}

/// (verdict, code) the library gives for a case, by its kind.
fn library_verdict(c: &Case) -> (String, String) {
    let from = |r: Result<Destination, Denial>| match r {
        Err(d) => ("deny".to_owned(), d.code().to_owned()),
        Ok(dest) if dest.needs_dns() => ("needs_dns".to_owned(), "dns_required".to_owned()),
        Ok(_) => ("allow".to_owned(), "public".to_owned()),
    };
    match c.kind.as_str() {
        "ip" => match c.input.parse::<IpAddr>() {
            Ok(a) => match classify_ip(a).denial(a) {
                Some(d) => ("deny".into(), d.code().into()),
                None => ("allow".into(), "public".into()),
            },
            Err(_) => from(classify_host(&c.input)),
        },
        "host" => from(classify_host(&c.input)),
        "url" => from(classify_url(&c.input)),
        k => panic!("unknown kind {k}"),
    }
}

fn check(c: &Case, verdict: &str, code: &str) -> Result<(), String> {
    let ok_verdict = verdict == c.expect || (c.expect == "needs_dns" && verdict == "deny");
    if !ok_verdict {
        return Err(format!(
            "{:?}: expected {}, got {verdict} ({code})",
            c.input, c.expect
        ));
    }
    if verdict == c.expect && !c.reasons.iter().any(|r| code_for(r) == code) {
        return Err(format!(
            "{:?}: code {code} not among {:?}",
            c.input, c.reasons
        ));
    }
    Ok(())
}

#[test]
fn every_case_holds_through_the_library() {
    let failures: Vec<String> = cases()
        .iter()
        .filter_map(|c| {
            let (v, code) = library_verdict(c);
            check(c, &v, &code).err()
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[cfg(feature = "cli")]
#[test]
fn every_case_holds_through_the_cli() {
    let cases = cases();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .arg("classify")
        .args(cases.iter().map(|c| &c.input))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), cases.len());
    let mut failures = Vec::new();
    for (c, line) in cases.iter().zip(lines) {
        let v: Value = serde_json::from_str(line).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 4, "{line}");
        assert!(line.starts_with("{\"input\":"), "{line}");
        assert_eq!(v["input"], c.input.as_str());
        assert!(!v["reason"].as_str().unwrap().is_empty());
        if let Err(e) = check(
            c,
            v["verdict"].as_str().unwrap(),
            v["code"].as_str().unwrap(),
        ) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[cfg(feature = "cli")]
#[test]
fn cli_usage_error_exits_2() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .arg("classify")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[cfg(all(feature = "cli", unix))]
#[test]
fn cli_refuses_non_utf8_input_without_a_usage_error() {
    use std::os::unix::ffi::OsStrExt;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .arg("classify")
        .arg(std::ffi::OsStr::from_bytes(b"http://ex\xffample.com/"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "deny");
    assert_eq!(v["code"], "url.malformed");
}
