//! Path confinement: a tool's `path` argument must name a regular file inside
//! the server's root directory, and opening it must never block.
//!
//! # Guarantees
//! * **Nothing outside the root is looked at.** Every path whose resolution
//!   leaves the root (through `..`, an absolute path, or a symlink, at any
//!   depth) is [`ConfineError::OutsideRoot`], whatever exists out there: a
//!   missing outside file, an outside file used as a directory, and an
//!   existing one all give the same answer, so the errors are no map of the
//!   filesystem outside the root.
//! * **Resolution beneath the root is enforced by the kernel where it can
//!   be.** On Linux 5.6 and later the file is opened with `openat2` relative
//!   to a handle on the root directory, with `RESOLVE_BENEATH` (no step of
//!   the resolution may leave the root: a swap of a directory for a symlink
//!   between any check and the open cannot escape) and
//!   `RESOLVE_NO_MAGICLINKS` (no `/proc/*/fd` style links). Absolute
//!   symlinks, which the kernel refuses under `RESOLVE_BENEATH`, are
//!   resolved in user space (below) and followed when they lead back inside
//!   the root; the file is then opened with `openat2` again.
//! * **Fallback** (other systems, or a kernel or sandbox without `openat2`,
//!   detected once when the [`Root`] is made): the path is resolved in user
//!   space one component at a time, looking only at names inside the root
//!   (the same rules as the kernel's), the file is opened relative to the
//!   root handle without following a final symlink, and the opened handle is
//!   checked afterwards: its own path (Linux: `/proc/self/fd/N`) must lie
//!   under the canonical root, or elsewhere its device and inode must match
//!   those of the path resolved again.
//! * **Opening never blocks.** The file is opened with `O_NONBLOCK` and
//!   `O_NOCTTY`; the *handle* is then `fstat`ed and anything but a regular
//!   file (FIFO, socket, device, directory) is [`ConfineError::NotAFile`].
//!   A FIFO swapped in at any moment opens at once and is refused.
//!
//! # Limits of any path check
//! A hard link is a second name for the same file: a link inside the root to
//! a file outside it (made by anyone who can write into the root and read
//! the file, on the same filesystem) is, to every path check, a file inside
//! the root. No resolution rule can see it. [`Root::refuse_multiply_linked`]
//! (`toolgate mcp --refuse-hard-links`) refuses every file with more than
//! one link ([`ConfineError::MultiplyLinked`]) for roots where that matters;
//! it is off by default because ordinary files are sometimes hard-linked
//! (backups, package stores). Opening a device node can have effects of its
//! own before it is refused; a device node inside the root can only be made
//! by a privileged user (a symlink to one leaves the root and is refused).

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

/// Most symlinks followed while resolving one path (Linux's own limit,
/// `MAXSYMLINKS`). More is [`ConfineError::Io`] ("too many links").
pub const MAX_SYMLINK_FOLLOWS: usize = 40;

/// Most times an open is retried when the kernel reports a concurrent
/// rename or mount during a `RESOLVE_BENEATH` resolution (`EAGAIN`).
pub const MAX_OPEN_RETRIES: usize = 8;

/// Why a path was not opened.
#[derive(Debug)]
pub enum ConfineError {
    /// Resolves (after `..` and symlinks) outside the root, whatever exists
    /// there: `path.outside_root`.
    OutsideRoot,
    /// Does not exist inside the root (a missing component, or a file used
    /// as a directory).
    NotFound,
    /// Exists but is not a regular file (a directory, a device, a FIFO, a
    /// socket), judged on the opened handle.
    NotAFile,
    /// Larger than the byte bound.
    TooLarge {
        /// The bound in bytes.
        limit: u64,
    },
    /// A regular file with more than one hard link, refused because
    /// [`Root::refuse_multiply_linked`] is on.
    MultiplyLinked {
        /// The file's link count.
        links: u64,
    },
    /// Any other I/O failure (permissions, a symlink loop, ...), inside the
    /// root.
    Io(io::Error),
}

impl ConfineError {
    fn from_io(e: io::Error) -> Self {
        match e.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => Self::NotFound,
            _ => Self::Io(e),
        }
    }
}

/// How [`Root`] resolves paths beneath itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// Linux `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`.
    Kernel,
    /// User-space resolution plus the handle re-check.
    Checked,
}

/// A canonical root directory that paths are confined to, held open.
#[derive(Debug)]
pub struct Root {
    canonical: PathBuf,
    /// The directory as configured, made absolute (not canonical): absolute
    /// request paths may be written under it too.
    configured: PathBuf,
    dir: File,
    resolution: Resolution,
    refuse_multiply_linked: bool,
}

impl Root {
    /// Canonicalizes and opens `dir`; probes once whether the kernel
    /// resolves beneath it.
    ///
    /// # Errors
    /// When `dir` does not exist, cannot be resolved or opened, or is not a
    /// directory.
    pub fn new(dir: &Path) -> io::Result<Self> {
        let canonical = dir.canonicalize()?;
        let configured = std::path::absolute(dir).unwrap_or_else(|_| canonical.clone());
        let handle = open_dir(&canonical)?;
        if !handle.metadata()?.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a directory", canonical.display()),
            ));
        }
        let resolution = if sys::kernel_resolves_beneath(&handle) {
            Resolution::Kernel
        } else {
            Resolution::Checked
        };
        Ok(Self {
            canonical,
            configured,
            dir: handle,
            resolution,
            refuse_multiply_linked: false,
        })
    }

    /// Refuses (`on`) or accepts regular files with more than one hard link
    /// ([`ConfineError::MultiplyLinked`]). Off by default.
    #[must_use]
    pub fn refuse_multiply_linked(mut self, on: bool) -> Self {
        self.refuse_multiply_linked = on;
        self
    }

    /// Resolves in user space with the handle re-check even where the kernel
    /// could resolve beneath the root (tests of the fallback).
    #[doc(hidden)]
    #[must_use]
    pub fn without_kernel_resolution(mut self) -> Self {
        self.resolution = Resolution::Checked;
        self
    }

    /// How this root resolves paths.
    pub fn resolution(&self) -> Resolution {
        self.resolution
    }

    /// Whether the root's paths, as configured and canonical, still name
    /// the directory held open since [`Root::new`] (same device and inode,
    /// links followed). A server that opens paths by name reads beneath
    /// what they name now: one re-pointed (a symbolic link swapped, the
    /// directory renamed away and made again) makes every check beneath the
    /// held directory wrong for that server.
    pub fn still_named(&self) -> bool {
        use std::os::unix::fs::MetadataExt;
        let Ok(held) = self.dir.metadata() else {
            return false;
        };
        [&self.configured, &self.canonical].iter().all(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.dev() == held.dev() && m.ino() == held.ino())
        })
    }

    /// The canonical root path.
    pub fn path(&self) -> &Path {
        &self.canonical
    }

    /// Opens `requested` (relative to the root, or absolute under it) for
    /// reading, confined to the root, without blocking, and verifies the
    /// handle: a regular file of at most `max_bytes` (and one link when
    /// [`Root::refuse_multiply_linked`] is on).
    ///
    /// # Errors
    /// Every [`ConfineError`].
    pub fn open(&self, requested: &str, max_bytes: u64) -> Result<File, ConfineError> {
        let relative = self.relative(Path::new(requested))?;
        let file = match self.resolution {
            Resolution::Kernel => self.open_kernel(&relative)?,
            Resolution::Checked => self.open_checked(&relative)?,
        };
        verify(file, max_bytes, self.refuse_multiply_linked)
    }

    /// Opens (as [`Root::open`]) and reads the file, at most `max_bytes`.
    ///
    /// # Errors
    /// Every [`ConfineError`].
    pub fn read(&self, requested: &str, max_bytes: u64) -> Result<Vec<u8>, ConfineError> {
        read_bounded(self.open(requested, max_bytes)?, max_bytes)
    }

    /// `requested` relative to the root: relative paths as they are,
    /// absolute ones with the canonical or configured root stripped off
    /// (component by component); any other absolute path leaves the root.
    fn relative(&self, requested: &Path) -> Result<PathBuf, ConfineError> {
        if !requested.has_root() {
            return Ok(requested.to_path_buf());
        }
        [&self.canonical, &self.configured]
            .into_iter()
            .find_map(|r| requested.strip_prefix(r).ok())
            .map(Path::to_path_buf)
            .ok_or(ConfineError::OutsideRoot)
    }

    fn open_kernel(&self, relative: &Path) -> Result<File, ConfineError> {
        match sys::open_beneath(&self.dir, nonempty(relative)) {
            // `EXDEV`: a step left the root, or met an absolute symlink
            // (refused by the kernel even when it points back inside).
            // Resolve in user space, which follows absolute symlinks into
            // the root and looks at nothing outside, then let the kernel
            // open the symlink-free result beneath the root again.
            Err(e) if sys::is_escape(&e) => {
                let canonical = self.walk(relative)?;
                match sys::open_beneath(&self.dir, nonempty(&canonical)) {
                    Err(e) if sys::is_escape(&e) => Err(ConfineError::OutsideRoot),
                    other => other.map_err(ConfineError::from_io),
                }
            }
            other => other.map_err(ConfineError::from_io),
        }
    }

    fn open_checked(&self, relative: &Path) -> Result<File, ConfineError> {
        let canonical = self.walk(relative)?;
        let file = match sys::open_no_follow(&self.dir, nonempty(&canonical)) {
            Ok(f) => f,
            // The final component became a symlink after the walk.
            Err(e) if sys::is_symlink_refusal(&e) => return Err(ConfineError::OutsideRoot),
            Err(e) => return Err(ConfineError::from_io(e)),
        };
        if self.handle_is_inside(&file, relative)? {
            Ok(file)
        } else {
            Err(ConfineError::OutsideRoot)
        }
    }

    /// Resolves `relative` beneath the root in user space, the way
    /// `RESOLVE_BENEATH` does, except that an absolute symlink naming a
    /// place under the root is followed there. Only names inside the root
    /// are ever looked up: the first step that would leave it is
    /// [`ConfineError::OutsideRoot`], before anything beyond is touched.
    /// Returns the symlink-free path relative to the root.
    fn walk(&self, relative: &Path) -> Result<PathBuf, ConfineError> {
        self.walk_with(relative, false)
    }

    /// Whether `requested` (absolute, or relative to the root) resolves
    /// beneath the root, by the rules of [`Root::open`], without opening
    /// it: a component that does not exist (or sits under a file) is taken
    /// as written, so a path the caller may create is judged too. Only
    /// names inside the root are looked at. For a policy layer in front of
    /// another process (`toolgate gate`), which cannot open on its behalf.
    ///
    /// # Errors
    /// [`ConfineError::OutsideRoot`]; [`ConfineError::Io`] for a symlink
    /// loop or an I/O failure other than a missing name.
    pub fn check_beneath(&self, requested: &str) -> Result<(), ConfineError> {
        let relative = self.relative(Path::new(requested))?;
        self.walk_with(&relative, true).map(|_| ())
    }

    fn walk_with(&self, relative: &Path, missing_ok: bool) -> Result<PathBuf, ConfineError> {
        let mut pending: VecDeque<OsString> = VecDeque::new();
        push_front(&mut pending, relative)?;
        let mut done: Vec<OsString> = Vec::new();
        let mut follows = 0usize;
        while let Some(name) = pending.pop_front() {
            if name == ".." {
                if done.pop().is_none() {
                    return Err(ConfineError::OutsideRoot);
                }
                continue;
            }
            let mut here: PathBuf = done.iter().collect();
            here.push(&name);
            let is_link = match sys::is_symlink_at(&self.dir, &here) {
                Ok(l) => l,
                Err(e)
                    if missing_ok
                        && matches!(
                            e.kind(),
                            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                        ) =>
                {
                    false
                }
                Err(e) => return Err(ConfineError::from_io(e)),
            };
            if !is_link {
                done.push(name);
                continue;
            }
            follows = follows.saturating_add(1);
            if follows > MAX_SYMLINK_FOLLOWS {
                return Err(ConfineError::Io(io::Error::other(format!(
                    "more than {MAX_SYMLINK_FOLLOWS} symbolic links"
                ))));
            }
            let target = sys::read_link_at(&self.dir, &here).map_err(ConfineError::from_io)?;
            if target.has_root() {
                let inside = target
                    .strip_prefix(&self.canonical)
                    .map_err(|_| ConfineError::OutsideRoot)?;
                done.clear();
                push_front(&mut pending, inside)?;
            } else {
                push_front(&mut pending, &target)?;
            }
        }
        Ok(done.iter().collect())
    }

    #[cfg(target_os = "linux")]
    fn handle_is_inside(&self, file: &File, relative: &Path) -> Result<bool, ConfineError> {
        use std::os::fd::AsRawFd;
        let link = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        match std::fs::read_link(&link) {
            Ok(actual) => Ok(actual.starts_with(&self.canonical)),
            // No procfs (some containers): fall back to the inode check.
            Err(_) => self.inode_matches(file, relative),
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn handle_is_inside(&self, file: &File, relative: &Path) -> Result<bool, ConfineError> {
        self.inode_matches(file, relative)
    }

    /// The opened handle is the file that the path resolves to *now*
    /// (resolved beneath the root again).
    fn inode_matches(&self, file: &File, relative: &Path) -> Result<bool, ConfineError> {
        let Ok(again) = self.walk(relative) else {
            return Ok(false);
        };
        let named = match sys::stat_at(&self.dir, nonempty(&again)) {
            Ok(m) => m,
            Err(_) => return Ok(false),
        };
        let opened = file.metadata().map_err(ConfineError::Io)?;
        Ok(sys::same_file(&opened, &named))
    }
}

/// Opens `requested` without confinement (`--unconfined`), with the same
/// non-blocking open and handle checks as [`Root::open`]. Symlinks are
/// followed.
///
/// # Errors
/// [`ConfineError::NotFound`], [`ConfineError::NotAFile`],
/// [`ConfineError::TooLarge`], [`ConfineError::MultiplyLinked`],
/// [`ConfineError::Io`].
pub fn read_unconfined(
    requested: &str,
    max_bytes: u64,
    refuse_multiply_linked: bool,
) -> Result<Vec<u8>, ConfineError> {
    let file = sys::open_follow(Path::new(requested)).map_err(ConfineError::from_io)?;
    let file = verify(file, max_bytes, refuse_multiply_linked)?;
    read_bounded(file, max_bytes)
}

/// The checks on the opened handle itself: a regular file, within the
/// size bound, and singly linked when asked.
fn verify(file: File, max_bytes: u64, refuse_multiply_linked: bool) -> Result<File, ConfineError> {
    let meta = file.metadata().map_err(ConfineError::Io)?;
    if !meta.is_file() {
        return Err(ConfineError::NotAFile);
    }
    if meta.len() > max_bytes {
        return Err(ConfineError::TooLarge { limit: max_bytes });
    }
    let links = sys::link_count(&meta);
    if refuse_multiply_linked && links > 1 {
        return Err(ConfineError::MultiplyLinked { links });
    }
    Ok(file)
}

/// Puts the components of `path` (relative) in front of `pending`.
fn push_front(pending: &mut VecDeque<OsString>, path: &Path) -> Result<(), ConfineError> {
    let mut names = Vec::new();
    for c in path.components() {
        match c {
            Component::Normal(n) => names.push(n.to_os_string()),
            Component::ParentDir => names.push(OsString::from("..")),
            Component::CurDir => {}
            // An absolute remainder (`//x` after a stripped prefix, a
            // Windows prefix) is not beneath the root.
            Component::RootDir | Component::Prefix(_) => return Err(ConfineError::OutsideRoot),
        }
    }
    for n in names.into_iter().rev() {
        pending.push_front(n);
    }
    Ok(())
}

/// `.` for the root itself (the empty relative path).
fn nonempty(p: &Path) -> &Path {
    if p.as_os_str().is_empty() {
        Path::new(".")
    } else {
        p
    }
}

fn open_dir(path: &Path) -> io::Result<File> {
    sys::open_dir(path)
}

fn read_bounded(file: File, max_bytes: u64) -> Result<Vec<u8>, ConfineError> {
    // Sized from the file (plus the byte that shows growth), so the read
    // takes one or two system calls instead of a dozen growing ones.
    let hint = file
        .metadata()
        .map_or(0, |m| m.len().min(max_bytes))
        .saturating_add(1);
    let mut out = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    // One byte past the bound detects a file that grew after the size check.
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(ConfineError::Io)?;
    if out.len() as u64 > max_bytes {
        return Err(ConfineError::TooLarge { limit: max_bytes });
    }
    Ok(out)
}

/// The system calls, through `rustix` (no `unsafe` here). Unix only, as
/// the rest of the crate.
mod sys {
    use rustix::fs::{AtFlags, Mode, OFlags};
    use rustix::io::Errno;
    use std::fs::{File, Metadata};
    use std::io;
    use std::os::unix::fs::MetadataExt;
    use std::path::{Path, PathBuf};

    /// Flags of every file open: read-only, never blocking (a FIFO opens at
    /// once), never taking a controlling terminal.
    const READ: OFlags = OFlags::RDONLY
        .union(OFlags::NONBLOCK)
        .union(OFlags::NOCTTY)
        .union(OFlags::CLOEXEC);

    pub(super) fn open_dir(path: &Path) -> io::Result<File> {
        let fd = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(File::from(fd))
    }

    #[cfg(target_os = "linux")]
    fn beneath() -> rustix::fs::ResolveFlags {
        rustix::fs::ResolveFlags::BENEATH | rustix::fs::ResolveFlags::NO_MAGICLINKS
    }

    /// Whether `openat2` with `RESOLVE_BENEATH` works here (Linux 5.6+, and
    /// not filtered out by a sandbox).
    #[cfg(target_os = "linux")]
    pub(super) fn kernel_resolves_beneath(dir: &File) -> bool {
        rustix::fs::openat2(
            dir,
            ".",
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
            beneath(),
        )
        .is_ok()
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn kernel_resolves_beneath(_dir: &File) -> bool {
        false
    }

    /// `openat2(dir, path, READ, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`,
    /// retried on a concurrent rename (`EAGAIN`) at most
    /// [`MAX_OPEN_RETRIES`](super::MAX_OPEN_RETRIES) times.
    #[cfg(target_os = "linux")]
    pub(super) fn open_beneath(dir: &File, path: &Path) -> io::Result<File> {
        let mut tries = 0usize;
        loop {
            match rustix::fs::openat2(dir, path, READ, Mode::empty(), beneath()) {
                Ok(fd) => return Ok(File::from(fd)),
                Err(Errno::AGAIN | Errno::INTR) if tries < super::MAX_OPEN_RETRIES => {
                    tries = tries.saturating_add(1);
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn open_beneath(_dir: &File, _path: &Path) -> io::Result<File> {
        Err(Errno::NOSYS.into())
    }

    /// The kernel refused a step out of the root (or an absolute symlink).
    pub(super) fn is_escape(e: &io::Error) -> bool {
        e.raw_os_error() == Some(Errno::XDEV.raw_os_error())
    }

    /// `O_NOFOLLOW` met a symlink as the final component.
    pub(super) fn is_symlink_refusal(e: &io::Error) -> bool {
        e.raw_os_error() == Some(Errno::LOOP.raw_os_error())
    }

    /// `openat(dir, path, READ | O_NOFOLLOW)`.
    pub(super) fn open_no_follow(dir: &File, path: &Path) -> io::Result<File> {
        let fd = rustix::fs::openat(dir, path, READ | OFlags::NOFOLLOW, Mode::empty())?;
        Ok(File::from(fd))
    }

    /// `open(path, READ)`, following symlinks.
    pub(super) fn open_follow(path: &Path) -> io::Result<File> {
        Ok(File::from(rustix::fs::open(path, READ, Mode::empty())?))
    }

    /// Whether `path` relative to `dir` is a symlink (`lstat`).
    pub(super) fn is_symlink_at(dir: &File, path: &Path) -> io::Result<bool> {
        let st = rustix::fs::statat(dir, path, AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Symlink)
    }

    /// `stat` (following a final symlink) of `path` relative to `dir`.
    pub(super) fn stat_at(dir: &File, path: &Path) -> io::Result<(u64, u64)> {
        let st = rustix::fs::statat(dir, path, AtFlags::empty())?;
        #[allow(clippy::useless_conversion)] // the field types differ by target
        Ok((u64::from(st.st_dev), u64::from(st.st_ino)))
    }

    pub(super) fn read_link_at(dir: &File, path: &Path) -> io::Result<PathBuf> {
        let target = rustix::fs::readlinkat(dir, path, Vec::new())?;
        let bytes: Vec<u8> = target.into_bytes();
        Ok(PathBuf::from(
            <std::ffi::OsString as std::os::unix::ffi::OsStringExt>::from_vec(bytes),
        ))
    }

    pub(super) fn same_file(opened: &Metadata, named: &(u64, u64)) -> bool {
        (opened.dev(), opened.ino()) == *named
    }

    pub(super) fn link_count(meta: &Metadata) -> u64 {
        meta.nlink()
    }
}

/// Test support shared with the services' tests: renames a FIFO and a
/// regular file in turn to `dir/name` until `stop` is set.
#[cfg(test)]
pub(crate) fn race_fifo(
    dir: &Path,
    name: &str,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<()> {
    let dir = dir.to_path_buf();
    let name = name.to_owned();
    std::thread::spawn(move || {
        let mut n = 0u64;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let tmp = dir.join(format!("tmp{n}"));
            if n.is_multiple_of(2) {
                rustix::fs::mkfifoat(
                    rustix::fs::CWD,
                    &tmp,
                    rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
                )
                .unwrap();
            } else {
                std::fs::write(&tmp, b"%PDF-1.4").unwrap();
            }
            std::fs::rename(&tmp, dir.join(&name)).unwrap();
            n += 1;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::os::unix::fs::symlink;

    fn mkfifo(path: &Path) {
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            path,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
    }

    /// `root/` with `sub/a.pdf`, links inside and out; `secret.pdf`,
    /// `dir/x.pdf` outside when `populated`.
    fn world(populated: bool) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.pdf"), b"inside").unwrap();
        if populated {
            std::fs::write(base.join("secret.pdf"), b"outside").unwrap();
            std::fs::create_dir(base.join("dir")).unwrap();
            std::fs::write(base.join("dir/x.pdf"), b"outside").unwrap();
        }
        symlink(base.join("secret.pdf"), root.join("abs-out.pdf")).unwrap();
        symlink("../secret.pdf", root.join("rel-out.pdf")).unwrap();
        symlink(&base, root.join("abs-up")).unwrap();
        symlink("..", root.join("up")).unwrap();
        symlink("sub/../..", root.join("deep-up")).unwrap();
        symlink(root.join("sub/a.pdf"), root.join("abs-in.pdf")).unwrap();
        symlink("sub/a.pdf", root.join("rel-in.pdf")).unwrap();
        symlink(root.join("sub"), root.join("abs-sub")).unwrap();
        symlink("loop2", root.join("loop1")).unwrap();
        symlink("loop1", root.join("loop2")).unwrap();
        (dir, root)
    }

    /// The same root under both resolutions (the kernel one only where
    /// `openat2` works; the fallback always).
    fn roots(root: &Path) -> Vec<Root> {
        let kernel = Root::new(root).unwrap();
        let mut out = vec![Root::new(root).unwrap().without_kernel_resolution()];
        if kernel.resolution() == Resolution::Kernel {
            out.push(kernel);
        }
        out
    }

    fn kind(r: &Result<Vec<u8>, ConfineError>) -> String {
        match r {
            Ok(b) => format!("ok {}", String::from_utf8_lossy(b)),
            Err(ConfineError::Io(e)) => format!("io {:?}", e.kind()),
            Err(e) => format!("{e:?}"),
        }
    }

    #[test]
    fn the_kernel_resolves_beneath_here() {
        // Linux 5.6+: documents which path the other tests took.
        let (_d, root) = world(true);
        eprintln!("resolution: {:?}", Root::new(&root).unwrap().resolution());
    }

    #[test]
    fn reads_inside_and_follows_links_that_stay_inside() {
        let (_d, root_dir) = world(true);
        for root in roots(&root_dir) {
            let r = root.resolution();
            for p in [
                "sub/a.pdf",
                "sub/../sub/a.pdf",
                "./sub/./a.pdf",
                "abs-in.pdf",
                "rel-in.pdf",
                "abs-sub/a.pdf",
                "abs-sub/../sub/a.pdf",
            ] {
                assert_eq!(root.read(p, 100).unwrap(), b"inside", "{r:?} {p}");
            }
            let abs = root_dir.join("sub/a.pdf");
            assert_eq!(root.read(abs.to_str().unwrap(), 100).unwrap(), b"inside");
        }
    }

    #[test]
    fn an_absolute_path_under_the_configured_spelling_is_inside() {
        let (d, root_dir) = world(true);
        let alias = d.path().canonicalize().unwrap().join("alias");
        symlink(&root_dir, &alias).unwrap();
        let root = Root::new(&alias).unwrap();
        let p = alias.join("sub/a.pdf");
        assert_eq!(root.read(p.to_str().unwrap(), 100).unwrap(), b"inside");
    }

    /// The regression: through a link leaving the root, a missing outside
    /// file was `not_found`, a file used as a directory `io_error`.
    #[test]
    fn every_escape_is_outside_root_whatever_exists_there() {
        for populated in [true, false] {
            let (_d, root_dir) = world(populated);
            for root in roots(&root_dir) {
                for p in [
                    "../secret.pdf",
                    "sub/../../secret.pdf",
                    "../nope.pdf",
                    "../secret.pdf/x",
                    "../dir/x.pdf",
                    "/etc/passwd",
                    "/nonexistent/x",
                    "abs-out.pdf",
                    "rel-out.pdf",
                    "abs-up/secret.pdf",
                    "abs-up/nope.pdf",
                    "abs-up/secret.pdf/x",
                    "up/secret.pdf",
                    "up/nope/deeper",
                    "up/root/sub/a.pdf",
                    "deep-up/dir/x.pdf",
                    "sub/../up/secret.pdf",
                    "..",
                ] {
                    assert!(
                        matches!(root.read(p, 100), Err(ConfineError::OutsideRoot)),
                        "{:?} populated={populated} {p}: {}",
                        root.resolution(),
                        kind(&root.read(p, 100))
                    );
                }
            }
        }
    }

    #[test]
    fn missing_and_odd_paths_inside() {
        let (_d, root_dir) = world(true);
        for root in roots(&root_dir) {
            for p in ["nope.pdf", "sub/nope.pdf", "sub/a.pdf/x", "nope/x.pdf"] {
                assert!(
                    matches!(root.read(p, 100), Err(ConfineError::NotFound)),
                    "{p}: {}",
                    kind(&root.read(p, 100))
                );
            }
            assert!(matches!(root.read("loop1", 100), Err(ConfineError::Io(_))));
            for p in ["sub", ".", "", "abs-sub"] {
                assert!(
                    matches!(root.read(p, 100), Err(ConfineError::NotAFile)),
                    "{p}"
                );
            }
            assert!(matches!(
                root.read("sub/a.pdf", 3),
                Err(ConfineError::TooLarge { limit: 3 })
            ));
        }
    }

    #[test]
    fn special_files_are_refused_on_the_handle_without_blocking() {
        let (_d, root_dir) = world(true);
        mkfifo(&root_dir.join("fifo.pdf"));
        let _sock = std::os::unix::net::UnixListener::bind(root_dir.join("sock.pdf")).unwrap();
        symlink("fifo.pdf", root_dir.join("to-fifo.pdf")).unwrap();
        for root in roots(&root_dir) {
            for p in ["fifo.pdf", "to-fifo.pdf", "sock.pdf"] {
                assert!(
                    matches!(
                        root.read(p, 100),
                        Err(ConfineError::NotAFile | ConfineError::Io(_))
                    ),
                    "{p}: {}",
                    kind(&root.read(p, 100))
                );
            }
            assert!(matches!(
                root.read("fifo.pdf", 100),
                Err(ConfineError::NotAFile)
            ));
        }
        let fifo = root_dir.join("fifo.pdf");
        for p in [fifo.to_str().unwrap(), "/dev/null"] {
            assert!(
                matches!(read_unconfined(p, 100, false), Err(ConfineError::NotAFile)),
                "{p}"
            );
        }
    }

    #[test]
    fn multiply_linked_files_are_refused_when_asked() {
        let (d, root_dir) = world(true);
        let outside = d.path().join("secret.pdf");
        std::fs::hard_link(&outside, root_dir.join("hard.pdf")).unwrap();
        for root in roots(&root_dir) {
            assert_eq!(root.read("hard.pdf", 100).unwrap(), b"outside");
            let strict = root.refuse_multiply_linked(true);
            assert!(matches!(
                strict.read("hard.pdf", 100),
                Err(ConfineError::MultiplyLinked { links: 2 })
            ));
            assert_eq!(strict.read("sub/a.pdf", 100).unwrap(), b"inside");
        }
        assert!(matches!(
            read_unconfined(outside.to_str().unwrap(), 100, true),
            Err(ConfineError::MultiplyLinked { links: 2 })
        ));
    }

    /// A directory swapped for a symlink to outside between the user-space
    /// walk and the open: the fallback's handle re-check refuses it, and
    /// the kernel refuses the open itself.
    #[test]
    fn a_swap_between_walk_and_open_cannot_escape() {
        let (d, root_dir) = world(true);
        let base = d.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("evil")).unwrap();
        std::fs::write(base.join("evil/a.pdf"), b"outside").unwrap();
        let root = Root::new(&root_dir).unwrap();
        let rel = Path::new("sub/a.pdf");
        let canonical = root.walk(rel).unwrap();
        std::fs::rename(root_dir.join("sub"), root_dir.join("old")).unwrap();
        symlink(base.join("evil"), root_dir.join("sub")).unwrap();
        // The fallback open follows the swapped directory...
        let file = sys::open_no_follow(&root.dir, &canonical).unwrap();
        // ...and the re-check sees the handle outside, by path and by inode.
        assert!(!root.handle_is_inside(&file, rel).unwrap());
        assert!(!root.inode_matches(&file, rel).unwrap());
        assert!(matches!(
            root.without_kernel_resolution().read("sub/a.pdf", 100),
            Err(ConfineError::OutsideRoot)
        ));
        let kernel = Root::new(&root_dir).unwrap();
        if kernel.resolution() == Resolution::Kernel {
            let e = sys::open_beneath(&kernel.dir, &canonical).unwrap_err();
            assert!(sys::is_escape(&e), "{e}");
        }
    }

    /// Races a FIFO against a regular file under one name; every read
    /// returns (a FIFO swapped in after the type check once blocked the
    /// open). The same race through the PDF server is in `mcp::server`.
    #[test]
    fn a_fifo_racing_a_regular_file_never_blocks_a_read() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;

        const CALLS: usize = 400;
        let (_d, root_dir) = world(true);
        let stop = Arc::new(AtomicBool::new(false));
        let racer = race_fifo(&root_dir, "race.pdf", Arc::clone(&stop));
        let (tx, rx) = std::sync::mpsc::channel();
        let worker = {
            let root_dir = root_dir.clone();
            std::thread::spawn(move || {
                let mut reads = 0usize;
                for checked in [false, true] {
                    let root = Root::new(&root_dir).unwrap();
                    let root = if checked {
                        root.without_kernel_resolution()
                    } else {
                        root
                    };
                    for _ in 0..CALLS {
                        let r = root.read("race.pdf", 100);
                        assert!(
                            matches!(
                                &r,
                                Ok(_) | Err(ConfineError::NotAFile | ConfineError::NotFound)
                            ),
                            "{}",
                            kind(&r)
                        );
                        reads += 1;
                    }
                }
                tx.send(reads).unwrap();
            })
        };
        // A hang is the failure: wait long, never forever.
        let reads = rx.recv_timeout(std::time::Duration::from_secs(300));
        stop.store(true, Ordering::Relaxed);
        racer.join().unwrap();
        assert_eq!(reads.ok(), Some(2 * CALLS), "a read never returned");
        worker.join().unwrap();
    }

    /// Path components for the property: names inside, links out and in,
    /// `..`, names that exist outside in one world only.
    const PARTS: &[&str] = &[
        "..",
        ".",
        "sub",
        "a.pdf",
        "up",
        "abs-up",
        "deep-up",
        "abs-out.pdf",
        "rel-out.pdf",
        "abs-in.pdf",
        "abs-sub",
        "secret.pdf",
        "dir",
        "x.pdf",
        "nope",
        "root",
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]
        /// The answer never depends on what exists outside the root: the
        /// same path gets the same result in a world whose outside holds
        /// files and in one whose outside is empty, under both resolutions,
        /// and an answer that looked outside is always `OutsideRoot`.
        #[test]
        fn answers_never_depend_on_what_exists_outside(
            parts in proptest::collection::vec(proptest::sample::select(PARTS), 1..6),
            absolute in any::<bool>(),
        ) {
            let (_a, full) = world(true);
            let (_b, empty) = world(false);
            let rel = parts.join("/");
            for (i, (rf, re)) in roots(&full).into_iter().zip(roots(&empty)).enumerate() {
                let (pf, pe) = if absolute {
                    (full.join(&rel).display().to_string(), empty.join(&rel).display().to_string())
                } else {
                    (rel.clone(), rel.clone())
                };
                let a = kind(&rf.read(&pf, 100));
                let b = kind(&re.read(&pe, 100));
                prop_assert_eq!(&a, &b, "resolution {} path {}", i, rel);
                prop_assert!(a != "ok outside", "{} read an outside file", rel);
            }
        }
    }
}
