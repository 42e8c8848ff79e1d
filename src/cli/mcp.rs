//! `toolgate mcp`.
use std::io::{self, BufReader, BufWriter};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use toolgate::engine::transport::{http, stdio};
use toolgate::engine::{EngineConfig, Service};
use toolgate::mcp::fixtures::Fixtures;
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
    /// Serve MCP over Streamable HTTP at http://ADDR:PORT/mcp instead of stdio
    /// (both eras on one endpoint; Host and Origin checked, see --allowed-host).
    #[arg(long, value_name = "ADDR:PORT")]
    pub http: Option<SocketAddr>,
    /// With --http: a name clients may address the server by (HOST, or HOST:PORT;
    /// a host alone takes the server's port), which browsers' origins must name
    /// too. Repeatable. Default: 127.0.0.1, localhost and [::1] with the port.
    /// Required when ADDR is not loopback; an empty value allows nothing.
    #[arg(long = "allowed-host", value_name = "HOST[:PORT]", requires = "http")]
    pub allowed_host: Vec<String>,
    /// With --http: every request must carry `Authorization: Bearer TOKEN`, the
    /// token read from FILE (compared in constant time; 401 otherwise).
    #[arg(long, value_name = "FILE", requires = "http")]
    pub auth_token_file: Option<PathBuf>,
    /// With --auth-token-file: name URL as the authorization server in RFC 9728
    /// protected-resource metadata (served at /.well-known/oauth-protected-resource).
    /// Tokens are still checked against --auth-token-file only.
    /// The URL is served exactly as given (issuer identifiers are compared
    /// as strings, RFC 8414 §3.3).
    #[arg(long, value_name = "URL", requires = "auth_token_file", value_parser = parse_issuer)]
    pub auth_issuer: Option<String>,
    /// Tools per tools/list page (testing pagination).
    #[arg(long, hide = true, default_value_t = toolgate::mcp::TOOLS_PAGE_SIZE)]
    pub page_size: usize,
    /// With --http: serve the MCP conformance suite's fixture tools, prompts and
    /// resources instead of the PDF tools (testing; reads no file).
    #[arg(long, hide = true, requires = "http", conflicts_with_all = ["root", "unconfined", "allow_remote"])]
    pub conformance_fixtures: bool,
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
    if let (true, Some(addr)) = (args.conformance_fixtures, args.http) {
        let http = HttpArgs {
            addr,
            allowed_host: args.allowed_host,
            auth_token_file: args.auth_token_file,
            auth_issuer: args.auth_issuer,
        };
        tracing::info!(
            "--conformance-fixtures: serving the conformance suite's fixtures, not the PDF tools"
        );
        let defaults = Config::default();
        let engine = Config {
            max_concurrent_calls: args
                .max_concurrent_calls
                .map_or(defaults.max_concurrent_calls, usize::from),
            ..defaults
        }
        .engine();
        let make: http::MakeService<Fixtures> = Box::new(|| Ok(Fixtures::new()));
        return serve_http(&http, engine, make);
    }
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
    let server = match Server::new(config.clone(), DefaultPdf::for_config(&exe, &config)) {
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
    if let Some(addr) = args.http {
        let http = HttpArgs {
            addr,
            allowed_host: args.allowed_host,
            auth_token_file: args.auth_token_file,
            auth_issuer: args.auth_issuer,
        };
        drop(server);
        let backend = DefaultPdf::for_config(exe, &config);
        let engine = config.engine();
        let make: http::MakeService<Server<DefaultPdf>> =
            Box::new(move || Server::new(config.clone(), backend.clone()));
        return serve_http(&http, engine, make);
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

/// What `--http` serves with.
struct HttpArgs {
    addr: SocketAddr,
    allowed_host: Vec<String>,
    auth_token_file: Option<PathBuf>,
    auth_issuer: Option<String>,
}

/// `toolgate mcp --http`: the checks that refuse to start (exit 2), then the
/// endpoint until SIGINT or SIGTERM; each session gets its service from
/// `make`.
fn serve_http<S: Service>(
    args: &HttpArgs,
    engine: EngineConfig,
    make: http::MakeService<S>,
) -> ExitCode {
    use toolgate::engine::transport::http::{Allowlist, BearerToken, HttpConfig};
    if !args.addr.ip().is_loopback() && args.allowed_host.is_empty() {
        report!(
            "toolgate mcp: --http {} is not a loopback address: pass --allowed-host with the \
             names clients use to reach it (Host and Origin are checked against them)",
            args.addr
        );
        return ExitCode::from(2);
    }
    let token = match &args.auth_token_file {
        None => None,
        Some(f) => match std::fs::read_to_string(f)
            .map_err(|e| e.to_string())
            .and_then(|t| BearerToken::new(&t))
        {
            Ok(t) => Some(t),
            Err(e) => {
                report!("toolgate mcp: --auth-token-file {}: {e}", f.display());
                return ExitCode::from(2);
            }
        },
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            report!("toolgate mcp: {e}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(async {
        let listener = match tokio::net::TcpListener::bind(args.addr).await {
            Ok(l) => l,
            Err(e) => {
                report!("toolgate mcp: --http {}: {e}", args.addr);
                return ExitCode::from(2);
            }
        };
        let local = listener.local_addr().unwrap_or(args.addr);
        let allow = if args.allowed_host.is_empty() {
            Allowlist::loopback(local.port())
        } else {
            Allowlist::new(&args.allowed_host, local.port())
        };
        let mut http_config = HttpConfig::new(allow, engine);
        http_config.token = token;
        http_config.issuer.clone_from(&args.auth_issuer);
        report!(
            "toolgate mcp: serving MCP at http://{local}{}",
            http::ENDPOINT_PATH
        );
        tokio::select! {
            r = http::serve(listener, make, http_config) => match r {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    report!("toolgate mcp: {e}");
                    ExitCode::from(1)
                }
            },
            () = shutdown_signal() => ExitCode::SUCCESS,
        }
    })
}

/// `--auth-issuer`: an absolute http(s) URL, kept as written (the parsed
/// form would add a `/` to a bare origin, and a client compares the
/// issuer it meets with the one named here byte for byte).
fn parse_issuer(s: &str) -> Result<String, String> {
    let u = url::Url::parse(s).map_err(|e| format!("not a URL: {e}"))?;
    if u.scheme() != "https" && u.scheme() != "http" {
        return Err("not an http(s) URL".into());
    }
    Ok(s.to_owned())
}

/// SIGINT or SIGTERM.
async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let Ok(mut term) = signal(SignalKind::terminate()) else {
        let _ = tokio::signal::ctrl_c().await;
        return;
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
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
