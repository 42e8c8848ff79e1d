//! A worker must not outlive its caller. Two callers are SIGKILLed while
//! their worker is busy on a slow file: `toolgate extract` (the CLI, which
//! spawns one worker per call through `pdf::worker`), and this test binary
//! re-run as a parent that lifts every cap so the worker would stay busy for
//! minutes. The worker must then be gone (or a zombie waiting to be reaped by
//! init) shortly after. The check is on process existence, polled, not on
//! measured speed.
#![cfg(feature = "cli")]

#[allow(dead_code)]
#[path = "pdf_hostile/gen.rs"]
mod gen;
#[allow(dead_code)]
mod proc_support;

use proc_support::{alive, workers_of};

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Pages sharing one content stream of 2 million operators: far more work
/// than the debug-build worker finishes before its parent's 5 s timeout.
fn slow_pdf() -> Vec<u8> {
    let n = 500u32;
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 10 + i)).collect();
    let mut d = gen::Doc::new(1)
        .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
        .obj(
            2,
            format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")),
        )
        .stream(3, "", "BT ET ".repeat(1_000_000).as_bytes());
    for i in 0..n {
        d = d.obj(10 + i, "<< /Type /Page /Parent 2 0 R /Contents 3 0 R >>");
    }
    d.build()
}

/// Set in the environment of the parent role of this test binary.
const PARENT_ROLE: &str = "TOOLGATE_ORPHAN_TEST_PARENT";

/// The parent role: when this test binary is re-run with [`PARENT_ROLE`]
/// set to a PDF path, it spawns a worker the way `pdf::worker` does (request
/// line then document on stdin, stdin kept open), with every cap lifted so
/// the worker stays busy for minutes, prints the worker's pid, and waits to
/// be killed. Run normally, this test does nothing.
#[test]
fn parent_role() {
    let Ok(pdf) = std::env::var(PARENT_ROLE) else {
        return;
    };
    let data = std::fs::read(pdf).unwrap();
    let huge = u64::MAX;
    let request = format!(
        "{{\"op\":\"extract\",\"pages\":null,\"password\":null,\"data_len\":{},\"memory\":805306368,\"limits\":{{\"max_operations_per_call\":{huge},\"max_operations_per_page\":{huge},\"max_total_decoded_bytes\":{huge},\"max_pages_per_call\":100000}}}}\n",
        data.len()
    );
    let mut worker = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args([
            "pdf-worker",
            "--memory-bytes",
            "805306368",
            "--cpu-seconds",
            "120",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = worker.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, request.as_bytes()).unwrap();
    std::io::Write::write_all(&mut stdin, &data).unwrap();
    // libtest may capture stdout: the pid goes to a file beside the PDF.
    let pid_file = format!("{}.pid", std::env::var(PARENT_ROLE).unwrap());
    std::fs::write(format!("{pid_file}.tmp"), worker.id().to_string()).unwrap();
    std::fs::rename(format!("{pid_file}.tmp"), &pid_file).unwrap();
    // Keep stdin open, as the real parent does, until killed.
    std::thread::sleep(Duration::from_secs(120));
    drop(stdin);
    let _ = worker.kill();
    let _ = worker.wait();
}

#[test]
fn worker_exits_when_a_parent_with_its_stdin_open_is_sigkilled() {
    let dir = std::env::temp_dir().join(format!("toolgate-orphan2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("slow.pdf");
    std::fs::write(&file, slow_pdf()).unwrap();
    let mut parent = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "parent_role",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(PARENT_ROLE, &file)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid_file = dir.join("slow.pdf.pid");
    let started = Instant::now();
    let worker = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|p| p.trim().parse::<u32>().ok())
        {
            break pid;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = parent.kill();
            panic!("the parent role never reported its worker");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // Give the worker time to read the document and get busy.
    std::thread::sleep(Duration::from_millis(800));
    assert!(alive(worker), "the worker ended on its own: nothing tested");
    sigkill_parent_then_expect_no_worker(&mut parent, worker, &dir);
}

#[test]
fn worker_exits_when_its_parent_is_sigkilled() {
    let dir = std::env::temp_dir().join(format!("toolgate-orphan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("slow.pdf");
    std::fs::write(&file, slow_pdf()).unwrap();

    let mut parent = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .arg("extract")
        .arg(&file)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let parent_pid = parent.id();

    // Wait for the worker to start, then give it time to read its input and
    // get busy (a worker still reading would also have to exit, but that is
    // not the case this test is about).
    let found = Instant::now();
    let worker = loop {
        if let Some(&w) = workers_of(parent_pid).first() {
            break w;
        }
        assert!(
            found.elapsed() < Duration::from_secs(30),
            "the worker never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    // The caps end this worker's work within about a second (release): kill
    // early. Whether it was still reading its input or already interpreting,
    // it must go; `worker_exits_when_a_parent_with_its_stdin_open_is_sigkilled`
    // covers a worker kept busy for minutes.
    std::thread::sleep(Duration::from_millis(100));

    sigkill_parent_then_expect_no_worker(&mut parent, worker, &dir);
}

/// SIGKILLs `parent` (no chance to clean up), then expects `worker` gone
/// within 1.5 s; removes `dir` either way and never leaves the worker
/// running after a failure.
fn sigkill_parent_then_expect_no_worker(
    parent: &mut std::process::Child,
    worker: u32,
    dir: &std::path::Path,
) {
    let parent_pid = parent.id();
    parent.kill().unwrap();
    parent.wait().unwrap();
    let killed = Instant::now();
    while alive(worker) && killed.elapsed() < Duration::from_millis(1500) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let still_alive = alive(worker);
    if still_alive {
        let _ = Command::new("kill")
            .arg("-9")
            .arg(worker.to_string())
            .status();
    }
    let _ = std::fs::remove_dir_all(dir);
    assert!(
        !still_alive,
        "worker {worker} outlived its SIGKILLed parent {parent_pid}"
    );
}
