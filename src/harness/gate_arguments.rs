//! Structure-aware model of tool-call arguments that carry an address
//! (the wasm-smith pattern), for [`Gatekeeper::check_arguments`]: an IPv4
//! or IPv6 address, written in one of the notations a resolver or a URL
//! parser reads as that address, carried by one of the texts a server
//! hands to a program that connects there (a URL, a host argument, a
//! libpq, SQL Server or ODBC connection string, a command line's options,
//! curl's `--resolve`, an environment's proxy variable, a curl URL glob, a
//! YAML or JSON configuration), under an argument name of that carrier,
//! directly or wrapped (in an array, an object, JSON in a string).
//!
//! The oracle is exact and independent of the gateway: the address is
//! computed from the model's parts and classified by
//! [`super::net_reference`] (IANA prefixes as `ipnet` rows). A call whose
//! address is not public is refused with exactly the reference's code;
//! one whose address is public passes (the carrier adds no refusal of its
//! own).
//!
//! [`Gatekeeper::check_arguments`]: crate::gate::Gatekeeper::check_arguments
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use arbitrary::{Arbitrary, Unstructured};
use serde_json::{json, Value};

use super::net_reference::reference;
use crate::gate::{Gatekeeper, Policy};

/// Fuzz target `gate_arguments`: the model built from `data`, the call's
/// exact verdict; then `data` itself as the text of one settings-named,
/// one host-named and one plain argument (no panic, bounded readings).
pub fn gate_arguments(data: &[u8]) {
    let mut u = Unstructured::new(data);
    if let Ok(model) = ArgumentModel::arbitrary(&mut u) {
        check_model(&model);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let keeper = keeper();
        for name in ["dsn", "host", "cfg", "args"] {
            let _ = keeper.check_arguments("t", &json!({ name: text }));
        }
    }
}

/// An address in a notation, in a carrier, wrapped.
#[derive(Debug, Clone, Arbitrary)]
pub struct ArgumentModel {
    address: Address,
    notation: Notation,
    carrier: Carrier,
    wrap: Wrap,
}

/// The address: one of [`SPECIAL`] with its last octet's low bits
/// flipped, any IPv4 address, or an IPv6 address.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum Address {
    Special { index: u8, flip: u8 },
    V4(u32),
    V6(V6Model),
}

/// An IPv6 address: one of [`SPECIAL_V6`] with its low bits flipped, or
/// any.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum V6Model {
    Special { index: u8, flip: u16 },
    Any(u128),
}

/// IPv4 addresses at the edges of the policy: loopback, private, link-local
/// and the metadata address, shared, unspecified, multicast, benchmarking,
/// reserved, broadcast, documentation, and public ones.
const SPECIAL: &[[u8; 4]] = &[
    [127, 0, 0, 1],
    [10, 0, 0, 1],
    [169, 254, 169, 254],
    [192, 168, 1, 1],
    [172, 16, 0, 1],
    [100, 64, 0, 1],
    [0, 0, 0, 0],
    [224, 0, 0, 1],
    [198, 18, 0, 1],
    [240, 0, 0, 1],
    [255, 255, 255, 255],
    [192, 0, 2, 1],
    [8, 8, 8, 8],
    [93, 184, 216, 34],
    [1, 1, 1, 1],
    [140, 82, 112, 3],
];

/// IPv6 addresses: loopback, unspecified, IPv4-mapped loopback and
/// metadata, NAT64 of the metadata address, link-local, unique local,
/// multicast, documentation, and public ones.
const SPECIAL_V6: &[&str] = &[
    "::1",
    "::",
    "::ffff:127.0.0.1",
    "::ffff:169.254.169.254",
    "64:ff9b::a9fe:a9fe",
    "fe80::1",
    "fd00::1",
    "ff02::1",
    "2001:db8::1",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
];

/// How the address is written.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum Notation {
    /// `a.b.c.d`; an IPv6 address as Rust writes it.
    Canonical,
    /// IPv4 as one decimal number (`2130706433`).
    Integer,
    /// IPv4 as one hexadecimal number (`0x7f000001`, `0X7F000001`).
    Hex { upper: bool },
    /// IPv4 as one octal number (`017700000001`).
    Octal,
    /// IPv4 with each part in octal (`0177.00.00.01`).
    DottedOctal,
    /// IPv4 with each part in hexadecimal (`0x7f.0x0.0x0.0x1`).
    DottedHex,
    /// IPv4 in three parts, the last 16 bits (`127.0.1`).
    ThreeParts,
    /// IPv4 in two parts, the last 24 bits (`127.1`).
    TwoParts,
    /// IPv4 as an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`).
    Mapped,
    /// IPv6 in full, eight groups of four digits.
    FullV6 { upper: bool },
}

/// The text that carries the address, and the argument it sits in.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum Carrier {
    /// `SCHEME://HOST[:PORT]/path` under any name.
    Url {
        scheme: u8,
        port: Option<u16>,
        name: u8,
    },
    /// The host, perhaps with a port, under a host-named argument.
    Host { port: Option<u16>, name: u8 },
    /// A libpq connection string (`host=H port=5432 dbname=app`), its `=`
    /// perhaps spaced, or a `postgresql://` URI, an EZConnect or a Go
    /// MySQL DSN, under a DSN-named argument.
    Libpq { form: u8, name: u8 },
    /// A SQL Server connection string (`Server=tcp:H,1433;…`), a list of
    /// hosts (`Server=a.example,H`), a TNS descriptor after `Data Source=`.
    SqlServer {
        form: u8,
        port: Option<u16>,
        name: u8,
    },
    /// An ODBC connection string, the server perhaps in braces.
    Odbc { braced: bool, name: u8 },
    /// A command line's option (`--proxy=http://H:8080`, `-xH:8080`,
    /// `--host=H`, `-hH`, Helm's `--set a[0].url=…`), beside a quoted `;`
    /// or after words with a `=`.
    Flag { form: u8, name: u8 },
    /// curl's `--resolve NAME:PORT:H` or `--connect-to ::H:PORT`.
    CurlResolve { connect_to: bool, equals: bool },
    /// An environment's proxy variable (`HTTPS_PROXY=http://H:3128`).
    Env { key: u8, name: u8 },
    /// A curl URL glob whose set or range includes the host.
    Glob { form: u8 },
    /// A YAML configuration (`host: H`), the host a number where YAML
    /// reads one.
    Yaml { form: u8, name: u8 },
}

/// How the argument holds the carrier's text.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum Wrap {
    Direct,
    /// In an array.
    Array,
    /// In an object under a plain key (`{"options": {NAME: TEXT}}`).
    Nested,
    /// The arguments as JSON in a string (`{"json": "{…}"}`).
    JsonText,
}

fn pick<T: Copy>(list: &[T], i: u8) -> T {
    list[usize::from(i) % list.len()]
}

impl ArgumentModel {
    /// The address the model writes.
    fn ip(&self) -> IpAddr {
        match self.address {
            Address::Special { index, flip } => {
                let mut a = pick(SPECIAL, index);
                a[3] ^= flip & 3;
                IpAddr::V4(Ipv4Addr::from(a))
            }
            Address::V4(bits) => IpAddr::V4(Ipv4Addr::from(bits)),
            Address::V6(V6Model::Special { index, flip }) => {
                let a: Ipv6Addr = pick(SPECIAL_V6, index).parse().unwrap();
                IpAddr::V6(Ipv6Addr::from(a.to_bits() ^ u128::from(flip & 3)))
            }
            Address::V6(V6Model::Any(bits)) => IpAddr::V6(Ipv6Addr::from(bits)),
        }
    }

    /// The host as written, and whether it is an IPv6 address (which a
    /// URL or a `HOST:PORT` brackets).
    fn host(&self) -> (String, bool) {
        let v4 = match self.ip() {
            IpAddr::V6(a) => {
                return match self.notation {
                    Notation::FullV6 { upper } => {
                        let s = a
                            .segments()
                            .iter()
                            .map(|g| format!("{g:04x}"))
                            .collect::<Vec<_>>()
                            .join(":");
                        (if upper { s.to_uppercase() } else { s }, true)
                    }
                    _ => (a.to_string(), true),
                };
            }
            IpAddr::V4(a) => a,
        };
        let n = v4.to_bits();
        let o = v4.octets();
        let text = match self.notation {
            Notation::Canonical | Notation::FullV6 { .. } => v4.to_string(),
            Notation::Integer => n.to_string(),
            Notation::Hex { upper: false } => format!("0x{n:x}"),
            Notation::Hex { upper: true } => format!("0X{n:X}"),
            Notation::Octal => format!("0{n:o}"),
            Notation::DottedOctal => o.map(|p| format!("0{p:o}")).join("."),
            Notation::DottedHex => o.map(|p| format!("0x{p:x}")).join("."),
            Notation::ThreeParts => format!("{}.{}.{}", o[0], o[1], n & 0xffff),
            Notation::TwoParts => format!("{}.{}", o[0], n & 0xff_ffff),
            Notation::Mapped => return (format!("::ffff:{v4}"), true),
        };
        (text, false)
    }

    /// The address the server reaches: an IPv4-mapped notation reaches
    /// the mapped IPv6 address (whose code the reference gives).
    fn reached(&self) -> IpAddr {
        match (self.ip(), self.notation) {
            (IpAddr::V4(a), Notation::Mapped) => IpAddr::V6(a.to_ipv6_mapped()),
            (a, _) => a,
        }
    }

    /// `HOST:PORT` (`[HOST]:PORT` for IPv6).
    fn host_port(&self, port: u16) -> String {
        match self.host() {
            (h, true) => format!("[{h}]:{port}"),
            (h, false) => format!("{h}:{port}"),
        }
    }

    /// The host as a URL writes it.
    fn url_host(&self) -> String {
        match self.host() {
            (h, true) => format!("[{h}]"),
            (h, false) => h,
        }
    }

    /// The argument's name and text.
    fn argument(&self) -> (String, Value) {
        let (host, v6) = self.host();
        let uh = self.url_host();
        let text = |s: String| Value::String(s);
        let (name, value): (&str, Value) = match self.carrier {
            Carrier::Url { scheme, port, name } => {
                let scheme = pick(&["http", "https", "ftp", "ws", "wss", "HTTP"], scheme);
                let port = port.map(|p| format!(":{p}")).unwrap_or_default();
                (
                    pick(&["url", "q", "input", "target", "link", "message"], name),
                    text(format!("{scheme}://{uh}{port}/a")),
                )
            }
            Carrier::Host { port, name } => (
                pick(&["host", "hostname", "target_host", "ip", "server"], name),
                text(match port {
                    Some(p) => self.host_port(p),
                    None => host.clone(),
                }),
            ),
            Carrier::Libpq { form, name } => (
                pick(&["dsn", "conninfo", "pg_dsn", "connection"], name),
                text(match form % 7 {
                    0 => format!("host={host} port=5432 dbname=app"),
                    1 => format!("dbname=app host = {host}"),
                    2 => format!("user=app hostaddr='{host}' dbname=app"),
                    3 => format!("postgresql://app@{uh}:5432/app"),
                    4 => format!("application_name={{;}} host={host}"),
                    // Oracle's EZConnect, Go's MySQL driver.
                    5 => format!("scott/tiger@//{uh}:1521/orcl"),
                    _ => format!("root@tcp({})/app?timeout=1s", self.host_port(3306)),
                }),
            ),
            Carrier::SqlServer { form, port, name } => {
                // A port from 1: `,0` would be a host (0.0.0.0) to a list reader.
                let port = port.map(|p| format!(",{}", p.max(1))).unwrap_or_default();
                (
                    pick(&["connection_string", "connectionString", "connstr"], name),
                    text(match form % 5 {
                        0 => format!("Server=tcp:{host}{port};Database=app;"),
                        1 => format!("Data Source={host}{port};Initial Catalog=app"),
                        2 => format!("Database=app; Address = {host}{port}"),
                        // MySqlConnector's and Npgsql's list of hosts.
                        3 => format!("Server=example.com,{host};Database=app;User Id=sa"),
                        _ => format!(
                            "Data Source=(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST={host})(PORT=1521)))"
                        ),
                    }),
                )
            }
            Carrier::Odbc { braced, name } => {
                let server = if braced {
                    format!("{{{host}}}")
                } else {
                    host.clone()
                };
                (
                    pick(&["odbc", "connection_string"], name),
                    text(format!(
                        "Driver={{ODBC Driver 18 for SQL Server}};Server={server};Database=app;"
                    )),
                )
            }
            Carrier::Flag { form, name } => (
                pick(&["args", "extra_args", "argv", "flags"], name),
                text(match form % 8 {
                    0 => format!("--proxy=http://{uh}:8080 https://example.com/"),
                    1 => format!("-x{} https://example.com/", self.host_port(8080)),
                    2 => format!("--host={host} --port=5432"),
                    3 => format!("-O2 --url='http://{uh}/x'"),
                    4 => format!(
                        "-H 'Accept: text/html;q=0.9' -x{} https://example.com/",
                        self.host_port(8080)
                    ),
                    5 => format!("upgrade app ./chart --set servers[0].url=http://{uh}/"),
                    6 => format!("fetch mode=fast http://{uh}/x"),
                    _ => format!("-h{host} -P3306"),
                }),
            ),
            Carrier::CurlResolve { connect_to, equals } => {
                let field = if connect_to {
                    format!("::{}", self.host_port(443))
                } else if v6 {
                    format!("example.com:443:[{host}]")
                } else {
                    format!("example.com:443:{host}")
                };
                let opt = if connect_to {
                    "--connect-to"
                } else {
                    "--resolve"
                };
                let sep = if equals { "=" } else { " " };
                (
                    "args",
                    text(format!("{opt}{sep}{field} https://example.com/")),
                )
            }
            Carrier::Env { key, name } => (
                pick(&["env", "environ"], name),
                text(format!(
                    "PATH=/usr/bin\n{}=http://{uh}:3128",
                    pick(&["HTTP_PROXY", "https_proxy", "ALL_PROXY"], key)
                )),
            ),
            Carrier::Glob { form } => (
                "url",
                text(match form % 3 {
                    0 => format!("http://{{example.com,{uh}}}/"),
                    1 => format!("http://{uh}/[1-3].txt"),
                    _ => format!("http://{{{uh},example.org}}/{{a,b}}"),
                }),
            ),
            Carrier::Yaml { form, name } => {
                let n = match self.ip() {
                    IpAddr::V4(a) if !v6 => Some(a.to_bits()),
                    _ => None,
                };
                let scalar = match (n, form % 5) {
                    (Some(n), 1) => n.to_string(),
                    (Some(n), 2) => format!("0x{n:x}"),
                    (Some(n), 3) => format!("{n}.0"),
                    (Some(n), 4) => {
                        let d = n.to_string();
                        let mut out = String::new();
                        for (i, c) in d.chars().enumerate() {
                            if i > 0 && (d.len() - i) % 3 == 0 {
                                out.push('_');
                            }
                            out.push(c);
                        }
                        out
                    }
                    _ => format!("'{host}'"),
                };
                (
                    pick(&["cfg", "config", "yaml", "settings"], name),
                    text(format!("server:\n  host: {scalar}\n  port: 80\n")),
                )
            }
        };
        (name.to_owned(), value)
    }

    /// The call's `arguments`.
    fn arguments(&self) -> Value {
        let (name, value) = self.argument();
        match self.wrap {
            Wrap::Direct => json!({ name: value }),
            Wrap::Array => json!({ name: [value] }),
            Wrap::Nested => json!({ "options": { name: value } }),
            Wrap::JsonText => json!({ "json": json!({ name: value }).to_string() }),
        }
    }

    /// `true` when the host is an IPv4 address in a notation other than
    /// dotted decimal (`127.1`, `0x7f000001`, a YAML number), which the
    /// core refuses in a URL as `url.ambiguous` whatever the address.
    fn ambiguous(&self) -> bool {
        let yaml_number = matches!(self.carrier, Carrier::Yaml { form, .. } if form % 5 != 0);
        let (_, v6) = self.host();
        (yaml_number && !v6)
            || matches!(self.ip(), IpAddr::V4(_))
                && !matches!(
                    self.notation,
                    Notation::Canonical | Notation::FullV6 { .. } | Notation::Mapped
                )
    }

    /// `true` when the carrier holds the host in a URL (`http://H/`,
    /// `--proxy=http://H:8080`), `false` when it holds it where a host
    /// goes (`host=H`, `Server=H`, `-xH:8080`), which a resolver reads.
    fn in_url(&self) -> bool {
        match self.carrier {
            Carrier::Url { .. } | Carrier::Env { .. } | Carrier::Glob { .. } => true,
            // `--proxy=http://H:8080`, `--url='http://H/x'`; not `-xH:8080`
            // or `--host=H`.
            Carrier::Flag { form, .. } => matches!(form % 8, 0 | 3 | 5 | 6),
            Carrier::Libpq { form, .. } => form % 7 == 3,
            Carrier::Host { .. }
            | Carrier::SqlServer { .. }
            | Carrier::Odbc { .. }
            | Carrier::CurlResolve { .. }
            | Carrier::Yaml { .. } => false,
        }
    }

    /// The verdicts the policy gives (`docs/net.md`, `docs/gate.md`), the
    /// first the one it gives in general:
    /// * a URL of a scheme other than `http` and `https` is `url.scheme`;
    /// * a curl glob whose set holds an IPv6 address is no glob curl
    ///   expands (a `[` inside `{}`), and no URL: `url.malformed`;
    /// * in a URL, an IPv4 address in another notation than dotted decimal
    ///   is `url.ambiguous`; where a host goes, it is the address it
    ///   spells (or `url.ambiguous`, where readers differ), but in curl's
    ///   `--resolve`, which takes only a dotted address (and fails on
    ///   others), no address at all;
    /// * else the reference's code of the address the server reaches, or
    ///   `ok` for a public one; an address of `0.0.0.0/8` other than
    ///   `0.0.0.0` (which no route reaches) may also pass, as a count.
    fn expected(&self) -> Vec<&'static str> {
        let (_, v6) = self.host();
        match self.carrier {
            Carrier::Url { scheme, .. } if scheme % 6 >= 2 && scheme % 6 <= 4 => {
                return vec!["url.scheme"];
            }
            Carrier::Libpq { form, .. } if form % 7 == 3 => return vec!["url.scheme"],
            Carrier::Glob { form } if v6 && form % 3 != 1 => return vec!["url.malformed"],
            Carrier::CurlResolve {
                connect_to: false, ..
            } if self.ambiguous() => return vec!["ok"],
            _ => {}
        }
        if self.in_url() && self.ambiguous() {
            return vec!["url.ambiguous"];
        }
        let reached = self.reached();
        let code = reference(reached).unwrap_or("ok");
        let mut codes = vec![code];
        if code == "ssrf.this_network" && reached != IpAddr::V4(Ipv4Addr::UNSPECIFIED) {
            codes.push("ok");
        }
        // Where a host goes, another notation is read as the address it
        // spells, and refused as ambiguous where its readings differ
        // (`010.010.010.010`: 8.8.8.8, or 10.10.10.10 to a decimal reader).
        if self.ambiguous() {
            codes.push("url.ambiguous");
        }
        // An IPv6 address whose last group is all digits is, to a client
        // that splits at the last `:`, the address before it and a port
        // (`100::736e:6d00:0:5a11:1252` is also 100::736e:6d00:0:5a11):
        // either reading's code.
        if reached.is_ipv6() {
            let text = self.host().0;
            let split = text
                .rsplit_once(':')
                .filter(|(_, port)| !port.is_empty() && port.chars().all(|c| c.is_ascii_digit()));
            if let Some(Ok(before)) = split.map(|(head, _)| head.parse::<IpAddr>()) {
                codes.push(reference(before).unwrap_or("ok"));
            }
        }
        // A YAML number written so that YAML 1.2 loaders (js-yaml) read a
        // string that is no address (`744_262_568`, `744262568.0`): under
        // a host key, that string is a host name, as in JSON, refused as a
        // single label (attack s77-A, F3).
        if matches!(self.carrier, Carrier::Yaml { form, .. } if matches!(form % 5, 3 | 4))
            && !v6
            && self.ip().is_ipv4()
        {
            codes.push("ssrf.single_label_name");
        }
        // A flag whose host ends in `:` before a space is YAML too
        // (`--host=:: --port=5432` is `{"--host=:": "--port=5432"}`), whose
        // host key holds a single label, refused as in JSON.
        if matches!(self.carrier, Carrier::Flag { .. }) && self.host().0.ends_with(':') {
            codes.push("ssrf.single_label_name");
        }
        // `-h` with a bare number (`-h2130706433`, `-h0`) is no host to
        // the gateway (`-x509`, `-h1`): an accepted false negative.
        if matches!(self.carrier, Carrier::Flag { form, .. } if form % 8 == 7)
            && !self.host().0.contains(['.', ':'])
        {
            codes.push("ok");
        }
        codes
    }
}

fn keeper() -> Gatekeeper {
    Gatekeeper {
        policy: Policy::parse("").unwrap(),
        ..Gatekeeper::default()
    }
}

/// Checks one model: the gateway's verdict on its arguments is the
/// reference's.
pub fn check_model(model: &ArgumentModel) {
    let args = model.arguments();
    let got = keeper()
        .check_arguments("t", &args)
        .map(|_| "ok")
        .unwrap_or_else(|r| r.code());
    let expected = model.expected();
    assert!(
        expected.contains(&got),
        "{args}: {got}, expected one of {expected:?}, from {model:?} (address {})",
        model.reached()
    );
}
