//! clap definitions and dispatch. Exit codes: 0 success, 1 rejected input or
//! failed job, 2 usage error (clap's own code for bad arguments).
//!
//! Every line this program writes to stderr goes through [`report`], which
//! escapes control and bidirectional characters (`toolgate::terminal`):
//! operator arguments, file names, error texts and child output may all
//! carry them. `clippy::print_stderr` keeps it that way.
#![deny(clippy::print_stderr, clippy::print_stdout)]

use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// `eprintln!` for this program: one line through [`report`].
macro_rules! report {
    ($($arg:tt)*) => {
        $crate::cli::report(format_args!($($arg)*))
    };
}

mod classify;
mod fetch;
mod gate;
mod mcp;
mod parse;
mod pdf;

/// toolgate: vetted JSON-RPC core, SSRF classifier and MCP stdio server for PDF tools.
#[derive(Debug, Parser)]
#[command(name = "toolgate", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the PDF tools over MCP (newline-delimited JSON-RPC 2.0 on stdio).
    Mcp(mcp::McpArgs),
    /// Put a policy gateway in front of a stdio MCP server: toolgate gate [OPTIONS] -- CMD [ARGS...]
    Gate(gate::GateArgs),
    /// Extract text from a PDF file.
    Extract(pdf::ExtractArgs),
    /// Print a PDF file's metadata as JSON.
    Metadata(pdf::MetadataArgs),
    /// Classify URLs or IP addresses as SSRF destinations (one JSON line each).
    Classify(classify::ClassifyArgs),
    /// Fetch one URL through the SSRF-safe fetcher (body to stdout or -o FILE).
    Fetch(fetch::FetchArgs),
    /// Parse a JSON-RPC 2.0 tools/call request (stdin when FILE is absent).
    Parse {
        /// File holding the request; stdin when absent.
        file: Option<PathBuf>,
    },
    /// Run the strict JSON layer alone on FILE (stdin when absent).
    JsonCheck {
        /// File holding the JSON text; stdin when absent.
        file: Option<PathBuf>,
    },
    /// Internal: the isolated PDF worker process. Not for direct use.
    #[command(hide = true)]
    PdfWorker(pdf::WorkerArgs),
}

/// Writes one message line to stderr with every control character and
/// every bidirectional formatting character escaped
/// ([`toolgate::terminal::escape_controls`]): nothing in it can colour the
/// terminal or start a line of its own.
pub(crate) fn report(line: impl std::fmt::Display) {
    let line = line.to_string();
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{}", toolgate::terminal::escape_controls(&line));
}

/// clap's message for a command line it refused, safe for a terminal.
/// An argument may hold control or bidirectional characters (a file name, a
/// typo, a pasted value), which clap would quote raw: the command line is
/// parsed again with every argument escaped ([`toolgate::terminal::escape_controls`])
/// and that refusal, of the same kind, is shown; when the escaped line is
/// not refused alike, the kind alone (an argument may be a password, so
/// none is listed). Either way every line is written as a message.
fn usage_error_text(e: &clap::Error, args: &[OsString]) -> String {
    if let Some(text) = invalid_value_text(e) {
        return text;
    }
    let shown: Vec<String> = args
        .iter()
        .map(|a| toolgate::terminal::escape_controls(&a.to_string_lossy()).into_owned())
        .collect();
    let rendered = match Cli::try_parse_from(&shown) {
        Err(again) if again.kind() == e.kind() => again.render().to_string(),
        // Not the arguments themselves: one may be a password.
        _ => format!(
            "error: the command line was refused ({}): an argument is not valid UTF-8 or holds a control character\n\nFor more information, try '--help'.",
            e.kind()
        ),
    };
    rendered
        .lines()
        .map(|l| toolgate::terminal::escape_controls(l).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A value refused by its parser, told from the original refusal: the
/// value and the parser's reason escaped, so the reason names the character
/// the user typed (parsing the escaped line again would make it `\`).
/// `None` for any other kind of refusal.
fn invalid_value_text(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::ValueValidation {
        return None;
    }
    let text = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.as_str()),
        _ => None,
    };
    let (arg, value) = (
        text(ContextKind::InvalidArg)?,
        text(ContextKind::InvalidValue)?,
    );
    let reason = std::error::Error::source(e).map(ToString::to_string)?;
    let escape = |s: &str| toolgate::terminal::escape_controls(s).into_owned();
    Some(format!(
        "error: invalid value '{}' for '{}': {}\n\nFor more information, try '--help'.",
        escape(value),
        escape(arg),
        escape(&reason)
    ))
}

/// Parses the command line and runs the subcommand.
pub fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version: clap's own text, to stdout.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let text = usage_error_text(&e, &args);
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "{}", text.trim_end());
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    match cli.command {
        Command::Mcp(a) => mcp::run(a),
        Command::Gate(a) => gate::run(a),
        Command::Extract(a) => pdf::run_extract(a),
        Command::Metadata(a) => pdf::run_metadata(a),
        Command::Classify(a) => classify::run(a),
        Command::Fetch(a) => fetch::run(a),
        Command::Parse { file } => parse::run_parse(file.as_deref()),
        Command::JsonCheck { file } => parse::run_json_check(file.as_deref()),
        Command::PdfWorker(a) => pdf::run_worker(a),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_argument_is_shown_escaped() {
        let bad = OsString::from("--\u{1b}[31mred\nerror: forged\u{202e}");
        let args = [OsString::from("toolgate"), OsString::from("classify"), bad];
        let e = Cli::try_parse_from(&args).unwrap_err();
        let text = usage_error_text(&e, &args);
        assert!(
            text.contains("\\x1b[31mred\\x0aerror: forged\\u{202e}"),
            "{text}"
        );
        assert!(
            !text.lines().any(|l| l.starts_with("error: forged")),
            "{text}"
        );
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text}");
        // Refused alike once escaped: clap's own message.
        assert!(text.contains("unexpected argument"), "{text}");
    }

    /// A value its parser refused: the reason is the parser's on the value
    /// as typed (the control character, not the `\` of its escape), the
    /// value and the reason escaped.
    #[test]
    fn a_refused_value_names_the_character_typed() {
        let args = [
            OsString::from("toolgate"),
            OsString::from("fetch"),
            OsString::from("--allow"),
            OsString::from("10.0.0.1\u{1b}[2J\n"),
            OsString::from("http://x/"),
        ];
        let e = Cli::try_parse_from(&args).unwrap_err();
        let text = usage_error_text(&e, &args);
        assert!(text.starts_with("error: invalid value '10.0.0.1\\x1b[2J\\x0a' for '--allow <ENTRY>': character U+001B at byte 8"), "{text}");
        assert!(
            text.ends_with("For more information, try '--help'."),
            "{text}"
        );
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text}");
        let args = [
            OsString::from("toolgate"),
            OsString::from("extract"),
            OsString::from("--pages"),
            OsString::from("2-1\u{9b}"),
            OsString::from("a.pdf"),
        ];
        let e = Cli::try_parse_from(&args).unwrap_err();
        let text = usage_error_text(&e, &args);
        assert!(
            text.starts_with(
                "error: invalid value '2-1\\x9b' for '--pages <PAGES>': invalid page range"
            ),
            "{text}"
        );
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text}");
    }

    /// Refused otherwise once escaped (invalid UTF-8 becomes U+FFFD): the
    /// original refusal's kind, no argument.
    #[test]
    fn a_refusal_that_escaping_changes_lists_the_arguments() {
        use std::os::unix::ffi::OsStringExt;
        let args = [
            OsString::from("toolgate"),
            OsString::from("extract"),
            OsString::from("--pages"),
            OsString::from_vec(b"1\xff\x1b".to_vec()),
            OsString::from("a.pdf"),
        ];
        let e = Cli::try_parse_from(&args).unwrap_err();
        let text = usage_error_text(&e, &args);
        assert!(
            text.starts_with("error: the command line was refused"),
            "{text}"
        );
        assert!(!text.contains("--pages"), "{text}");
        // A password that is not valid UTF-8 is never echoed.
        let args = [
            OsString::from("toolgate"),
            OsString::from("extract"),
            OsString::from("--password"),
            OsString::from_vec(b"s3cret\xff".to_vec()),
            OsString::from("a.pdf"),
        ];
        let e = Cli::try_parse_from(&args).unwrap_err();
        let text = usage_error_text(&e, &args);
        assert!(!text.contains("s3cret"), "{text}");
    }
}
