//! Path arguments: which arguments are paths, and whether a path resolves
//! inside one of the `--root` directories the way the child would resolve it.
//!
//! Resolution is done component by component from the child's working
//! directory (the gateway's own: the child is started there): `~` and `~/…`
//! are expanded with the `HOME` the child gets (servers such as the
//! reference filesystem server expand it); every symbolic link met, dangling
//! ones included, is followed as the kernel would follow it (at most
//! [`MAX_SYMLINKS`]); a component that does not exist is taken as written, and
//! a later `..` removes it. The result must lie under a canonical root.
//!
//! A refused path gets `path.outside_root` with the same reason whether or
//! not it exists: the refusal is no existence oracle.
//!
//! What this cannot see: a child that changes its own working directory,
//! expands other notations, or a path swapped for a symbolic link between
//! this check and the child's open (see the threat model in `docs/gate.md`).

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::code::Refusal;
use crate::net::Denial;

/// Argument names taken as paths wherever they appear in `arguments`
/// (compared without ASCII case); a string value, or an array of strings.
pub const PATH_ARGUMENT_NAMES: &[&str] = &[
    "path",
    "paths",
    "file",
    "filename",
    "dir",
    "directory",
    "source",
    "destination",
    "cwd",
    "root",
];

/// Most symbolic links followed while resolving one path (Linux's own bound).
pub const MAX_SYMLINKS: usize = 40;

/// Longest path accepted, in bytes (Linux `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;

/// `true` when an argument called `name` holds a path.
pub fn is_path_name(name: &str) -> bool {
    PATH_ARGUMENT_NAMES
        .iter()
        .any(|n| n.eq_ignore_ascii_case(name))
}

/// The canonical roots, and the child's working and home directories.
#[derive(Debug, Clone)]
pub struct Roots {
    roots: Vec<PathBuf>,
    cwd: PathBuf,
    home: Option<PathBuf>,
}

impl Roots {
    /// Canonicalizes each root (each must be an existing directory).
    ///
    /// # Errors
    /// The first root that does not exist or is not a directory, named.
    pub fn new(roots: &[PathBuf], cwd: PathBuf, home: Option<PathBuf>) -> io::Result<Self> {
        let mut canonical = Vec::with_capacity(roots.len());
        for r in roots {
            let c = cwd
                .join(r)
                .canonicalize()
                .map_err(|e| io::Error::new(e.kind(), format!("root {}: {e}", r.display())))?;
            if !c.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("root {} is not a directory", r.display()),
                ));
            }
            canonical.push(c);
        }
        Ok(Self {
            roots: canonical,
            cwd,
            home,
        })
    }

    /// The canonical roots.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Checks one path argument.
    ///
    /// # Errors
    /// `path.outside_root` (one reason for every failure, existing or not).
    pub fn check(&self, text: &str, rule: &str) -> Result<(), Refusal> {
        match self.resolve(text) {
            Some(p) if self.roots.iter().any(|r| p.starts_with(r)) => Ok(()),
            _ => Err(Refusal::from_denial(
                &Denial::outside_root("the path does not resolve inside any --root directory"),
                rule,
            )),
        }
    }

    /// Where the child would land for `text`, or `None` when it cannot be
    /// told (too long, a NUL byte, a symlink loop, `~` without a home).
    pub fn resolve(&self, text: &str) -> Option<PathBuf> {
        if text.len() > MAX_PATH_BYTES || text.contains('\0') {
            return None;
        }
        let expanded: PathBuf = match text.strip_prefix('~') {
            Some("") => self.home.clone()?,
            Some(rest) if rest.starts_with('/') => {
                self.home.as_ref()?.join(rest.trim_start_matches('/'))
            }
            _ => PathBuf::from(text),
        };
        let full = self.cwd.join(expanded);
        let mut queue: VecDeque<OsString> = VecDeque::new();
        push_front(&mut queue, &full);
        let mut out = PathBuf::from("/");
        let mut links = 0usize;
        while let Some(part) = queue.pop_front() {
            if part == "/" {
                out = PathBuf::from("/");
                continue;
            }
            if part == "." {
                continue;
            }
            if part == ".." {
                out.pop();
                continue;
            }
            let candidate = out.join(&part);
            match std::fs::symlink_metadata(&candidate) {
                Ok(m) if m.file_type().is_symlink() => {
                    links += 1;
                    if links > MAX_SYMLINKS {
                        return None;
                    }
                    let target = std::fs::read_link(&candidate).ok()?;
                    push_front(&mut queue, &target);
                }
                _ => out = candidate,
            }
        }
        Some(out)
    }
}

/// Puts the components of `path` at the front of `queue`, in order; an
/// absolute path starts with `/`, which resets the walk.
fn push_front(queue: &mut VecDeque<OsString>, path: &Path) {
    let parts: Vec<OsString> = path
        .components()
        .map(|c| match c {
            Component::RootDir | Component::Prefix(_) => OsString::from("/"),
            Component::CurDir => OsString::from("."),
            Component::ParentDir => OsString::from(".."),
            Component::Normal(n) => n.to_os_string(),
        })
        .collect();
    for p in parts.into_iter().rev() {
        queue.push_front(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, Roots) {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("data/sub")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(base.join("data/a.txt"), "a").unwrap();
        std::fs::write(base.join("outside/secret"), "s").unwrap();
        symlink(base.join("outside"), base.join("data/escape")).unwrap();
        symlink("../outside/new", base.join("data/dangling")).unwrap();
        symlink("sub", base.join("data/inner")).unwrap();
        symlink("loop", base.join("data/loop")).unwrap();
        let roots = Roots::new(
            &[PathBuf::from("data")],
            base.clone(),
            Some(base.join("data")),
        )
        .unwrap();
        (t, roots)
    }

    #[test]
    fn inside_and_outside() {
        let (t, r) = setup();
        let base = t.path().canonicalize().unwrap();
        let ok = |p: &str| r.check(p, "t").is_ok();
        assert!(ok("data/a.txt"));
        assert!(ok("data/missing/deeper.txt"));
        assert!(ok(&base.join("data/a.txt").to_string_lossy()));
        assert!(ok("data/inner/x"));
        assert!(ok("data"));
        assert!(ok("~/a.txt"));
        assert!(ok("~"));
        assert!(ok("data/missing/../a.txt"));
        assert!(!ok("outside/secret"));
        assert!(!ok("data/../outside/secret"));
        assert!(!ok("data/escape/secret"));
        assert!(!ok("data/escape/does-not-exist"));
        assert!(!ok("data/dangling"));
        assert!(!ok("data/loop"));
        assert!(!ok("/etc/passwd"));
        assert!(!ok("."));
        assert!(!ok("data/a\0b"));
        assert!(!ok(&"a/".repeat(3000)));
        assert!(!ok("data/missing/../../outside"));
    }

    #[test]
    fn no_existence_oracle() {
        let (_t, r) = setup();
        let a = r.check("outside/secret", "t").unwrap_err();
        let b = r.check("outside/nothing-here", "t").unwrap_err();
        assert_eq!(a, b);
        assert_eq!(a.code(), "path.outside_root");
    }

    #[test]
    fn names() {
        for n in ["path", "PATH", "Paths", "cwd", "destination"] {
            assert!(is_path_name(n), "{n}");
        }
        assert!(!is_path_name("content"));
    }
}
