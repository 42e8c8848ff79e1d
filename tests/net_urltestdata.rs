//! WHATWG URL tests (tests/data/url/urltestdata.json): for every test whose
//! result is a valid http(s) URL, `classify_url`'s view of the host agrees
//! with the `url` crate's parsed host and the test's expected `hostname`.
//! A refusal is fine (the policy is conservative) as long as it is not
//! caused by seeing a different host than the parser did.
use serde_json::Value;
use std::net::IpAddr;
use toolgate::net::{classify_ip, classify_url, refused_name, Target};
use url::{Host, Url};

fn http_tests() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/url/urltestdata.json"
    );
    let all: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    all.into_iter()
        .filter(|t| t.is_object() && t.get("failure").is_none())
        .filter(|t| matches!(t["protocol"].as_str(), Some("http:" | "https:")))
        .collect()
}

/// The code classifying `host` (as the url crate parsed it) gives, or None when it passes.
fn host_code(host: &Host<&str>) -> Option<&'static str> {
    match host {
        Host::Ipv4(a) => classify_ip(IpAddr::V4(*a)).code().map(|c| c.as_str()),
        Host::Ipv6(a) => classify_ip(IpAddr::V6(*a)).code().map(|c| c.as_str()),
        Host::Domain(d) => refused_name(d).map(|c| c.as_str()),
    }
}

fn agree(input: &str, expected_hostname: &str, stats: &mut [usize; 3]) -> Result<(), String> {
    let parsed = Url::parse(input).map_err(|e| format!("{input:?}: url crate refuses: {e}"))?;
    let host = parsed.host().ok_or_else(|| format!("{input:?}: no host"))?;
    if parsed.host_str() != Some(expected_hostname) {
        return Err(format!(
            "{input:?}: url crate host {host:?} != expected {expected_hostname:?}"
        ));
    }
    match classify_url(input) {
        Ok(dest) => {
            stats[0] += 1;
            let same = match (dest.target(), &host) {
                (Target::Ip(IpAddr::V4(a)), Host::Ipv4(b)) => a == *b,
                (Target::Ip(IpAddr::V6(a)), Host::Ipv6(b)) => a == *b,
                (Target::Domain(a), Host::Domain(b)) => a == *b,
                _ => false,
            };
            if !same || host_code(&host).is_some() {
                return Err(format!(
                    "{input:?}: allowed {:?}, parser saw {host:?}",
                    dest.target()
                ));
            }
        }
        Err(d) if d.code().starts_with("ssrf.") => {
            stats[1] += 1;
            // Refused for what it is: the parser's host must be refused with the same code.
            if host_code(&host) != Some(d.code()) {
                return Err(format!(
                    "{input:?}: refused {} but parser host {host:?} gives {:?}",
                    d.code(),
                    host_code(&host)
                ));
            }
        }
        Err(_) => stats[2] += 1,
    }
    Ok(())
}

#[test]
fn classifier_agrees_with_the_url_crate_on_every_http_test() {
    let tests = http_tests();
    assert!(tests.len() > 200, "only {} http(s) tests", tests.len());
    let mut failures = Vec::new();
    let mut stats = [0usize; 3];
    for t in &tests {
        let hostname = t["hostname"].as_str().unwrap();
        let href = t["href"].as_str().unwrap();
        if let Err(e) = agree(href, hostname, &mut stats) {
            failures.push(e);
        }
        let input = t["input"].as_str().unwrap();
        if t["base"].is_null() {
            if let Err(e) = agree(input, hostname, &mut stats) {
                failures.push(e);
            }
        }
    }
    eprintln!(
        "allowed/needs_dns {}, refused by range or name {}, refused as url.* {}",
        stats[0], stats[1], stats[2]
    );
    assert!(stats[0] > 100, "too few accepted: {stats:?}");
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn canonical_hrefs_without_userinfo_are_accepted_unless_refused_by_range_or_name() {
    for t in http_tests() {
        let href = t["href"].as_str().unwrap();
        if !t["username"].as_str().unwrap().is_empty()
            || !t["password"].as_str().unwrap().is_empty()
        {
            assert_eq!(
                classify_url(href).unwrap_err().code(),
                "url.userinfo",
                "{href}"
            );
            continue;
        }
        let parsed = Url::parse(href).unwrap();
        let code = host_code(&parsed.host().unwrap());
        match (classify_url(href), code) {
            (Ok(_), None) | (Err(_), Some(_)) => {}
            (r, c) => {
                // Only the text-level refusals may remain, and only for a reason we can name.
                let d = r.as_ref().err().map(|d| d.code());
                assert!(
                    matches!(d, Some("url.ambiguous")) && c.is_none(),
                    "{href}: classify {r:?}, host code {c:?}"
                );
            }
        }
    }
}
