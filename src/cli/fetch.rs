//! `toolgate fetch URL [--allow ENTRY]... [--deny ENTRY]... [--allow-http]
//! [--max-bytes N] [-o FILE]`: one vetted GET ([`toolgate::net::fetch`]).
//!
//! The body goes to stdout (or FILE, written only once the whole body is
//! in), exit 0. Any failure exits 1 with `error: CODE: reason` on stderr:
//! a refusal carries the denial code (`ssrf.*`, `url.*`, ...), the rest a
//! `fetch.*` / `http.*` code; the reason never carries credentials or the
//! query string. Bad entries are usage errors (exit 2).
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use toolgate::net::fetch::{FetchCode, FetchPolicy, Fetcher, DEFAULT_MAX_BODY_BYTES};
use toolgate::net::{Entry, NetPolicy};

/// Arguments of `toolgate fetch`.
#[derive(Debug, clap::Args)]
pub struct FetchArgs {
    /// The URL: https, or http with --allow-http.
    pub url: String,
    /// Let ENTRY (CIDR or HOST[:PORT]) through the private-range and loopback
    /// checks; never a cloud metadata address or name. Repeatable.
    #[arg(long = "allow", value_name = "ENTRY", value_parser = Entry::parse)]
    pub allow: Vec<Entry>,
    /// Refuse ENTRY (CIDR or HOST[:PORT]), whatever else allows it. Repeatable.
    #[arg(long = "deny", value_name = "ENTRY", value_parser = Entry::parse)]
    pub deny: Vec<Entry>,
    /// Fetch plain http URLs too (an https to http redirect stays refused).
    #[arg(long)]
    pub allow_http: bool,
    /// Body cap in bytes, enforced while the body streams in.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_BODY_BYTES)]
    pub max_bytes: usize,
    /// Write the body to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// The reason may quote the server (a redirect target, a status line):
/// its control characters are escaped ([`toolgate::terminal`]).
fn fail(code: &str, reason: impl std::fmt::Display) -> ExitCode {
    report!("error: {code}: {reason}");
    ExitCode::from(1)
}

pub fn run(a: FetchArgs) -> ExitCode {
    let net = match NetPolicy::new(a.allow, a.deny) {
        Ok(n) => n,
        Err(e) => {
            report!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let policy = FetchPolicy {
        allow_http: a.allow_http,
        net,
        max_body_bytes: a.max_bytes,
        ..FetchPolicy::default()
    };
    let fetched = match Fetcher::new(policy).and_then(|f| f.fetch_blocking(&a.url)) {
        Ok(f) => f,
        Err(e) => return fail(e.code(), e.reason()),
    };
    let written = match &a.output {
        Some(path) => std::fs::write(path, fetched.body())
            .map_err(|e| format!("cannot write {}: {e}", path.display())),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(fetched.body())
                .and_then(|()| out.flush())
                .map_err(|e| format!("cannot write stdout: {e}"))
        }
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(reason) => fail(FetchCode::Output.code(), reason),
    }
}
