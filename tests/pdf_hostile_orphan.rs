//! A worker must not outlive its caller. The caller here is `toolgate
//! extract` (the CLI, which spawns one worker per call); it is SIGKILLed while
//! its worker is busy on a slow file, and the worker must then be gone (or a
//! zombie waiting to be reaped by init) shortly after, long before the CPU
//! limit or the worker's own work would have ended it. The check is on
//! process existence, polled, not on measured speed.
#![cfg(feature = "cli")]

#[allow(dead_code)]
#[path = "pdf_hostile/gen.rs"]
mod gen;

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

/// The process's state letter from `/proc/PID/stat`, `None` when it is gone.
fn state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces: skip past it.
    let (_, rest) = stat.rsplit_once(')')?;
    rest.trim_start().chars().next()
}

fn alive(pid: u32) -> bool {
    !matches!(state(pid), None | Some('Z' | 'X'))
}

/// Children of `parent` whose command line mentions `pdf-worker`.
fn workers_of(parent: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse::<u32>().ok());
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            ppid == Some(parent) && cmdline.windows(10).any(|w| w == b"pdf-worker")
        })
        .collect()
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
    std::thread::sleep(Duration::from_millis(800));
    assert!(
        alive(worker),
        "the worker finished before the test could kill its parent: make slow_pdf slower"
    );

    parent.kill().unwrap(); // SIGKILL: the parent gets no chance to clean up.
    parent.wait().unwrap();

    let killed = Instant::now();
    while alive(worker) && killed.elapsed() < Duration::from_millis(1500) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let still_alive = alive(worker);
    if still_alive {
        // Do not leave it running after a failure.
        let _ = Command::new("kill")
            .arg("-9")
            .arg(worker.to_string())
            .status();
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        !still_alive,
        "worker {worker} outlived its SIGKILLed parent {parent_pid}"
    );
}
