//! The files the gateway trusts or keeps for the operator (`--audit`,
//! `--pin`): opened never through a symbolic link (`O_NOFOLLOW`), without
//! blocking (`O_NONBLOCK`: a FIFO at the path cannot hang the start), and
//! kept only when they are a regular file with one link, owned by the
//! gateway's user, in a directory that only that user (or root) can change:
//! owned by one of them, and writable by group or others only when sticky
//! (as `/tmp` is). Another name for the file, another owner, or another
//! user who could rename a file of their own over it, could read or change
//! what the gateway wrote or will trust.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

/// Opens `path` with `options` (no-follow and non-blocking added) and
/// checks what it is. `what` names the file in every message
/// (`"the audit file"`, `"the pin file"`).
///
/// # Errors
/// The open's own error (with a note when a symbolic link, a FIFO or a
/// device is why), or `InvalidInput` for a file that is not regular, has
/// more than one link, or belongs to another user, or for a directory
/// another user could change ([`check_directory`]).
pub(crate) fn open_owned(path: &Path, options: &mut OpenOptions, what: &str) -> io::Result<File> {
    check_directory(path, what)?;
    let file = options
        .custom_flags((rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32)
        .open(path)
        .map_err(|e| {
            // Said only when it is why: ELOOP is the no-follow refusal, ENXIO
            // a FIFO without a reader (non-blocking open for writing).
            let why = match e.raw_os_error() {
                Some(n) if n == rustix::io::Errno::LOOP.raw_os_error() => {
                    format!(" (a symbolic link at the path of {what} is refused)")
                }
                Some(n) if n == rustix::io::Errno::NXIO.raw_os_error() => {
                    format!(
                        " (a FIFO or device at the path of {what} is refused: not a regular file)"
                    )
                }
                _ => String::new(),
            };
            io::Error::new(e.kind(), format!("{e}{why}"))
        })?;
    let meta = file.metadata()?;
    let refuse = |why: String| Err(io::Error::new(io::ErrorKind::InvalidInput, why));
    if !meta.is_file() {
        return refuse(format!("{what} is not a regular file"));
    }
    if meta.nlink() > 1 {
        return refuse(format!(
            "{what} has {} hard links: another name could read or change it",
            meta.nlink()
        ));
    }
    if meta.uid() != rustix::process::geteuid().as_raw() {
        return refuse(format!(
            "{what} belongs to another user, who could read or change it"
        ));
    }
    Ok(file)
}

/// Checks the directory `path` is in (`.` for a bare name) and every
/// directory above it, as the kernel resolves them (symbolic links
/// followed): each owned by the gateway's user or root, and writable by
/// group or others only when sticky (where only a file's owner can rename
/// or remove it). Another user who can rename any directory on the way
/// could put one of their own in its place. Bounded by the number of
/// components of the directory's real path.
///
/// # Errors
/// The directory's own error (it does not exist), or `InvalidInput`
/// naming the directory, the one on the way that fails, and why.
fn check_directory(path: &Path, what: &str) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // A symbolic link on the way as written is another user's to point
    // elsewhere when they own it (in a sticky directory they may).
    let written = std::env::current_dir()?.join(dir);
    for step in written.ancestors() {
        let meta = std::fs::symlink_metadata(step)?;
        let uid = meta.uid();
        if meta.file_type().is_symlink() && uid != rustix::process::geteuid().as_raw() && uid != 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{what} is in {}, reached through {}, a symbolic link of another user: they could point it elsewhere",
                    dir.display(),
                    step.display()
                ),
            ));
        }
    }
    let real = std::fs::canonicalize(dir)?;
    for above in real.ancestors() {
        let meta = std::fs::metadata(above)?;
        let mode = meta.permissions().mode();
        let refuse = |why: String| {
            let on_the_way = if above == real {
                String::new()
            } else {
                format!(" under {}", above.display())
            };
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{what} is in {}{on_the_way}, {why}: they could put another file in its place",
                    dir.display()
                ),
            ))
        };
        if meta.uid() != rustix::process::geteuid().as_raw() && meta.uid() != 0 {
            return refuse("a directory of another user".into());
        }
        if mode & 0o022 != 0 && mode & 0o1000 == 0 {
            return refuse(format!(
                "a directory group or others can write (mode {:o}, not sticky)",
                mode & 0o7777
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &Path) -> io::Result<File> {
        open_owned(path, OpenOptions::new().read(true), "the test file")
    }

    #[test]
    fn only_a_regular_file_of_one_link() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("f");
        std::fs::write(&p, "x").unwrap();
        assert!(read(&p).is_ok());
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&p, &link).unwrap();
        let e = read(&link).unwrap_err().to_string();
        assert!(
            e.contains("(a symbolic link at the path of the test file is refused)"),
            "{e}"
        );
        let e = read(t.path()).unwrap_err().to_string();
        assert_eq!(e, "the test file is not a regular file");
        let hard = t.path().join("hard");
        std::fs::hard_link(&p, &hard).unwrap();
        let e = read(&p).unwrap_err().to_string();
        assert_eq!(
            e,
            "the test file has 2 hard links: another name could read or change it"
        );
        std::fs::remove_file(&hard).unwrap();
        assert!(read(&p).is_ok());
        let fifo = t.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        // Read-only opens of a FIFO do not block either; it is not regular.
        let e = read(&fifo).unwrap_err().to_string();
        assert_eq!(e, "the test file is not a regular file");
        let e = open_owned(&fifo, OpenOptions::new().append(true), "the test file")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("FIFO or device at the path of the test file"),
            "{e}"
        );
    }

    /// A directory another user can change is refused, whatever the file
    /// (#20 attack pass, D); sticky ones, as `/tmp`, are not.
    #[test]
    fn a_directory_others_can_change_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("f");
        std::fs::write(&p, "x").unwrap();
        for (mode, refused) in [
            (0o700, false),
            (0o755, false),
            (0o1777, false),
            (0o1770, false),
            (0o777, true),
            (0o770, true),
            (0o702, true),
            (0o720, true),
        ] {
            std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(mode)).unwrap();
            let r = read(&p);
            assert_eq!(r.is_err(), refused, "{mode:o}");
            if refused {
                let e = r.unwrap_err().to_string();
                assert!(e.contains(&format!("mode {mode:o}, not sticky")), "{e}");
                // A new file there is refused before it is made.
                let new = t.path().join("new");
                let e = open_owned(
                    &new,
                    OpenOptions::new().write(true).create_new(true),
                    "the test file",
                );
                assert!(e.is_err(), "{mode:o}");
                assert!(!new.exists(), "{mode:o}");
            }
        }
        std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        if rustix::process::geteuid().is_root() {
            std::os::unix::fs::chown(t.path(), Some(65534), None).unwrap();
            let e = read(&p).unwrap_err().to_string();
            assert!(e.contains("a directory of another user"), "{e}");
            std::os::unix::fs::chown(t.path(), Some(0), None).unwrap();
        }
        assert!(read(&p).is_ok());
        // A bare name is in the working directory (and what is above it).
        assert!(
            check_directory(Path::new("bare-name"), "the test file").is_ok()
                == std::fs::canonicalize(".").unwrap().ancestors().all(|d| {
                    let m = std::fs::metadata(d).unwrap();
                    let mode = m.permissions().mode();
                    (m.uid() == rustix::process::geteuid().as_raw() || m.uid() == 0)
                        && (mode & 0o022 == 0 || mode & 0o1000 != 0)
                })
        );
    }

    /// Every directory on the way counts, not only the parent (#20 attack
    /// pass, F6): `ww/sub/pin.json` with `ww` writable by all is refused.
    #[test]
    fn a_directory_above_others_can_change_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let sub = t.path().join("ww/sub");
        std::fs::create_dir_all(&sub).unwrap();
        let p = sub.join("f");
        std::fs::write(&p, "x").unwrap();
        let ww = t.path().join("ww");
        std::fs::set_permissions(&ww, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = read(&p).unwrap_err().to_string();
        assert!(e.contains("mode 777, not sticky"), "{e}");
        assert!(
            e.contains(&format!("under {}", ww.canonicalize().unwrap().display())),
            "{e}"
        );
        // Through a symbolic link: the directories it leads through count.
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&sub, &link).unwrap();
        assert!(read(&link.join("f")).is_err());
        std::fs::set_permissions(&ww, std::fs::Permissions::from_mode(0o1777)).unwrap();
        assert!(read(&p).is_ok());
        assert!(read(&link.join("f")).is_ok());
        std::fs::set_permissions(&ww, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(read(&p).is_ok());
        // A link on the way that another user owns (#20 re-attack, N6).
        if rustix::process::geteuid().is_root() {
            let theirs = t.path().join("theirs");
            std::os::unix::fs::symlink(&sub, &theirs).unwrap();
            rustix::fs::chownat(
                rustix::fs::CWD,
                &theirs,
                Some(rustix::process::Uid::from_raw(65534)),
                None,
                rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
            )
            .unwrap();
            let e = read(&theirs.join("f")).unwrap_err().to_string();
            assert!(e.contains("a symbolic link of another user"), "{e}");
        }
    }

    #[test]
    fn another_owner_is_refused() {
        // As root: a file given to `nobody`; otherwise root's /etc/passwd.
        let t = tempfile::tempdir().unwrap();
        let p = if rustix::process::geteuid().is_root() {
            let p = t.path().join("theirs");
            std::fs::write(&p, "x").unwrap();
            std::os::unix::fs::chown(&p, Some(65534), None).unwrap();
            p
        } else {
            std::path::PathBuf::from("/etc/passwd")
        };
        let e = read(&p).unwrap_err().to_string();
        assert_eq!(
            e,
            "the test file belongs to another user, who could read or change it"
        );
    }
}
