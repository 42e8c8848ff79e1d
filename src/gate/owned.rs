//! The files the gateway trusts or keeps for the operator (`--audit`,
//! `--pin`): opened never through a symbolic link (`O_NOFOLLOW`), without
//! blocking (`O_NONBLOCK`: a FIFO at the path cannot hang the start), and
//! kept only when they are a regular file with one link, owned by the
//! gateway's user. Another name for the file, or another owner, could read
//! or change what the gateway wrote or will trust.

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
/// more than one link, or belongs to another user.
pub(crate) fn open_owned(path: &Path, options: &mut OpenOptions, what: &str) -> io::Result<File> {
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
