//! Under load the gateway is transparent: when the server is behind it
//! stops reading the client (backpressure), so whatever the server answers
//! directly it answers through the gateway; it keeps message order; and
//! a side that stalls stalls the other, not the gateway's memory.
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::{server, spawn_piped};

/// Requests written at once, far beyond every count bound of the gateway
/// (`gate::MAX_PENDING_REQUESTS`, the engine's queues).
const PIPELINED: usize = 20_000;

/// A bound on each wait, generous: only a lost answer fails it.
const EVENTUALLY: Duration = Duration::from_secs(120);

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// `initialize`, then [`PIPELINED`] requests: `ping`, `tools/list` and
/// `tools/call` in turn.
fn pipelined_input() -> Vec<u8> {
    let mut input = format!("{INITIALIZE}\n").into_bytes();
    for i in 1..=PIPELINED {
        let request = match i % 3 {
            0 => json!({"jsonrpc": "2.0", "id": i, "method": "ping"}),
            1 => json!({"jsonrpc": "2.0", "id": i, "method": "tools/list"}),
            _ => json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                         "params": {"name": "echo", "arguments": {"i": i}}}),
        };
        input.extend(request.to_string().bytes());
        input.push(b'\n');
    }
    input
}

/// Writes `input` to `command` as fast as its stdin takes it (on a thread
/// of its own), reads `expected` answers, then closes its input. The
/// answers by id.
fn answers(mut command: Command, input: Vec<u8>, expected: usize) -> BTreeMap<String, Value> {
    let mut child = spawn_piped(&mut command);
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        stdin.write_all(&input).unwrap();
        stdin
    });
    let out = BufReader::new(child.stdout.take().unwrap());
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in out.lines() {
            if tx.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    let mut got = BTreeMap::new();
    while got.len() < expected {
        let line = lines.recv_timeout(EVENTUALLY).unwrap_or_else(|_| {
            panic!("{} answers of {expected}", got.len());
        });
        let answer: Value = serde_json::from_str(&line).unwrap();
        let id = answer["id"].to_string();
        assert!(got.insert(id, answer).is_none(), "two answers to one id");
    }
    drop(writer.join().unwrap());
    child.wait().unwrap();
    got
}

/// 20,000 requests written as fast as the pipe takes them: through the
/// gateway every one is answered, with the answer the server gives
/// directly (nothing refused for being fast, nothing lost).
#[test]
fn pipelined_requests_get_the_answers_the_server_gives_directly() {
    let input = pipelined_input();
    let mut direct = Command::new("python3");
    direct.arg(server("echo.py"));
    let direct = answers(direct, input.clone(), PIPELINED + 1);
    let mut gated = Command::new(env!("CARGO_BIN_EXE_toolgate"));
    gated.args(["gate", "--", "python3", &server("echo.py")]);
    let gated = answers(gated, input, PIPELINED + 1);
    assert_eq!(direct.len(), PIPELINED + 1);
    for (id, answer) in &direct {
        assert_eq!(gated.get(id), Some(answer), "the answer to {id}");
    }
}

/// `toolgate gate --resolve` in front of the recorder (recording to the
/// second element), in a namespace with loopback alone and `hosts` as its
/// `/etc/hosts`: names resolve from the file, and no packet can leave.
fn resolving_gate(dir: &std::path::Path, hosts: &str) -> (Command, std::path::PathBuf) {
    let hosts_file = dir.join("hosts");
    std::fs::write(&hosts_file, hosts).unwrap();
    let record = dir.join("record.jsonl");
    let script = r#"mount --bind "$1" /etc/hosts && exec "$2" gate --resolve -- python3 "$3" "$4""#;
    let mut command = Command::new("unshare");
    command
        .args(["-rnm", "sh", "-c", script, "sh"])
        .arg(&hosts_file)
        .arg(env!("CARGO_BIN_EXE_toolgate"))
        .arg(server("recorder.py"))
        .arg(&record);
    (command, record)
}

/// `--resolve`: a request whose names are resolved before it is forwarded
/// still reaches the server before the messages sent after it. Run in a
/// namespace with loopback alone and its own `/etc/hosts` (the name
/// resolves from the file; no packet can leave).
#[test]
fn resolved_calls_keep_message_order() {
    let dir = tempfile::tempdir().unwrap();
    let (command, record) = resolving_gate(
        dir.path(),
        "93.184.216.34 origin.toolgate-test.net\n127.0.0.2 inside.toolgate-test.net\n",
    );
    let mut input = format!("{INITIALIZE}\n");
    for i in 1..=20 {
        let call = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                          "params": {"name": "fetch", "arguments": {"url": format!("http://origin.toolgate-test.net/{i}")}}});
        // A notification's names are resolved too (#20 attack pass, B):
        // every fifth names a host inside and is dropped.
        let host = if i % 5 == 0 { "inside" } else { "origin" };
        let note = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                          "params": {"progressToken": i, "progress": 1,
                                     "message": format!("http://{host}.toolgate-test.net/{i}")}});
        input.push_str(&format!("{call}\n{note}\n"));
    }
    let got = answers(command, input.into_bytes(), 21);
    for i in 1..=20 {
        let text = got[&i.to_string()]["result"]["content"][0]["text"].as_str();
        assert!(
            text.is_some_and(|t| t.starts_with("{\"arguments\"")),
            "the call {i} reached the server: {:?}",
            got[&i.to_string()]
        );
    }
    let seen: Vec<Value> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The first call waited for the gateway's own listing, which reached
    // the server before it.
    let own = |m: &Value| {
        m["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("toolgate-gate/tools/list/"))
    };
    assert!(own(&seen[1]), "{seen:?}");
    let order: Vec<String> = seen
        .iter()
        .skip(1)
        .filter(|m| !own(m))
        .map(|m| match m["id"].as_u64() {
            Some(id) => format!("call {id}"),
            None => format!("note {}", m["params"]["progressToken"]),
        })
        .collect();
    let sent: Vec<String> = (1..=20)
        .flat_map(|i| {
            let note = (i % 5 != 0).then(|| format!("note {i}"));
            std::iter::once(format!("call {i}")).chain(note)
        })
        .collect();
    assert_eq!(order, sent);
    let all = std::fs::read_to_string(&record).unwrap();
    assert!(!all.contains("inside.toolgate-test.net"), "{all}");
}

/// `--resolve` with a URL-mode elicitation from the server that names a
/// host (attack s50, F41): the reader of the server's lines looks the name
/// up (its runtime has timers) and the session goes on. Same namespace as
/// above.
#[test]
fn a_resolved_elicitation_url_keeps_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let (command, _record) = resolving_gate(dir.path(), "93.184.216.34 example.com\n");
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "misbehave", "arguments": {"how": "elicit_url", "which": "ok"}}});
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let got = answers(
        command,
        format!("{INITIALIZE}\n{call}\n{ping}\n").into_bytes(),
        4,
    );
    assert_eq!(
        got["\"e-ok\""]["params"]["url"], "https://example.com/verify",
        "{got:?}"
    );
    assert!(got["1"]["result"].is_object(), "{got:?}");
    assert!(got["2"]["result"].is_object(), "{got:?}");
}

/// `--resolve` looks up a scheme-less name under a URL-named key, as a
/// server that adds `http://` would fetch it (#20 F7): an internal answer
/// refuses the call, a public one passes, and a name that resolves to
/// nothing (`report.pdf`) was text and passes. Same namespace as above.
#[test]
fn scheme_less_names_under_url_keys_are_resolved() {
    let dir = tempfile::tempdir().unwrap();
    let (command, _) = resolving_gate(
        dir.path(),
        "93.184.216.34 origin.toolgate-test.net\n127.0.0.2 inside.toolgate-test.net\n10.0.0.5 intra.toolgate-test.net\n",
    );
    let cases = [
        (
            json!({"url": "inside.toolgate-test.net/x"}),
            Some("ssrf.loopback"),
        ),
        (
            json!({"href": "user@inside.toolgate-test.net"}),
            Some("ssrf.loopback"),
        ),
        (
            json!({"link": "intra.toolgate-test.net./admin?q"}),
            Some("ssrf.private"),
        ),
        (json!({"url": "origin.toolgate-test.net/x"}), None),
        (json!({"uri": "report.pdf"}), None),
        (json!({"note": "inside.toolgate-test.net/x"}), None),
        // Host-named keys too (#20 re-attack s41, S2), and WHATWG's
        // reading of the host (S1).
        (
            json!({"host": "inside.toolgate-test.net"}),
            Some("ssrf.loopback"),
        ),
        (
            json!({"apiEndpoint": "intra.toolgate-test.net/v1"}),
            Some("ssrf.private"),
        ),
        (
            json!({"server": {"hostname": "inside%2Etoolgate-test%2Enet"}}),
            Some("ssrf.loopback"),
        ),
        (
            json!({"url": "inside.toolgate-test.net\\x"}),
            Some("ssrf.loopback"),
        ),
        (json!({"uri": "src/main.rs"}), None),
    ];
    let mut input = format!("{INITIALIZE}\n");
    for (i, (args, _)) in cases.iter().enumerate() {
        let call = json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                          "params": {"name": "fetch", "arguments": args}});
        input.push_str(&format!("{call}\n"));
    }
    let got = answers(command, input.into_bytes(), cases.len() + 1);
    for (i, (args, want)) in cases.iter().enumerate() {
        let answer = &got[&(i + 1).to_string()];
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        match want {
            Some(code) => assert!(text.contains(code), "{args}: {answer}"),
            None => assert!(text.starts_with("{\"arguments\""), "{args}: {answer}"),
        }
    }
}

/// `--resolve` looks up the names of the links a client opens by itself
/// (icons, `websiteUrl`) in an answer, as it does the names of arguments:
/// a link whose name resolves inside, or to nothing, is removed; one that
/// resolves outside stays, as does an inline `data:` icon; past
/// `gate::MAX_RESOLVED_NAMES` names in one answer the links naming the
/// others are removed (fail closed). Same namespace as above.
#[test]
fn link_names_in_answers_are_resolved() {
    let dir = tempfile::tempdir().unwrap();
    let mut hosts =
        "93.184.216.34 origin.toolgate-test.net\n127.0.0.2 inside.toolgate-test.net\n10.0.0.5 intra.toolgate-test.net\n"
            .to_owned();
    for i in 0..40 {
        hosts.push_str(&format!("93.184.216.34 h{i}.toolgate-test.net\n"));
    }
    let icon = |host: &str| json!({"src": format!("https://{host}/i.png")});
    let inline = json!({"src": "data:image/png;base64,iVBORw0KGgo="});
    let first = json!({
        "content": [{"type": "resource_link", "uri": "https://origin.toolgate-test.net/x", "name": "x",
            "icons": [icon("origin.toolgate-test.net"), icon("inside.toolgate-test.net"),
                      icon("nowhere.toolgate-test.net"), inline, icon("ORIGIN.toolgate-test.net.")]}],
        "structuredContent": {
            "serverInfo": {"name": "s", "websiteUrl": "http://intra.toolgate-test.net/"},
            "site": {"websiteUrl": "https://origin.toolgate-test.net/"}}});
    let many: Vec<Value> = (0..40)
        .map(|i| icon(&format!("h{i}.toolgate-test.net")))
        .collect();
    let second = json!({"content": [{"type": "resource_link", "uri": "https://origin.toolgate-test.net/y",
        "name": "y", "icons": many}]});
    let hex = |v: &Value| -> String { v.to_string().bytes().map(|b| format!("{b:02x}")).collect() };
    // Each answer in a session of its own: the lookups of one answer do
    // not hold the session's lookup threads while the other's run.
    let answer = |result: &Value| {
        let (command, _) = resolving_gate(dir.path(), &hosts);
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "misbehave", "arguments": {"how": "result_hex", "hex": hex(result)}}});
        let input = format!("{INITIALIZE}\n{call}\n");
        answers(command, input.into_bytes(), 2)["1"]["result"].clone()
    };
    let r = &answer(&first);
    assert_eq!(
        r["content"][0]["icons"],
        json!([
            icon("origin.toolgate-test.net"),
            inline,
            icon("ORIGIN.toolgate-test.net.")
        ]),
        "{r}"
    );
    assert!(
        r["structuredContent"]["serverInfo"]
            .get("websiteUrl")
            .is_none(),
        "{r}"
    );
    assert_eq!(
        r["structuredContent"]["site"]["websiteUrl"], "https://origin.toolgate-test.net/",
        "{r}"
    );
    let kept: Vec<Value> = (0..32)
        .map(|i| icon(&format!("h{i}.toolgate-test.net")))
        .collect();
    let r = &answer(&second);
    assert_eq!(r["content"][0]["icons"], json!(kept), "{r}");
}

/// `--resolve` fails closed in bounded time (`gate::RESOLVE_DEADLINE`,
/// `gate::MAX_RESOLVED_NAMES`): names whose DNS server never answers are
/// looked up in parallel and refused with `dns.timeout` once the call's
/// `--call-timeout` (counted from the request's arrival) has passed, not
/// one after the other; a message naming too many hosts is refused before
/// any lookup; the session goes on. Run in a namespace with loopback
/// alone, whose `/etc/resolv.conf` names a loopback DNS server that reads
/// every query and answers none (no packet can leave).
#[test]
fn slow_names_end_at_the_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let hosts = dir.path().join("hosts");
    std::fs::write(&hosts, "127.0.0.1 localhost\n").unwrap();
    let resolv = dir.path().join("resolv.conf");
    std::fs::write(
        &resolv,
        "nameserver 127.0.0.1\noptions timeout:30 attempts:1\n",
    )
    .unwrap();
    let ready = dir.path().join("ready");
    let sink = "import socket, sys\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.bind(('127.0.0.1', 53))\nopen(sys.argv[1], 'w').close()\nwhile True: s.recv(65536)\n";
    let record = dir.path().join("record.jsonl");
    let script = r#"ip link set lo up && mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/resolv.conf && { python3 -c "$3" "$4" & } && while [ ! -e "$4" ]; do sleep 0.05; done && exec "$5" gate --resolve --call-timeout 3 -- python3 "$6" "$7""#;
    let mut command = Command::new("unshare");
    command
        .args(["-rnm", "sh", "-c", script, "sh"])
        .arg(&hosts)
        .arg(&resolv)
        .arg(sink)
        .arg(&ready)
        .arg(env!("CARGO_BIN_EXE_toolgate"))
        .arg(server("recorder.py"))
        .arg(&record);
    let slow: Vec<String> = (0..20)
        .map(|i| format!("http://slow{i}.toolgate-test.net/"))
        .collect();
    let many: Vec<String> = (0..=toolgate::gate::MAX_RESOLVED_NAMES)
        .map(|i| format!("http://h{i}.toolgate-test.net/"))
        .collect();
    let call = |id: u32, urls: &[String]| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "fetch", "arguments": {"urls": urls}}})
    };
    let input = format!(
        "{INITIALIZE}\n{}\n{}\n{}\n",
        call(1, &slow),
        call(2, &many),
        json!({"jsonrpc": "2.0", "id": 3, "method": "ping"})
    );
    let got = answers(command, input.into_bytes(), 4);
    assert_eq!(crate::session::refusal_code(&got["1"]), "dns.timeout");
    assert_eq!(
        crate::session::refusal_code(&got["2"]),
        "policy.arguments_too_complex"
    );
    assert_eq!(got["3"]["result"], json!({}));
    let seen = std::fs::read_to_string(&record).unwrap();
    assert!(
        !seen.contains("tools/call"),
        "no refused call reached the server: {seen}"
    );
}

/// Peak RSS the gateway may reach with the default budgets, whatever the
/// two sides do (`docs/gate.md`, "Memory").
const PEAK_RSS_KIB: u64 = 256 * 1024;

/// How long the gateway's CPU time must stand still to count as stalled.
const QUIET: Duration = Duration::from_secs(2);

/// A field of `/proc/PID/status`, in kB.
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with(field)).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Sends SIGTERM to a gateway still running when the test ends, passed or
/// failed (the gateway passes it to its server's group): a failed test
/// leaves no process behind.
struct StopOnDrop(u32);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        let cmdline = std::fs::read(format!("/proc/{}/cmdline", self.0)).unwrap_or_default();
        if cmdline.windows(8).any(|w| w == b"toolgate") {
            let _ = Command::new("kill").arg(self.0.to_string()).status();
        }
    }
}

/// User plus system CPU ticks of `pid`.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let (_, rest) = stat.rsplit_once(')').unwrap();
    let fields: Vec<&str> = rest.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// Waits until the gateway does nothing (its CPU time stands still for
/// [`QUIET`]): both sides are blocked on it or on each other.
fn stalled(pid: u32) {
    let until = Instant::now() + EVENTUALLY;
    let mut last = (cpu_ticks(pid), Instant::now());
    while last.1.elapsed() < QUIET {
        assert!(Instant::now() < until, "the gateway never settled");
        std::thread::sleep(Duration::from_millis(100));
        let now = cpu_ticks(pid);
        if now != last.0 {
            last = (now, Instant::now());
        }
    }
}

/// `toolgate gate FLAGS -- echo.py ARGS`, initialized; its stdout.
fn echo_gate(
    flags: &[&str],
    args: &[&str],
) -> (std::process::Child, BufReader<std::process::ChildStdout>) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolgate"));
    command
        .arg("gate")
        .args(flags)
        .args(["--", "python3", &server("echo.py")])
        .args(args);
    let mut gate = spawn_piped(&mut command);
    let stdin = gate.stdin.as_mut().unwrap();
    writeln!(stdin, "{INITIALIZE}").unwrap();
    let mut out = BufReader::new(gate.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.contains("\"echo\""), "{line}");
    (gate, out)
}

/// Writes tools/call lines of nearly [`toolgate::json::MAX_PAYLOAD_BYTES`]
/// with `ids` on a thread of its own until a write fails; the bytes written
/// so far.
fn flood(
    mut stdin: std::process::ChildStdin,
    ids: std::ops::RangeInclusive<u64>,
) -> Arc<AtomicU64> {
    let written = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&written);
    std::thread::spawn(move || {
        let text = "x".repeat(toolgate::json::MAX_PAYLOAD_BYTES - 200);
        for i in ids {
            let call = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                              "params": {"name": "echo", "arguments": {"text": text}}});
            let line = format!("{call}\n");
            for chunk in line.as_bytes().chunks(64 * 1024) {
                if stdin.write_all(chunk).is_err() {
                    return;
                }
                counter.fetch_add(chunk.len() as u64, Ordering::SeqCst);
            }
        }
    });
    written
}

/// A server that stops reading its stdin while the client sends 4 MiB
/// lines: the client's writes block (backpressure), and the gateway holds
/// no more than its budgets (`MAX_TO_SERVER_BYTES`, the engine's input
/// frames), far below the bound.
#[test]
fn a_server_that_stops_reading_stalls_the_client_not_the_gateways_memory() {
    const LINES: u64 = 150;
    let (mut gate, _out) = echo_gate(&[], &["stall"]);
    let pid = gate.id();
    let _stop = StopOnDrop(pid);
    let written = flood(gate.stdin.take().unwrap(), 1..=LINES);
    stalled(pid);
    let sent = written.load(Ordering::SeqCst);
    let peak = status_kib(pid, "VmHWM:");
    eprintln!(
        "client wrote {} MiB; gateway peak RSS {} MiB",
        sent >> 20,
        peak >> 10
    );
    assert!(
        sent < LINES * toolgate::json::MAX_PAYLOAD_BYTES as u64 / 2,
        "the client's writes never blocked: {sent} bytes taken"
    );
    assert!(peak <= PEAK_RSS_KIB, "peak RSS {peak} kB");
    // SIGTERM reaches the server's group; the gateway leaves with it.
    let _ = Command::new("kill").arg(pid.to_string()).status();
    assert!(gate.wait().is_ok());
}

/// A client that stops reading while the server sends 15 MiB answers: the
/// server's writes block, and the gateway holds no more than its budgets
/// (`MAX_FROM_SERVER_BYTES`, `engine::MAX_FINISHED_BYTES`,
/// `engine::MAX_TO_CLIENT_BYTES`). Once the client goes away (both its
/// ends closed), the gateway and the server end.
#[test]
fn a_client_that_stops_reading_stalls_the_server_not_the_gateways_memory() {
    client_stalls("big", 15 << 20);
}

/// The same with answers of tiny values (`[0,0,…]`), which cost many times
/// their text once parsed: the budget counts what they cost parsed
/// (`json::VALUE_BYTES` a value; 1.5 MiB of text is about 25 MiB parsed),
/// and a line of more than `gate::MAX_SERVER_LINE_VALUES` (15 MiB of them)
/// is refused before it is parsed.
#[test]
fn answers_of_tiny_values_are_charged_what_they_cost_parsed() {
    client_stalls("tiny", 3 << 19);
    client_stalls("tiny", 15 << 20);
}

fn client_stalls(tool: &str, bytes: usize) {
    const ANSWERS: usize = 40;
    let (mut gate, out) = echo_gate(&[], &[]);
    let pid = gate.id();
    let _stop = StopOnDrop(pid);
    let mut stdin = gate.stdin.take().unwrap();
    for i in 1..=ANSWERS {
        let call = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                          "params": {"name": tool, "arguments": {"bytes": bytes}}});
        writeln!(stdin, "{call}").unwrap();
    }
    stalled(pid);
    let peak = status_kib(pid, "VmHWM:");
    eprintln!("gateway peak RSS {} MiB", peak >> 10);
    assert!(peak <= PEAK_RSS_KIB, "peak RSS {peak} kB");
    drop(stdin);
    drop(out);
    let until = Instant::now() + EVENTUALLY;
    while gate.try_wait().unwrap().is_none() {
        assert!(Instant::now() < until, "the gateway did not exit");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Answers whose text nests four layers of base64 `data:` URIs, asked at
/// once: each is screened holding one reading per layer, and those
/// screened together fit `gate::MAX_SCREENING_BYTES` (attack s70-A, N5:
/// four of 15 MB took the gateway to 516 MB).
#[test]
fn answers_screened_at_once_are_bounded_in_memory() {
    const ANSWERS: u64 = 4;
    let (mut gate, mut out) = echo_gate(&[], &[]);
    let pid = gate.id();
    let _stop = StopOnDrop(pid);
    let mut stdin = gate.stdin.take().unwrap();
    for i in 1..=ANSWERS {
        let call = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                          "params": {"name": "nested", "arguments": {"bytes": 14_000_000}}});
        writeln!(stdin, "{call}").unwrap();
    }
    for _ in 1..=ANSWERS {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let answer: Value = serde_json::from_str(&line).unwrap();
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.len() > 13_000_000, "{}", &line[..line.len().min(300)]);
    }
    let peak = status_kib(pid, "VmHWM:");
    eprintln!("gateway peak RSS {} MiB", peak >> 10);
    assert!(peak <= PEAK_RSS_KIB, "peak RSS {peak} kB");
    drop(stdin);
    assert!(gate.wait().is_ok());
}

/// Answers made of HTML character references (`&#8203;`, which a view
/// decodes to a hidden character, and `&amp;`, which it decodes to text):
/// screened in one walk over the references, with nothing kept per
/// reference, the hidden ones stripped (attack s72-A, F4: 15 MB of
/// `&#8203;` took the gateway to 244 MiB, 32 bytes a reference).
#[test]
fn answers_of_character_references_are_screened_in_bounded_memory() {
    screened_in_bounded_memory(
        15_000_000,
        &[
            ("&#8203;", ""),
            ("&amp;", "&amp;"),
            ("&ZeroWidthSpace;x", "x"),
        ],
    );
}

/// Answers made of many tiny `data:` URIs (`data:,a `, and `data:,a` with a
/// zero-width space in each payload, stripped from each): screened with
/// nothing kept per URI but its span, the text rebuilt as they are
/// screened (attack s73-A, F1: 15 MB of `data:,a ` took 196 MiB, a set of
/// spans and a list of edits).
#[test]
fn answers_of_many_data_uris_are_screened_in_bounded_memory() {
    // 8 MB answers: 9 MB ones peaked at 93-100 MiB (a CI rehearsal of
    // 2026-12-07 went 64 KiB past the bound): the same kind measured with
    // room for the allocator's variance.
    screened_in_bounded_memory(
        8_000_000,
        &[
            ("data:,a ", "data:,a "),
            (
                "data:,a\u{200B} and then some words of plain text ",
                "data:,a and then some words of plain text ",
            ),
            ("x data:,%61 ", "x data:,%61 "),
        ],
    );
}

/// Asks the echo server, one after another, for answers of about
/// `chars` characters made of each unit (written as hex: a unit may be
/// an argument the gateway refuses), each of which comes back as its
/// screened unit repeated; the gateway's peak stays under
/// [`SCREENED_PEAK_RSS_KIB`].
fn screened_in_bounded_memory(chars: usize, units: &[(&str, &str)]) {
    let hex = |s: &str| s.bytes().map(|b| format!("{b:02x}")).collect::<String>();
    let (mut gate, mut out) = echo_gate(&[], &[]);
    let pid = gate.id();
    let _stop = StopOnDrop(pid);
    let mut stdin = gate.stdin.take().unwrap();
    for (id, (unit, kept)) in units.iter().enumerate() {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": "big", "arguments": {"bytes": chars, "unit_hex": hex(unit)}}});
        writeln!(stdin, "{call}").unwrap();
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["id"], id, "{}", &line[..line.len().min(300)]);
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            text == kept.repeat(chars / unit.chars().count()),
            "{unit}: {}",
            &line[..line.len().min(300)]
        );
    }
    let peak = status_kib(pid, "VmHWM:");
    eprintln!("gateway peak RSS {} MiB", peak >> 10);
    assert!(peak <= SCREENED_PEAK_RSS_KIB, "peak RSS {peak} kB");
    drop(stdin);
    assert!(gate.wait().is_ok());
}

/// The peak [`screened_in_bounded_memory`] allows: a few copies of one
/// 15 MB answer.
const SCREENED_PEAK_RSS_KIB: u64 = 100 * 1024;

/// Lines of one-key objects (`[{"a":0},…]`), which cost some 700 bytes
/// an object parsed, from the client and from the server: each is refused
/// before it is parsed (the core's `json::MAX_JSON_VALUES`, objects and
/// members weighed), the request answered, and the gateway stays small
/// (attack s71-A, F1: one 3.8 MB line took it to about 1 GiB).
#[test]
fn lines_of_small_objects_are_refused_before_they_are_parsed() {
    const OBJECTS: usize = 480_000;
    let (mut gate, mut out) = echo_gate(&[], &[]);
    let pid = gate.id();
    let _stop = StopOnDrop(pid);
    let stdin = gate.stdin.as_mut().unwrap();
    let objects = vec![r#"{"a":0}"#; OBJECTS].join(",");
    let read = |out: &mut BufReader<std::process::ChildStdout>| -> Value {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    };
    // From the client: under `_meta`, which is forwarded unchecked.
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"echo","arguments":{{}},"_meta":{{"x":[{objects}]}}}}}}"#
    )
    .unwrap();
    let r = read(&mut out);
    assert_eq!(r["id"], 5, "{r}");
    assert_eq!(r["error"]["data"]["kind"], "too_many_values", "{r}");
    // From the server: an answer of as many.
    let call = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                      "params": {"name": "objects", "arguments": {"count": OBJECTS}}});
    writeln!(stdin, "{call}").unwrap();
    let r = read(&mut out);
    assert_eq!(r["id"], 6, "{r}");
    assert_eq!(r["error"]["data"]["code"], "tool.bad_response", "{r}");
    // A smaller one passes.
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                      "params": {"name": "objects", "arguments": {"count": 1000}}});
    writeln!(stdin, "{call}").unwrap();
    let r = read(&mut out);
    assert_eq!(
        r["result"]["structuredContent"]["v"]
            .as_array()
            .map(Vec::len),
        Some(1000),
        "{r}"
    );
    let peak = status_kib(pid, "VmHWM:");
    eprintln!("gateway peak RSS {} MiB", peak >> 10);
    assert!(peak <= 64 * 1024, "peak RSS {peak} kB");
    drop(gate.stdin.take());
    assert!(gate.wait().is_ok());
}

/// A progress notification the server writes after another call's costly
/// answer, for a call it answers next, reaches the client before that
/// call's answer (attack s71-A, F3: held behind the costly answer, it was
/// overtaken by its own call's answer and then dropped).
#[test]
fn progress_is_not_held_behind_another_calls_answer() {
    let (mut gate, mut out) = echo_gate(&[], &[]);
    let pid = gate.id();
    let _stop = StopOnDrop(pid);
    let stdin = gate.stdin.as_mut().unwrap();
    let costly = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                        "params": {"name": "nested", "arguments": {"bytes": 8_000_000}}});
    let quick = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                       "params": {"name": "progress", "arguments": {}, "_meta": {"progressToken": "p2"}}});
    writeln!(stdin, "{costly}\n{quick}").unwrap();
    let mut seen = Vec::new();
    // Until both answers are in: a progress dropped makes no third line.
    while !(seen.iter().any(|m| m == "1") && seen.iter().any(|m| m == "2")) {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let m: Value = serde_json::from_str(&line).unwrap();
        seen.push(
            m["id"]
                .as_u64()
                .map_or_else(|| m["method"].to_string(), |id| id.to_string()),
        );
    }
    let progress = seen
        .iter()
        .position(|m| m.contains("notifications/progress"));
    let answer = seen.iter().position(|m| m == "2");
    assert!(progress.is_some() && progress < answer, "{seen:?}");
    drop(gate.stdin.take());
    assert!(gate.wait().is_ok());
}

/// Ids, progress tokens and tool names are held for the session or while
/// a request runs: each is bounded in bytes (attack s72-A, F1, F2), not
/// only in number. A longer id is an invalid id (answered with a null id),
/// a longer token invalid params, a longer tool name hidden from the
/// listing and refused by name.
#[test]
fn held_ids_tokens_and_names_are_bounded_in_bytes() {
    let (mut gate, mut out) = echo_gate(&[], &["longname"]);
    let pid = gate.id();
    let _stop = StopOnDrop(pid);
    let stdin = gate.stdin.as_mut().unwrap();
    let read = |out: &mut BufReader<std::process::ChildStdout>| -> Value {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    };
    let long = "i".repeat(toolgate::rpc::MAX_ID_BYTES + 1);
    let fits = "i".repeat(toolgate::rpc::MAX_ID_BYTES);
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": long, "method": "ping"})
    )
    .unwrap();
    let r = read(&mut out);
    assert_eq!(r["id"], Value::Null, "{r}");
    assert_eq!(r["error"]["data"]["kind"], "invalid_id", "{r}");
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": fits, "method": "ping"})
    )
    .unwrap();
    let r = read(&mut out);
    assert_eq!(r["id"], json!(fits), "{}", &r.to_string()[..200]);
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "echo", "arguments": {}, "_meta": {"progressToken": long}}});
    writeln!(stdin, "{call}").unwrap();
    let r = read(&mut out);
    assert_eq!(r["id"], 3, "{r}");
    assert_eq!(r["error"]["data"]["kind"], "invalid_progress_token", "{r}");
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"})
    )
    .unwrap();
    let r = read(&mut out);
    let names: Vec<&str> = r["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["echo"], "{r}");
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                      "params": {"name": "n".repeat(600), "arguments": {}}});
    writeln!(stdin, "{call}").unwrap();
    let r = read(&mut out);
    assert_eq!(r["id"], 5, "{r}");
    assert!(
        r["error"].is_object() || r["result"]["isError"] == true,
        "{r}"
    );
    drop(gate.stdin.take());
    assert!(gate.wait().is_ok());
}

/// A listing page whose `nextCursor` is longer than
/// `gate::MAX_CURSOR_BYTES` ends its listing: a call made before any
/// listing, which waits for the gateway's own, is refused at once (attack
/// s75-A, F1: a 4.3 MB cursor left the call waiting for room for the
/// gateway's page request, unanswered), and the cursor is not held.
#[test]
fn a_listing_with_an_overlong_cursor_ends_and_its_call_is_answered() {
    let (mut gate, mut out) = echo_gate(&[], &["longcursor"]);
    let pid = gate.id();
    let _stop = StopOnDrop(pid);
    let stdin = gate.stdin.as_mut().unwrap();
    let mut read = || -> Value {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    };
    // A tool of the first page is decided on it; one the listing did not
    // reach is refused, its reason naming the cursor's bound.
    for (id, name) in [(2, "echo"), (3, "other")] {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": name, "arguments": {}}});
        writeln!(stdin, "{call}").unwrap();
        let r = read();
        assert_eq!(r["id"], id, "{r}");
        if name == "echo" {
            assert_eq!(r["result"]["content"][0]["text"], "{}", "{r}");
        } else {
            assert!(r.to_string().contains("tool.not_listed"), "{r}");
            assert!(r.to_string().contains("MAX_CURSOR_BYTES"), "{r}");
        }
    }
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":4,"method":"ping"}}"#).unwrap();
    assert_eq!(read()["id"], 4);
    drop(gate.stdin.take());
    assert!(gate.wait().is_ok());
}

/// With the queue toward a server that stopped reading full, a call that
/// times out is still answered (`tool.call_timeout`): the cancellation it
/// sends the server is advice, dropped when there is no room, never waited
/// for.
#[test]
fn a_call_times_out_even_when_the_queue_toward_the_server_is_full() {
    let (mut gate, out) = echo_gate(&["--call-timeout", "1"], &["stall"]);
    let pid = gate.id();
    let _stop = StopOnDrop(pid);
    let _written = flood(gate.stdin.take().unwrap(), 1..=100);
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in out.lines() {
            if tx.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    let answer: Value = serde_json::from_str(&lines.recv_timeout(EVENTUALLY).unwrap()).unwrap();
    assert_eq!(
        answer["error"]["data"]["code"], "tool.call_timeout",
        "{answer}"
    );
    let _ = Command::new("kill").arg(pid.to_string()).status();
    assert!(gate.wait().is_ok());
}
