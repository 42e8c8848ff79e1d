//! `toolgate extract`, `toolgate metadata` and the hidden worker.
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `toolgate extract`.
#[derive(Debug, clap::Args)]
pub struct ExtractArgs {
    /// The PDF file.
    pub file: PathBuf,
    /// 1-based page range, `N` or `N-M`.
    #[arg(long)]
    pub pages: Option<String>,
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

/// Arguments of the hidden worker subcommand.
#[derive(Debug, clap::Args)]
pub struct WorkerArgs {}

pub fn run_extract(_a: ExtractArgs) -> ExitCode {
    ExitCode::from(1)
}

pub fn run_metadata(_a: MetadataArgs) -> ExitCode {
    ExitCode::from(1)
}

pub fn run_worker(_a: WorkerArgs) -> ExitCode {
    ExitCode::from(1)
}
