//! `toolgate parse` and `toolgate json-check`: the core's parsers from a shell.
//!
//! Input is read with the payload bound in force: at most
//! `MAX_PAYLOAD_BYTES + 1` bytes are kept, the rest of an oversized input is
//! only counted, up to [`MAX_COUNTED_BYTES`], so the reported length is
//! exact below that, memory stays bounded and an endless input (`/dev/zero`,
//! `yes |`) ends.
use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use toolgate::json::{self, Limits};
use toolgate::rpc;
use toolgate::terminal::json_for_terminal;

/// Size of the buffer used to count (not keep) the bytes past the bound.
const DRAIN_CHUNK: usize = 64 * 1024;

/// Most bytes of an oversized input counted for its reported length (1 GiB);
/// reading stops there and the length is reported as at least that.
pub(crate) const MAX_COUNTED_BYTES: usize = 1 << 30;

/// The input, truncated to `limit + 1` bytes, and its full length.
fn read_bounded(file: Option<&Path>, limit: usize) -> std::io::Result<(Vec<u8>, usize)> {
    let mut reader: Box<dyn Read> = match file {
        Some(p) => Box::new(std::fs::File::open(p)?),
        None => Box::new(std::io::stdin().lock()),
    };
    let keep = limit.saturating_add(1);
    let mut data = Vec::new();
    (&mut reader)
        .take(u64::try_from(keep).unwrap_or(u64::MAX))
        .read_to_end(&mut data)?;
    let mut total = data.len();
    if data.len() >= keep {
        let mut buf = vec![0u8; DRAIN_CHUNK];
        while total < MAX_COUNTED_BYTES {
            let n = reader.read(&mut buf)?;
            if n == 0 {
                break;
            }
            total = total.saturating_add(n);
        }
    }
    Ok((data, total))
}

fn read_or_report(file: Option<&Path>, cmd: &str) -> Result<(Vec<u8>, usize), ExitCode> {
    let read = read_bounded(file, json::MAX_PAYLOAD_BYTES);
    if read
        .as_ref()
        .is_ok_and(|(_, total)| *total >= MAX_COUNTED_BYTES)
    {
        report!("toolgate {cmd}: the input goes on past {MAX_COUNTED_BYTES} bytes: counting stopped there");
    }
    read.map_err(|e| {
        let what = file.map_or_else(|| "stdin".to_owned(), |p| p.display().to_string());
        // Exit 1 like a bad input (and like `extract` on an unreadable file):
        // 2 is kept for usage errors.
        report!("toolgate {cmd}: io: cannot read {what}: {e}");
        ExitCode::from(1)
    })
}

fn print_line(v: &serde_json::Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", json_for_terminal(&v.to_string()));
}

/// `toolgate parse [FILE]`: 0 and the request, or 1 and the exact JSON-RPC
/// error response a server would send; 1 with `io:` on stderr when the input
/// cannot be read; 2 on usage errors.
pub fn run_parse(file: Option<&Path>) -> ExitCode {
    let (data, total) = match read_or_report(file, "parse") {
        Ok(x) => x,
        Err(code) => return code,
    };
    let limits = Limits::default();
    let result = if total > limits.max_payload_bytes {
        Err(rpc::Rejected::without_id(rpc::RpcError::Json(
            json::JsonError::TooLarge {
                len: total,
                limit: limits.max_payload_bytes,
            },
        )))
    } else {
        rpc::parse_tool_call_with(&data, &limits)
    };
    match result {
        Ok(req) => {
            // Members in the documented order: id, name, arguments.
            let line = format!(
                "{{\"id\":{},\"name\":{},\"arguments\":{}}}",
                req.id.to_value(),
                serde_json::Value::String(req.name.clone()),
                serde_json::Value::Object(req.arguments())
            );
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", json_for_terminal(&line));
            ExitCode::SUCCESS
        }
        Err(rejected) => {
            print_line(&rejected.to_response());
            ExitCode::from(1)
        }
    }
}

/// `toolgate json-check [FILE]`: 0 when the strict JSON layer accepts the
/// input, 1 with the typed error (or `io:` when it cannot be read) on stderr,
/// 2 on usage errors.
pub fn run_json_check(file: Option<&Path>) -> ExitCode {
    let (data, total) = match read_or_report(file, "json-check") {
        Ok(x) => x,
        Err(code) => return code,
    };
    let limits = Limits::default();
    let result = if total > limits.max_payload_bytes {
        Err(json::JsonError::TooLarge {
            len: total,
            limit: limits.max_payload_bytes,
        })
    } else {
        json::parse_strict(&data, &limits).map(|_| ())
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            report!("toolgate json-check: {}: {e}", e.code());
            ExitCode::from(1)
        }
    }
}
