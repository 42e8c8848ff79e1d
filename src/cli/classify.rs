//! `toolgate classify INPUT...`: one JSON line per input,
//! `{"input":…, "verdict":"allow"|"deny"|"needs_dns", "code":…, "reason":…}`.
//!
//! How an input is read:
//! 1. a strict IP literal (`10.0.0.1`, `::ffff:1.2.3.4`; what `std` parses) is
//!    an address: `classify_ip`;
//! 2. text with `://`, a special scheme and `:` (`http:127.0.0.1`), or
//!    `scheme:` followed by something other than a port number
//!    (`javascript:…`, `mailto:…`), is a URL: `classify_url`;
//! 3. anything else is a host, optionally with `:port` (`localhost`,
//!    `0x7f.1`, `[::1]:8080`, `fe80::1%eth0`): `classify_host`, i.e. as
//!    inside `http://HOST/`.
//!
//! `code` is the denial code for `deny`, `public` for `allow` and
//! `dns_required` for `needs_dns`. Exit 0 when every input was classified,
//! whatever the verdicts; 2 on usage errors (clap).
use serde_json::json;
use std::ffi::OsString;
use std::io::Write;
use std::net::IpAddr;
use std::process::ExitCode;
use toolgate::net::{classify_host, classify_ip, classify_url, Denial, Destination};
use toolgate::terminal::json_for_terminal;

/// Arguments of `toolgate classify`.
#[derive(Debug, clap::Args)]
pub struct ClassifyArgs {
    /// URLs, hosts or IP addresses.
    #[arg(required = true)]
    pub inputs: Vec<OsString>,
}

pub fn run(a: ClassifyArgs) -> ExitCode {
    let mut out = std::io::stdout().lock();
    for raw in &a.inputs {
        let input = raw.to_string_lossy();
        let (verdict, code, reason) = match raw.to_str() {
            Some(s) => classify_one(s),
            // Not an error of usage: the input was given, and it is refused.
            None => (
                "deny",
                toolgate::net::DenialCode::Malformed.as_str(),
                "the input is not valid UTF-8".to_owned(),
            ),
        };
        // Keys in the documented order: input, verdict, code, reason (a `json!` object would sort them).
        let line = format!(
            "{{\"input\":{},\"verdict\":{},\"code\":{},\"reason\":{}}}",
            json!(input.as_ref()),
            json!(verdict),
            json!(code),
            json!(reason)
        );
        if writeln!(out, "{}", json_for_terminal(&line)).is_err() {
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}

fn classify_one(input: &str) -> (&'static str, &'static str, String) {
    if let Ok(ip) = input.parse::<IpAddr>() {
        let reach = classify_ip(ip);
        return match reach.denial(ip) {
            Some(d) => ("deny", d.code(), d.reason().into_owned()),
            None => ("allow", "public", reach.describe(ip)),
        };
    }
    let result = if looks_like_url(input) {
        classify_url(input)
    } else {
        classify_host(input)
    };
    verdict(result)
}

fn verdict(r: Result<Destination, Denial>) -> (&'static str, &'static str, String) {
    match r {
        Err(d) => ("deny", d.code(), d.reason().into_owned()),
        Ok(dest) => match dest.domain() {
            Some(name) => (
                "needs_dns",
                "dns_required",
                format!("`{name}` is a domain name: resolve it once and vet every address"),
            ),
            None => (
                "allow",
                "public",
                format!("{} is a global unicast address", dest.url()),
            ),
        },
    }
}

/// The WHATWG special schemes: `http:127.0.0.1` is a URL (without its
/// slashes), never a host `http` with a port.
const SPECIAL_SCHEMES: &[&str] = &["http", "https", "ws", "wss", "ftp", "file"];

/// `scheme:` then not a port number (`localhost:8080` is a host with a
/// port), unless the scheme is a special one; bare IPv6 text, even with a
/// zone (`fe80::1%eth0`), is a host.
fn looks_like_url(input: &str) -> bool {
    if input.contains("://") {
        return true;
    }
    let before_zone = input.split('%').next().unwrap_or(input);
    if before_zone.parse::<std::net::Ipv6Addr>().is_ok() {
        return false;
    }
    let Some((scheme, rest)) = input.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    let scheme_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return false;
    }
    if SPECIAL_SCHEMES
        .iter()
        .any(|s| scheme.eq_ignore_ascii_case(s))
    {
        return true;
    }
    !rest.chars().next().is_some_and(|c| c.is_ascii_digit())
}
