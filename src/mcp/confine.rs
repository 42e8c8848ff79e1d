//! Path confinement: a tool's `path` argument must name a regular file inside
//! the server's root directory.
//!
//! Checked twice, so that a swap between the check and the open (TOCTOU: a
//! directory replaced by a symlink in between) cannot escape:
//! 1. before opening: the path (relative paths are taken relative to the
//!    root) is canonicalized (`..` and every symlink resolved) and must lie
//!    under the canonical root;
//! 2. after opening: the *opened handle's* own path (Linux:
//!    `/proc/self/fd/N`) must lie under the canonical root too; elsewhere
//!    the handle's device and inode must match those of the re-canonicalized
//!    path. The caller then reads through that handle only.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Why a path was not opened.
#[derive(Debug)]
pub enum ConfineError {
    /// Resolves (after `..` and symlinks) outside the root: `path.outside_root`.
    OutsideRoot,
    /// Does not exist.
    NotFound,
    /// Exists but is not a regular file (a directory, a device, a FIFO, ...).
    NotAFile,
    /// Larger than the byte bound.
    TooLarge {
        /// The bound in bytes.
        limit: u64,
    },
    /// Any other I/O failure (permissions, ...).
    Io(io::Error),
}

impl ConfineError {
    fn from_io(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::NotFound {
            Self::NotFound
        } else {
            Self::Io(e)
        }
    }
}

/// A canonical root directory that paths are confined to.
#[derive(Debug, Clone)]
pub struct Root {
    canonical: PathBuf,
}

impl Root {
    /// Canonicalizes `dir`.
    ///
    /// # Errors
    /// When `dir` does not exist, cannot be resolved, or is not a directory.
    pub fn new(dir: &Path) -> io::Result<Self> {
        let canonical = dir.canonicalize()?;
        if !canonical.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a directory", canonical.display()),
            ));
        }
        Ok(Self { canonical })
    }

    /// The canonical root path.
    pub fn path(&self) -> &Path {
        &self.canonical
    }

    /// Step 1: resolves `requested` and checks it lies under the root.
    ///
    /// # Errors
    /// [`ConfineError::OutsideRoot`] or [`ConfineError::NotFound`].
    pub fn resolve(&self, requested: &str) -> Result<PathBuf, ConfineError> {
        let joined = self.canonical.join(requested);
        let resolved = joined.canonicalize().map_err(|e| {
            // A path that does not exist but lexically leaves the root must
            // not tell the caller whether the outside file exists.
            if lexically_escapes(requested) || Path::new(requested).is_absolute() {
                ConfineError::OutsideRoot
            } else {
                ConfineError::from_io(e)
            }
        })?;
        if !resolved.starts_with(&self.canonical) {
            return Err(ConfineError::OutsideRoot);
        }
        Ok(resolved)
    }

    /// Step 2: opens `resolved` and verifies the opened handle is still under
    /// the root and is a regular file of at most `max_bytes`.
    ///
    /// # Errors
    /// Every [`ConfineError`].
    pub fn open_verified(&self, resolved: &Path, max_bytes: u64) -> Result<File, ConfineError> {
        precheck_regular(Path::new(resolved))?;
        let file = File::open(resolved).map_err(ConfineError::from_io)?;
        if !self.handle_is_inside(&file, resolved)? {
            return Err(ConfineError::OutsideRoot);
        }
        let meta = file.metadata().map_err(ConfineError::Io)?;
        if !meta.is_file() {
            return Err(ConfineError::NotAFile);
        }
        if meta.len() > max_bytes {
            return Err(ConfineError::TooLarge { limit: max_bytes });
        }
        Ok(file)
    }

    /// Resolves, opens, verifies and reads the file (at most `max_bytes`).
    ///
    /// # Errors
    /// Every [`ConfineError`].
    pub fn read(&self, requested: &str, max_bytes: u64) -> Result<Vec<u8>, ConfineError> {
        let resolved = self.resolve(requested)?;
        let file = self.open_verified(&resolved, max_bytes)?;
        read_bounded(file, max_bytes)
    }

    #[cfg(target_os = "linux")]
    fn handle_is_inside(&self, file: &File, _resolved: &Path) -> Result<bool, ConfineError> {
        use std::os::fd::AsRawFd;
        let link = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        match std::fs::read_link(&link) {
            Ok(actual) => Ok(actual.starts_with(&self.canonical)),
            // No procfs (some containers): fall back to the inode check.
            Err(_) => self.inode_matches(file, _resolved),
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn handle_is_inside(&self, file: &File, resolved: &Path) -> Result<bool, ConfineError> {
        self.inode_matches(file, resolved)
    }

    /// The opened handle is the file that the path resolves to *now*, and that
    /// path is under the root.
    fn inode_matches(&self, file: &File, resolved: &Path) -> Result<bool, ConfineError> {
        let again = match resolved.canonicalize() {
            Ok(p) => p,
            Err(_) => return Ok(false),
        };
        if !again.starts_with(&self.canonical) {
            return Ok(false);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let opened = file.metadata().map_err(ConfineError::Io)?;
            let named = std::fs::metadata(&again).map_err(ConfineError::Io)?;
            Ok(opened.dev() == named.dev() && opened.ino() == named.ino())
        }
        #[cfg(not(unix))]
        {
            let _ = file;
            Ok(true)
        }
    }
}

/// Opens `requested` without confinement (no `--root`), with the same
/// regular-file and size checks.
///
/// # Errors
/// [`ConfineError::NotFound`], [`ConfineError::NotAFile`],
/// [`ConfineError::TooLarge`], [`ConfineError::Io`].
pub fn read_unconfined(requested: &str, max_bytes: u64) -> Result<Vec<u8>, ConfineError> {
    precheck_regular(Path::new(requested))?;
    let file = File::open(requested).map_err(ConfineError::from_io)?;
    let meta = file.metadata().map_err(ConfineError::Io)?;
    if !meta.is_file() {
        return Err(ConfineError::NotAFile);
    }
    if meta.len() > max_bytes {
        return Err(ConfineError::TooLarge { limit: max_bytes });
    }
    read_bounded(file, max_bytes)
}

/// Refuses non-regular files before opening them: opening a FIFO for
/// reading would block the whole session until a writer appears. (The
/// handle is checked again after opening.)
fn precheck_regular(path: &Path) -> Result<(), ConfineError> {
    let meta = std::fs::metadata(path).map_err(ConfineError::from_io)?;
    if meta.is_file() {
        Ok(())
    } else {
        Err(ConfineError::NotAFile)
    }
}

fn read_bounded(file: File, max_bytes: u64) -> Result<Vec<u8>, ConfineError> {
    let mut out = Vec::new();
    // One byte past the bound detects a file that grew after the size check.
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(ConfineError::Io)?;
    if out.len() as u64 > max_bytes {
        return Err(ConfineError::TooLarge { limit: max_bytes });
    }
    Ok(out)
}

/// Whether the relative path climbs above its starting directory at some
/// point (`a/../../b`), judged on its components alone.
fn lexically_escapes(requested: &str) -> bool {
    let mut depth: i64 = 0;
    for c in Path::new(requested).components() {
        match c {
            std::path::Component::ParentDir => {
                depth = depth.saturating_sub(1);
                if depth < 0 {
                    return true;
                }
            }
            std::path::Component::Normal(_) => depth = depth.saturating_add(1),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, Root, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root_dir = dir.path().join("root");
        std::fs::create_dir_all(root_dir.join("sub")).unwrap();
        std::fs::write(root_dir.join("sub/a.pdf"), b"inside").unwrap();
        std::fs::write(dir.path().join("secret.pdf"), b"outside").unwrap();
        let root = Root::new(&root_dir).unwrap();
        (dir, root, root_dir)
    }

    #[test]
    fn reads_inside() {
        let (_d, root, root_dir) = setup();
        assert_eq!(root.read("sub/a.pdf", 100).unwrap(), b"inside");
        assert_eq!(root.read("sub/../sub/a.pdf", 100).unwrap(), b"inside");
        let abs = root_dir.join("sub/a.pdf");
        assert_eq!(root.read(abs.to_str().unwrap(), 100).unwrap(), b"inside");
    }

    #[test]
    fn refuses_dotdot_absolute_and_missing_outside() {
        let (d, root, _) = setup();
        for p in [
            "../secret.pdf",
            "sub/../../secret.pdf",
            "../nope.pdf",
            "/etc/passwd",
        ] {
            assert!(
                matches!(root.read(p, 100), Err(ConfineError::OutsideRoot)),
                "{p}"
            );
        }
        let abs = d.path().join("secret.pdf");
        assert!(matches!(
            root.read(abs.to_str().unwrap(), 100),
            Err(ConfineError::OutsideRoot)
        ));
        assert!(matches!(
            root.read("nope.pdf", 100),
            Err(ConfineError::NotFound)
        ));
    }

    #[cfg(unix)]
    #[test]
    fn refuses_symlinks_leaving_the_root() {
        let (d, root, root_dir) = setup();
        std::os::unix::fs::symlink(d.path().join("secret.pdf"), root_dir.join("link.pdf")).unwrap();
        std::os::unix::fs::symlink(d.path(), root_dir.join("up")).unwrap();
        assert!(matches!(
            root.read("link.pdf", 100),
            Err(ConfineError::OutsideRoot)
        ));
        assert!(matches!(
            root.read("up/secret.pdf", 100),
            Err(ConfineError::OutsideRoot)
        ));
        // A symlink that stays inside is fine.
        std::os::unix::fs::symlink(root_dir.join("sub/a.pdf"), root_dir.join("in.pdf")).unwrap();
        assert_eq!(root.read("in.pdf", 100).unwrap(), b"inside");
    }

    #[cfg(unix)]
    #[test]
    fn refuses_a_swap_between_check_and_open() {
        let (d, root, root_dir) = setup();
        let resolved = root.resolve("sub/a.pdf").unwrap();
        // The attacker swaps the checked directory for a symlink to outside.
        std::fs::rename(root_dir.join("sub"), root_dir.join("old")).unwrap();
        std::fs::create_dir(d.path().join("evil")).unwrap();
        std::fs::write(d.path().join("evil/a.pdf"), b"outside").unwrap();
        std::os::unix::fs::symlink(d.path().join("evil"), root_dir.join("sub")).unwrap();
        assert!(matches!(
            root.open_verified(&resolved, 100),
            Err(ConfineError::OutsideRoot)
        ));
    }

    #[test]
    fn refuses_directories_and_oversized_files() {
        let (_d, root, _) = setup();
        assert!(matches!(root.read("sub", 100), Err(ConfineError::NotAFile)));
        assert!(matches!(
            root.read("sub/a.pdf", 3),
            Err(ConfineError::TooLarge { limit: 3 })
        ));
    }
}
