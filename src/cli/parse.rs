//! `toolgate parse` and `toolgate json-check`.
use std::path::Path;
use std::process::ExitCode;

pub fn run_parse(_file: Option<&Path>) -> ExitCode {
    ExitCode::from(1)
}

pub fn run_json_check(_file: Option<&Path>) -> ExitCode {
    ExitCode::from(1)
}
