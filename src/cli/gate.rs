//! `toolgate gate`: the policy gateway in front of a stdio MCP server.
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use toolgate::gate::{
    splits_a_path, Audit, DenyAs, GateConfig, Gatekeeper, PathLists, PinMode, Pins, PoisonMode,
    Policy, Roots, DEFAULT_AUDIT_MAX_BYTES, DEFAULT_MAX_RESPONSE_BYTES, MIN_AUDIT_MAX_BYTES,
};

use super::mcp::{init_logging, parse_log_filter};

/// Arguments of `toolgate gate`.
#[derive(Debug, clap::Args)]
pub struct GateArgs {
    /// Policy file (TOML): [tools], [[args]], [net], [[limits]], [paths].
    #[arg(long)]
    pub policy: Option<PathBuf>,
    /// Path arguments must resolve inside this directory (repeatable).
    #[arg(long = "root")]
    pub roots: Vec<PathBuf>,
    /// Append a JSON line per refusing or changing decision to FILE (mode 0600).
    #[arg(long)]
    pub audit: Option<PathBuf>,
    /// Audit every call, not only refusals and changes.
    #[arg(long, requires = "audit")]
    pub audit_all: bool,
    /// Rotate the audit file (once, to FILE.1) past this many bytes (at
    /// least 1 MiB).
    #[arg(long, default_value_t = DEFAULT_AUDIT_MAX_BYTES,
          value_parser = clap::value_parser!(u64).range(MIN_AUDIT_MAX_BYTES..))]
    pub audit_max_bytes: u64,
    /// Pin tool definitions in FILE (created on first use).
    #[arg(long)]
    pub pin: Option<PathBuf>,
    /// Accept the current tool definitions into the pin file.
    #[arg(long, requires = "pin")]
    pub pin_update: bool,
    /// Resolve host names at the gateway and vet their addresses.
    #[arg(long)]
    pub resolve: bool,
    /// How a refused tools/call is answered: `result` (isError) or `error` (-32001).
    #[arg(long, value_parser = ["result", "error"], default_value = "result")]
    pub deny_as: String,
    /// Answer a call with an error after S seconds and cancel it at the server.
    #[arg(long, value_name = "S")]
    pub call_timeout: Option<f64>,
    /// How long a cancelled or timed-out call keeps its id and its
    /// max_concurrent slot when the server does not answer it, in seconds
    /// (past its --call-timeout, or past the cancellation without one).
    #[arg(long, value_name = "S", default_value_t = toolgate::gate::CANCELLED_CALL_DEADLINE.as_secs_f64())]
    pub cancel_hold: f64,
    /// What to do with hidden characters in tool definitions and results.
    #[arg(long, value_parser = ["keep", "strip", "refuse"], default_value = "strip")]
    pub poison: String,
    /// Bound on one line from the server, in bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_RESPONSE_BYTES)]
    pub max_response_bytes: usize,
    /// Pass this environment variable on to the server (repeatable).
    #[arg(long = "env", value_name = "NAME")]
    pub env: Vec<String>,
    /// Log level for stderr (overrides RUST_LOG).
    #[arg(long, value_parser = parse_log_filter)]
    pub log_level: Option<String>,
    /// The server command and its arguments.
    #[arg(last = true, required = true, num_args = 1..)]
    pub command: Vec<OsString>,
}

fn usage(message: impl std::fmt::Display) -> ExitCode {
    report!("toolgate gate: {message}");
    ExitCode::from(2)
}

pub fn run(args: GateArgs) -> ExitCode {
    init_logging(args.log_level.as_deref());
    let mut policy = match &args.policy {
        None => Policy::default(),
        Some(p) => {
            let text = match std::fs::read_to_string(p) {
                Ok(t) => t,
                Err(e) => return usage(format_args!("{}: {e}", p.display())),
            };
            match Policy::parse(&text) {
                Ok(p) => p,
                Err(e) => return usage(format_args!("{}: {e}", p.display())),
            }
        }
    };
    policy.resolve |= args.resolve;
    policy.roots.extend(args.roots.iter().cloned());
    let cwd = match std::env::current_dir() {
        Ok(c) => c,
        Err(e) => return usage(format_args!("working directory: {e}")),
    };
    let roots = if policy.roots.is_empty() {
        if let Some(line) = policy.first_path_rule() {
            return usage(format_args!(
                "policy line {line}: a kind = \"path\" rule needs a root (--root or [paths] roots)"
            ));
        }
        // Loud: a server that reads files gets any path it is given.
        tracing::warn!(
            "no --root (nor [paths] roots): path arguments are not confined; URLs are still checked"
        );
        None
    } else {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        match Roots::new(
            &policy.roots,
            cwd,
            home,
            policy.relative,
            policy.tilde,
            policy.variables,
        ) {
            Ok(r) => {
                // Loud: every path under such a root is refused (a server
                // splitting the text reads the root's neighbour first).
                for root in r.roots() {
                    if policy.lists == PathLists::Split && splits_a_path(root) {
                        tracing::warn!(
                            root = %root.display(),
                            "the root's path holds white space, `,`, `;`, `|` or `:`, where a server taking several paths in one argument splits it: every path under it is refused unless the policy says the server takes a path whole ([paths] lists = \"whole\")"
                        );
                    }
                }
                Some(r)
            }
            Err(e) => return usage(e),
        }
    };
    let poison = PoisonMode::parse(&args.poison).unwrap_or_default();
    let (pin, pins) = match &args.pin {
        None => (PinMode::Off, None),
        Some(path) if args.pin_update => (PinMode::Learn(path.clone()), None),
        Some(path) => match Pins::load(path) {
            Ok(Some(p)) => (PinMode::Enforce(path.clone()), Some(p)),
            Ok(None) => (PinMode::Learn(path.clone()), None),
            Err(e) => return usage(format_args!("--pin {}: {e}", path.display())),
        },
    };
    // What is learned must be kept: a pin file that cannot be written is
    // found now, not after the first listing.
    if let PinMode::Learn(path) = &pin {
        if let Err(e) = Pins::check_writable(path) {
            return usage(format_args!(
                "--pin {}: cannot be written: {e}",
                path.display()
            ));
        }
    }
    let audit = match &args.audit {
        None => None,
        Some(p) => match Audit::open(p, args.audit_max_bytes) {
            Ok(a) => Some(a),
            Err(e) => return usage(format_args!("--audit {}: {e}", p.display())),
        },
    };
    let call_timeout = match args.call_timeout {
        None => None,
        Some(s) if s.is_finite() && s > 0.0 && s < 1e9 => Some(Duration::from_secs_f64(s)),
        Some(_) => return usage("--call-timeout must be a positive number of seconds"),
    };
    let cancel_hold = match args.cancel_hold {
        s if s.is_finite() && s > 0.0 && s < 1e9 => Duration::from_secs_f64(s),
        _ => return usage("--cancel-hold must be a positive number of seconds"),
    };
    let config = GateConfig {
        keeper: Gatekeeper {
            policy,
            roots,
            poison,
        },
        deny_as: if args.deny_as == "error" {
            DenyAs::Error
        } else {
            DenyAs::Result
        },
        call_timeout,
        cancel_hold,
        max_response_bytes: args.max_response_bytes,
        pin,
        pins,
        audit,
        audit_all: args.audit_all,
    };
    let Some((cmd, rest)) = args.command.split_first() else {
        return usage("no server command after --");
    };
    match toolgate::gate::run(config, cmd, rest, &args.env) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => {
            report!("toolgate gate: {}: {e}", cmd.to_string_lossy());
            ExitCode::from(1)
        }
    }
}
