//! Processes seen through `/proc`: whether one is alive, and the PDF
//! workers a parent has (shared by the worker-lifetime suites).

/// The process's state letter from `/proc/PID/stat`, `None` when it is gone.
pub fn state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces: skip past it.
    let (_, rest) = stat.rsplit_once(')')?;
    rest.trim_start().chars().next()
}

pub fn alive(pid: u32) -> bool {
    !matches!(state(pid), None | Some('Z' | 'X'))
}

/// Children of `parent` whose command line mentions `pdf-worker`.
pub fn workers_of(parent: u32) -> Vec<u32> {
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
