//! `toolgate extract`, `toolgate metadata` and the hidden worker.
//!
//! Exit codes: 0 success; 1 the file could not be read (the error kind first
//! on stderr: `error: <kind>: <message>`); 2 usage errors (clap).
//!
//! Nothing from the file reaches the terminal raw ([`toolgate::terminal`]):
//! errors and warnings have their control characters escaped; JSON output
//! has DEL and C1 escaped too (serde_json escapes C0); plain text has every
//! control character but newline and tab replaced by U+FFFD, and pages
//! end with a form feed (as pdftotext's do) only when stdout is not a
//! terminal (a newline when it is).
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use toolgate::pdf::{self, Isolation, Options, PageRange, PdfError, Source};
use toolgate::terminal::{json_for_terminal, printable_text};

/// Arguments of `toolgate extract`.
#[derive(Debug, clap::Args)]
pub struct ExtractArgs {
    /// The PDF file.
    pub file: PathBuf,
    /// 1-based page range, `N`, `N-M` or `N-`.
    #[arg(long)]
    pub pages: Option<PageRange>,
    /// Print JSON instead of plain text.
    #[arg(long)]
    pub json: bool,
    /// Password for encrypted files.
    #[arg(long)]
    pub password: Option<String>,
}

/// Arguments of `toolgate metadata`.
#[derive(Debug, clap::Args)]
pub struct MetadataArgs {
    /// The PDF file.
    pub file: PathBuf,
    /// Password for encrypted files.
    #[arg(long)]
    pub password: Option<String>,
}

/// Arguments of the hidden worker subcommand (set by the parent process).
#[derive(Debug, clap::Args)]
pub struct WorkerArgs {
    /// Address-space limit, bytes.
    #[arg(long)]
    pub memory_bytes: u64,
    /// CPU-time limit, seconds.
    #[arg(long)]
    pub cpu_seconds: u64,
    /// Started ahead of need: warm the extractor up before waiting.
    #[arg(long)]
    pub warm: bool,
}

fn fail(e: &PdfError) -> ExitCode {
    report!("error: {e}");
    ExitCode::from(1)
}

fn isolation() -> Result<Isolation, PdfError> {
    Isolation::current_exe()
}

fn print_json<T: serde::Serialize>(value: &T) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match serde_json::to_string_pretty(value)
        .map_err(std::io::Error::other)
        .and_then(|json| writeln!(out, "{}", json_for_terminal(&json)))
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => write_failed(&e),
    }
}

/// The exit of a command whose output could not be written: a reader
/// that went away (`toolgate extract f.pdf | head`) took what it wanted,
/// as with `cat`: success, silently; any other error is reported (1).
fn write_failed(e: &std::io::Error) -> ExitCode {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return ExitCode::SUCCESS;
    }
    report!("error: io: {e}");
    ExitCode::from(1)
}

pub fn run_extract(a: ExtractArgs) -> ExitCode {
    let options = Options {
        password: a.password,
        ..Options::default()
    };
    let result = isolation()
        .and_then(|iso| pdf::extract_isolated(Source::Path(&a.file), a.pages, &options, &iso));
    let extraction = match result {
        Ok(x) => x,
        Err(e) => return fail(&e),
    };
    for w in &extraction.warnings {
        match w.page {
            Some(p) => report!("warning: page {p}: {}", w.message),
            None => report!("warning: {}", w.message),
        }
    }
    if a.json {
        return print_json(&extraction);
    }
    let mut out = std::io::stdout().lock();
    // Pages end with a form feed, as pdftotext's do, unless on a terminal.
    let page_end = if out.is_terminal() { "\n" } else { "\n\x0c" };
    let written = extraction
        .pages
        .iter()
        .try_for_each(|p| {
            let text = printable_text(p.text.trim_end_matches('\n'));
            write!(out, "{text}{page_end}")
        })
        .and_then(|()| out.flush());
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => write_failed(&e),
    }
}

pub fn run_metadata(a: MetadataArgs) -> ExitCode {
    let options = Options {
        password: a.password,
        ..Options::default()
    };
    match isolation().and_then(|iso| pdf::metadata_isolated(Source::Path(&a.file), &options, &iso))
    {
        Ok(m) => print_json(&m),
        Err(e) => fail(&e),
    }
}

pub fn run_worker(a: WorkerArgs) -> ExitCode {
    ExitCode::from(toolgate::pdf::worker::serve(
        a.memory_bytes,
        a.cpu_seconds,
        a.warm,
    ))
}
