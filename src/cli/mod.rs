//! clap definitions and dispatch. Exit codes: 0 success, 1 rejected input or
//! failed job, 2 usage error (clap's own code for bad arguments).

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

mod classify;
mod fetch;
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

/// Parses the command line and runs the subcommand.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Mcp(a) => mcp::run(a),
        Command::Extract(a) => pdf::run_extract(a),
        Command::Metadata(a) => pdf::run_metadata(a),
        Command::Classify(a) => classify::run(a),
        Command::Fetch(a) => fetch::run(a),
        Command::Parse { file } => parse::run_parse(file.as_deref()),
        Command::JsonCheck { file } => parse::run_json_check(file.as_deref()),
        Command::PdfWorker(a) => pdf::run_worker(a),
    }
}
