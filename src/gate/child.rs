//! The child server process: started in its own process group with piped
//! stdin and stdout and a minimal environment; its stderr relayed to ours
//! with control characters escaped; stopped with its whole group.

use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{kill_process_group, Pid, Signal};

/// Variables the child always gets (when the gateway has them).
pub const BASE_ENV: &[&str] = &["PATH", "HOME", "LANG", "TERM"];

/// Longest stderr line relayed whole, in bytes; longer lines are cut.
pub const MAX_STDERR_LINE: usize = 64 * 1024;

/// A running child.
#[derive(Debug)]
pub struct ChildProcess {
    child: Child,
    pgid: Option<Pid>,
}

/// The child's environment: [`BASE_ENV`] plus each of `extra`, from `from`;
/// nothing else (no `*_PROXY`, no secrets that were not asked for).
pub fn child_env(
    from: impl IntoIterator<Item = (OsString, OsString)>,
    extra: &[String],
) -> Vec<(OsString, OsString)> {
    from.into_iter()
        .filter(|(k, _)| {
            let k = k.to_string_lossy();
            BASE_ENV.contains(&k.as_ref()) || extra.iter().any(|e| *e == k)
        })
        .collect()
}

impl ChildProcess {
    /// Starts `cmd args` in the gateway's working directory, in a new
    /// process group, with `env` only. Returns the child and its stdin and stdout.
    ///
    /// # Errors
    /// When the command cannot be started.
    pub fn spawn(
        cmd: &OsString,
        args: &[OsString],
        env: &[(OsString, OsString)],
    ) -> io::Result<(Self, ChildStdin, ChildStdout)> {
        let mut child = Command::new(cmd)
            .args(args)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| io::Error::other("no child stdin"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| io::Error::other("no child stdout"))?;
        if let Some(err) = child.stderr.take() {
            std::thread::Builder::new()
                .name("gate-child-stderr".into())
                .spawn(move || relay_stderr(err))?;
        }
        let pgid = Pid::from_raw(i32::try_from(child.id()).unwrap_or(0));
        Ok((Self { child, pgid }, stdin, stdout))
    }

    /// The child's process group, to signal without holding the child.
    pub fn group(&self) -> ProcessGroup {
        ProcessGroup(self.pgid)
    }

    /// Sends `signal` to the child's whole process group.
    pub fn signal(&self, signal: Signal) {
        self.group().signal(signal);
    }

    /// The child's exit code (128 + signal when killed) once it has exited;
    /// `None` while it runs.
    pub fn try_wait(&mut self) -> Option<i32> {
        match self.child.try_wait() {
            Ok(Some(s)) => Some(exit_code(s)),
            Ok(None) => None,
            Err(_) => Some(1),
        }
    }

    /// Waits up to `within` for the child to exit; its exit code.
    async fn exited_within(&mut self, within: Duration) -> Option<i32> {
        let until = Instant::now() + within;
        loop {
            if let Some(code) = self.try_wait() {
                return Some(code);
            }
            if Instant::now() >= until {
                return None;
            }
            tokio::time::sleep(STOP_POLL).await;
        }
    }

    /// Stops the child whose stdin has been closed: it gets `grace` to exit
    /// on its own, then its process group gets SIGTERM, `term_grace` later
    /// SIGKILL (a child that ignores SIGTERM is stopped all the same); the
    /// rest of the group is killed in any case (no grandchild in the group
    /// is left; one that left it with `setsid()` is out of reach).
    /// Returns its exit code (128 + signal when killed). Never blocks the
    /// thread: it waits on the runtime's timer, at most
    /// `grace + 2 × term_grace` in all.
    pub async fn stop(&mut self, grace: Duration, term_grace: Duration) -> i32 {
        let mut code = self.exited_within(grace).await;
        if code.is_none() {
            tracing::info!("the server did not exit after its input closed: SIGTERM");
            self.signal(Signal::TERM);
            code = self.exited_within(term_grace).await;
        }
        if code.is_none() {
            tracing::warn!("the server did not exit on SIGTERM: SIGKILL");
        }
        self.signal(Signal::KILL);
        match code {
            Some(c) => c,
            None => self
                .exited_within(term_grace)
                .await
                .unwrap_or(128 + SIGKILL_NUMBER),
        }
    }
}

/// How often a stopping child is checked for its exit.
const STOP_POLL: Duration = Duration::from_millis(10);
/// SIGKILL's number, for the exit code of a child that could not be reaped.
const SIGKILL_NUMBER: i32 = 9;

/// A child's process group: every signal goes to the whole group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessGroup(Option<Pid>);

impl ProcessGroup {
    /// Sends `signal` to every process in the group.
    pub fn signal(self, signal: Signal) {
        if let Some(p) = self.0 {
            let _ = kill_process_group(p, signal);
        }
    }
}

fn exit_code(s: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    s.code()
        .or_else(|| s.signal().map(|n| 128 + n))
        .unwrap_or(1)
}

pub use crate::terminal::escape_controls;

fn relay_stderr(err: std::process::ChildStderr) {
    let mut r = BufReader::new(err);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match (&mut r)
            .take(MAX_STDERR_LINE as u64)
            .read_until(b'\n', &mut buf)
        {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                let text = String::from_utf8_lossy(&buf);
                let line = text.strip_suffix('\n').unwrap_or(&text);
                let line = line.strip_suffix('\r').unwrap_or(line);
                let mut e = io::stderr().lock();
                let _ = writeln!(e, "{}", escape_controls(line));
            }
        }
    }
}

use std::io::Read as _;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_is_minimal() {
        let from = [
            ("PATH", "/bin"),
            ("HOME", "/h"),
            ("HTTPS_PROXY", "http://p"),
            ("AWS_SECRET_ACCESS_KEY", "s"),
            ("MY_TOKEN", "t"),
            ("LANG", "C"),
        ]
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let env = child_env(from, &["MY_TOKEN".into()]);
        let keys: Vec<_> = env
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        assert_eq!(keys, ["PATH", "HOME", "MY_TOKEN", "LANG"]);
    }

    #[test]
    fn controls_escaped() {
        assert_eq!(
            escape_controls("a\u{1b}[31mb\tc\u{7}"),
            "a\\x1b[31mb\tc\\x07"
        );
    }
}
