//! `/Perms` of revisions 5 and 6 of the Standard security handler (ISO
//! 32000-2 §7.6.4.4): lopdf refuses a file whose `/Perms` does not decrypt
//! to its own `/P` and `/EncryptMetadata` (Algorithm 13), as "incorrect
//! password"; poppler never reads `/Perms`. So when the password opens
//! the file (Algorithm 2.A), a `/Perms` that does not check out is written
//! anew from the file key (Algorithm 10), and lopdf reads the file as
//! poppler does.

use aes::cipher::{BlockModeDecrypt as _, BlockModeEncrypt as _, KeyInit as _, KeyIvInit as _};
use lopdf::{Dictionary, Object, StringFormat};
use sha2::{Digest as _, Sha256, Sha384, Sha512};

/// Longest password Algorithms 2.A and 2.B read, in bytes (ISO 32000-2
/// §7.6.4.3.3 step a): a longer one is cut.
pub const MAX_PASSWORD_BYTES: usize = 127;

/// Most rounds of Algorithm 2.B: it stops after round 64 as soon as the
/// last byte of `E` is at most `round - 32`, which a byte (≤ 255) is by
/// round 287.
pub const MAX_HASH_ROUNDS: u32 = 255 + 32;

/// Algorithm 2.B (revision 6; revision 5 is its first SHA-256 alone):
/// the 32-byte hash of `password`, `salt` and `udata` (the first 48 bytes
/// of `/U` for the owner password, empty for the user password).
fn hash(revision: i64, password: &[u8], salt: &[u8], udata: &[u8]) -> Option<[u8; 32]> {
    let mut k: Vec<u8> = Sha256::new()
        .chain_update(password)
        .chain_update(salt)
        .chain_update(udata)
        .finalize()
        .to_vec();
    if revision == 6 {
        for round in 1..=MAX_HASH_ROUNDS {
            let once = [password, &k, udata].concat();
            let mut e = once.repeat(64);
            let (key, iv) = (k.get(..16)?, k.get(16..32)?);
            let mut aes = cbc::Encryptor::<aes::Aes128>::new_from_slices(key, iv).ok()?;
            for block in e.as_chunks_mut::<16>().0 {
                aes.encrypt_block(block.into());
            }
            let sum: u32 = e.iter().take(16).map(|&b| u32::from(b)).sum();
            k = match sum % 3 {
                0 => Sha256::digest(&e).to_vec(),
                1 => Sha384::digest(&e).to_vec(),
                _ => Sha512::digest(&e).to_vec(),
            };
            let last = u32::from(e.last().copied().unwrap_or(0));
            if round >= 64 && last + 32 <= round {
                break;
            }
        }
    }
    k.get(..32)?.try_into().ok()
}

/// A string entry of `dict` as bytes.
fn bytes<'a>(dict: &'a Dictionary, key: &[u8]) -> Option<&'a [u8]> {
    match dict.get(key) {
        Ok(Object::String(s, _)) => Some(s),
        _ => None,
    }
}

/// Algorithm 2.A: the file key `password` opens, as the owner or the
/// user; `None` when it opens neither or an entry has not the size the
/// handler needs (`/O`, `/U` at least 48 bytes, `/OE`, `/UE` 32).
fn file_key(dict: &Dictionary, revision: i64, password: &[u8]) -> Option<[u8; 32]> {
    let password = password.get(..MAX_PASSWORD_BYTES).unwrap_or(password);
    let (o, u) = (bytes(dict, b"O")?.get(..48)?, bytes(dict, b"U")?.get(..48)?);
    let owner = hash(revision, password, o.get(32..40)?, u)? == o.get(..32)?;
    let (key, sealed) = if owner {
        (
            hash(revision, password, o.get(40..48)?, u)?,
            bytes(dict, b"OE")?,
        )
    } else if hash(revision, password, u.get(32..40)?, &[])? == u.get(..32)? {
        (
            hash(revision, password, u.get(40..48)?, &[])?,
            bytes(dict, b"UE")?,
        )
    } else {
        return None;
    };
    let mut file_key: [u8; 32] = sealed.try_into().ok()?;
    let mut aes = cbc::Decryptor::<aes::Aes256>::new_from_slices(&key, &[0; 16]).ok()?;
    for block in file_key.as_chunks_mut::<16>().0 {
        aes.decrypt_block(block.into());
    }
    Some(file_key)
}

/// What `/Perms` must decrypt to (Algorithm 10, without its 4 random
/// bytes): `/P` as 8 little-endian bytes, `T` or `F` for
/// `/EncryptMetadata`, `adb`.
fn perms_plain(dict: &Dictionary) -> Option<[u8; 12]> {
    let p = dict.get(b"P").ok()?.as_i64().ok()?;
    let encrypt_metadata = !matches!(dict.get(b"EncryptMetadata"), Ok(Object::Boolean(false)));
    let mut plain = [0u8; 12];
    let (head, tail) = plain.split_at_mut(8);
    head.copy_from_slice(&p.to_le_bytes());
    tail.copy_from_slice(if encrypt_metadata { b"Tadb" } else { b"Fadb" });
    Some(plain)
}

/// `dict` (a Standard-handler dictionary of revision 5 or 6) with its
/// `/Perms` written anew from the file key when `password` or the empty
/// password opens it and its `/Perms` does not decrypt to its own `/P`
/// and `/EncryptMetadata`; `None` when it does, or the password opens
/// nothing (lopdf then answers as it would), or the revision is another.
pub fn with_perms_as_read(dict: &Dictionary, password: Option<&str>) -> Option<Dictionary> {
    let revision = dict.get(b"R").ok()?.as_i64().ok()?;
    if !matches!(revision, 5 | 6) {
        return None;
    }
    // The empty password too, as the load falls back to it.
    let key = [password.unwrap_or(""), ""]
        .into_iter()
        .find_map(|password| {
            let password = stringprep::saslprep(password).ok()?;
            file_key(dict, revision, password.as_bytes())
        })?;
    let want = perms_plain(dict)?;
    let ecb = ecb::Decryptor::<aes::Aes256>::new_from_slice(&key).ok()?;
    let written: Option<[u8; 16]> = bytes(dict, b"Perms").and_then(|p| p.try_into().ok());
    if let Some(mut block) = written {
        ecb.clone().decrypt_block((&mut block).into());
        if block.get(..12) == Some(want.as_slice()) {
            return None;
        }
    }
    let mut block = [0u8; 16];
    block.get_mut(..12)?.copy_from_slice(&want);
    let mut aes = ecb::Encryptor::<aes::Aes256>::new_from_slice(&key).ok()?;
    aes.encrypt_block((&mut block).into());
    let mut fixed = dict.clone();
    fixed.set(
        "Perms",
        Object::String(block.to_vec(), StringFormat::Hexadecimal),
    );
    Some(fixed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdf::encryption::without_encrypt_key;
    use lopdf::Document;

    /// The `/Encrypt` dictionary of a corpus file, read without decrypting.
    fn dict_of(path: &str) -> Dictionary {
        let data =
            std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
        let doc = Document::load_mem(&without_encrypt_key(&data)).unwrap();
        let id = doc.trailer.get(b"NoCrypt").unwrap().as_reference().unwrap();
        doc.get_dictionary(id).unwrap().clone()
    }

    /// Exact oracle: `/U` and `/O` hold Algorithm 2.B's hash of the right
    /// password; any error in the hash matches neither.
    #[test]
    fn the_file_key_needs_the_right_password() {
        let user = dict_of("corpus/pdf/qpdf-enc-R6V5-U-view.pdf");
        assert!(file_key(&user, 6, b"view").is_some());
        assert!(file_key(&user, 6, b"").is_none());
        assert!(file_key(&user, 6, b"View").is_none());
        let owner = dict_of("corpus/pdf/qpdf-enc-R6V5-O-master.pdf");
        assert!(file_key(&owner, 6, b"master").is_some());
        assert!(file_key(&owner, 6, b"maste").is_none());
        // Revision 5 is the first SHA-256 alone: the R6 hash matches nothing.
        assert!(file_key(&user, 5, b"view").is_none());
        let r5 = dict_of("corpus/pdf_extract/enc-lenient-perms-r5.pdf");
        assert!(file_key(&r5, 5, b"").is_some());
        assert!(file_key(&r5, 6, b"").is_none());
    }

    /// Algorithm 2.B stops after round 64 once the last byte of `E` (at
    /// most 255) is at most `round - 32`: the bound is the first round
    /// where that must hold, so it never cuts a real hash short.
    #[test]
    fn the_round_bound_is_where_the_hash_must_stop() {
        assert_eq!(MAX_HASH_ROUNDS, u32::from(u8::MAX) + 32);
    }

    /// A `/Perms` that checks out is kept; one that does not is written
    /// anew, and then checks out (no second rewrite).
    #[test]
    fn perms_are_rewritten_only_when_wrong() {
        let good = dict_of("corpus/pdf/qpdf-enc-R6V5-U-view.pdf");
        assert!(with_perms_as_read(&good, Some("view")).is_none());
        assert!(with_perms_as_read(&good, Some("wrong")).is_none());
        for (name, password) in [
            ("corpus/pdf_extract/enc-lenient-perms-r6.pdf", None),
            ("corpus/pdf_extract/enc-lenient-p-r6.pdf", Some("wrong")),
            ("corpus/pdf_extract/enc-lenient-em-false-r6.pdf", None),
            ("corpus/pdf_extract/enc-lenient-p-r5.pdf", None),
        ] {
            let bad = dict_of(name);
            let fixed = with_perms_as_read(&bad, password).unwrap_or_else(|| panic!("{name}"));
            assert_ne!(fixed.get(b"Perms").unwrap(), bad.get(b"Perms").unwrap());
            assert!(with_perms_as_read(&fixed, password).is_none(), "{name}");
        }
        let mut other = good.clone();
        other.set("R", 4);
        assert!(with_perms_as_read(&other, Some("view")).is_none());
    }
}
