//! `toolgate gate`: the policy layer's properties, and the gateway end to
//! end over pipes (one test binary; regressions in `proptest-regressions/gate.txt`).
#![cfg(feature = "gate")]

#[cfg(feature = "cli")]
mod lifecycle;
#[cfg(feature = "cli")]
mod load;
mod props;
#[cfg(feature = "cli")]
mod session;

/// The path of a fake server under `tests/servers/`.
#[cfg(feature = "cli")]
fn server(name: &str) -> String {
    format!("{}/tests/servers/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Starts `command` with its stdin and stdout piped to the test, its
/// stderr dropped.
#[cfg(feature = "cli")]
fn spawn_piped(command: &mut std::process::Command) -> std::process::Child {
    use std::process::Stdio;
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}
