//! The `toolgate` command line. Each subcommand lives in its own `cli/` module.
#![forbid(unsafe_code)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
