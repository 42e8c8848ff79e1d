//! `toolgate classify`.
use std::process::ExitCode;

/// Arguments of `toolgate classify`.
#[derive(Debug, clap::Args)]
pub struct ClassifyArgs {
    /// URLs or IP addresses.
    #[arg(required = true)]
    pub inputs: Vec<String>,
}

pub fn run(_a: ClassifyArgs) -> ExitCode {
    ExitCode::from(1)
}
