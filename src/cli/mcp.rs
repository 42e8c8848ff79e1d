//! `toolgate mcp`.
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `toolgate mcp`.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// Confine every file path to this directory.
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Log level for stderr (overrides RUST_LOG).
    #[arg(long)]
    pub log_level: Option<String>,
}

pub fn run(_args: McpArgs) -> ExitCode {
    eprintln!("toolgate mcp: not yet implemented");
    ExitCode::from(1)
}
