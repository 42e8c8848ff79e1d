//! `toolgate mcp`.
use std::io::{self, BufReader, BufWriter};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use toolgate::engine::transport::stdio;
use toolgate::mcp::{Config, DefaultPdf, Server};
use toolgate::net::fetch::{FetchPolicy, Fetcher};
use toolgate::net::{Entry, NetPolicy};

/// Arguments of `toolgate mcp`.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// Confine every file path to this directory (required unless --unconfined).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Serve every file this process can read, with no root directory (dangerous;
    /// logged as a warning, and the tool descriptions say so).
    #[arg(long, conflicts_with = "root")]
    pub unconfined: bool,
    /// Refuse files with more than one hard link (path.multiply_linked): a hard
    /// link inside the root may name a file outside it, which no path check sees.
    #[arg(long)]
    pub refuse_hard_links: bool,
    /// Log level for stderr (overrides RUST_LOG), e.g. `info`, `debug`, `toolgate=trace`.
    #[arg(long, value_parser = parse_log_filter)]
    pub log_level: Option<String>,
    /// Tool calls run at once (default: the machine's available parallelism); more
    /// wait in a bounded queue, and beyond it are refused as server busy (-32000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub max_concurrent_calls: Option<u16>,
    /// Fetch http(s) URLs given as a tool's `path` through the SSRF-safe fetcher
    /// (off by default: every URL is refused). Private, loopback, link-local and
    /// metadata destinations stay refused unless --allow lets them through.
    #[arg(long)]
    pub allow_remote: bool,
    /// With --allow-remote: let ENTRY (CIDR or HOST[:PORT]) through the
    /// private-range and loopback checks; never a cloud metadata address. Repeatable.
    #[arg(long = "allow", value_name = "ENTRY", value_parser = Entry::parse, requires = "allow_remote")]
    pub allow: Vec<Entry>,
    /// With --allow-remote: refuse ENTRY (CIDR or HOST[:PORT]) whatever else
    /// allows it. Repeatable.
    #[arg(long = "deny", value_name = "ENTRY", value_parser = Entry::parse, requires = "allow_remote")]
    pub deny: Vec<Entry>,
    /// With --allow-remote: fetch plain http URLs too (https to http redirects
    /// stay refused).
    #[arg(long, requires = "allow_remote")]
    pub allow_http: bool,
    /// Tools per tools/list page (testing pagination).
    #[arg(long, hide = true, default_value_t = toolgate::mcp::TOOLS_PAGE_SIZE)]
    pub page_size: usize,
}

/// The fetcher of `--allow-remote`: the entries, the scheme rule, and
/// `max_pdf_bytes` as its body cap. `None` without `--allow-remote`.
fn remote(args: &McpArgs, max_pdf_bytes: u64) -> Result<Option<Arc<Fetcher>>, String> {
    if !args.allow_remote {
        return Ok(None);
    }
    let net = NetPolicy::new(args.allow.clone(), args.deny.clone()).map_err(|e| e.to_string())?;
    let policy = FetchPolicy {
        allow_http: args.allow_http,
        net,
        max_body_bytes: usize::try_from(max_pdf_bytes).unwrap_or(usize::MAX),
        ..FetchPolicy::default()
    };
    Fetcher::new(policy)
        .map(|f| Some(Arc::new(f)))
        .map_err(|e| e.to_string())
}

pub fn run(args: McpArgs) -> ExitCode {
    init_logging(args.log_level.as_deref());
    if args.root.is_none() && !args.unconfined {
        report!(
            "toolgate mcp: pass --root DIR, the directory whose files the tools may read \
             (or --unconfined to serve every file this process can read)"
        );
        return ExitCode::from(2);
    }
    let defaults = Config::default();
    let remote = match remote(&args, defaults.max_pdf_bytes) {
        Ok(r) => r,
        Err(e) => {
            report!("toolgate mcp: {e}");
            return ExitCode::from(2);
        }
    };
    let config = Config {
        remote,
        root: args.root,
        unconfined: args.unconfined,
        refuse_multiply_linked: args.refuse_hard_links,
        tools_page_size: args.page_size,
        max_concurrent_calls: args
            .max_concurrent_calls
            .map_or(defaults.max_concurrent_calls, usize::from),
        ..defaults
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            report!("toolgate mcp: cannot locate the worker executable: {e}");
            return ExitCode::from(1);
        }
    };
    let server = match Server::new(config.clone(), DefaultPdf::for_config(exe, &config)) {
        Ok(s) => s,
        Err(e) => {
            let root = config.root.as_deref().unwrap_or_else(|| "".as_ref());
            report!("toolgate mcp: --root {}: {e}", root.display());
            return ExitCode::from(2);
        }
    };
    if config.unconfined {
        tracing::warn!(
            "--unconfined: serving every file this process can read, with no root directory"
        );
    }
    if config.remote.is_some() {
        tracing::warn!("--allow-remote: http(s) URLs given as a path are fetched");
    }
    tracing::info!(root = ?config.root, calls = config.max_concurrent_calls, "serving MCP on stdio");
    let result = stdio::serve(
        server,
        config.engine(),
        BufReader::with_capacity(64 * 1024, io::stdin()),
        BufWriter::new(io::stdout()),
    );
    match result {
        Ok(_) => ExitCode::SUCCESS,
        // The client went away while we were answering: a normal end.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            report!("toolgate mcp: {e}");
            ExitCode::from(1)
        }
    }
}

/// Refuses a `--log-level` that `tracing_subscriber` would not take, so a typo
/// is a usage error (exit 2) instead of silently logging at `warn`.
/// A bare word that is not a level (`bogus`) would be taken by `EnvFilter` as
/// a target name and silently log nothing of ours, so it is refused too.
pub(super) fn parse_log_filter(s: &str) -> Result<String, String> {
    const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];
    for directive in s.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        let bare = !directive.contains('=') && !directive.contains('[');
        if bare && !LEVELS.iter().any(|l| l.eq_ignore_ascii_case(directive)) {
            return Err(format!(
                "{directive:?} is not a level (off, error, warn, info, debug, trace) nor a target=level directive"
            ));
        }
    }
    tracing_subscriber::EnvFilter::try_new(s)
        .map(|_| s.to_owned())
        .map_err(|e| format!("not a log filter (e.g. info, debug, toolgate=trace): {e}"))
}

/// Logs go to stderr only: stdout carries protocol messages.
pub(super) fn init_logging(level: Option<&str>) {
    use tracing_subscriber::EnvFilter;
    let filter = match level {
        Some(l) => EnvFilter::try_new(l),
        None => EnvFilter::try_from_default_env().or_else(|_| EnvFilter::try_new("warn")),
    }
    .unwrap_or_else(|_| EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| {
            toolgate::terminal::LogWriter::escaping(io::stderr(), toolgate::gate::is_hidden_char)
        })
        .with_ansi(false)
        .try_init();
}
