//! The whole real-file corpus (`corpus/pdf/`) through the isolated extractor,
//! as the server runs it: no panic, no unexpected error, page counts and
//! metadata equal to poppler's `pdfinfo` (`expected/*.info`), encrypted flags.
#![cfg(feature = "cli")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use toolgate::pdf::worker::{extract_isolated_with_stats, metadata_isolated_with_stats};
use toolgate::pdf::{Isolation, Metadata, Options, PdfError, Source};

/// Files whose user password is not empty (from corpus/pdf/README.md).
const PASSWORDS: &[(&str, &str)] = &[
    ("pypdf-libreoffice-password", "openpassword"),
    ("qpdf-enc-R2V1-U-view", "view"),
    ("qpdf-enc-R6V5-U-view", "view"),
    ("qpdf-20-pages", "user"),
];

/// Where we knowingly differ from pdfinfo, and why.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/pdf")
}

fn isolation() -> Isolation {
    // Generous: tests run the unoptimised binary on a shared machine.
    Isolation {
        timeout: std::time::Duration::from_secs(120),
        ..Isolation::new(env!("CARGO_BIN_EXE_toolgate"))
    }
}

fn pdfinfo(name: &str) -> BTreeMap<String, String> {
    let text = std::fs::read(corpus().join("expected").join(format!("{name}.info"))).unwrap();
    String::from_utf8_lossy(&text)
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect()
}

fn files() -> Vec<(String, PathBuf)> {
    let mut v: Vec<_> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    v.sort();
    v
}

fn options_for(name: &str) -> Options {
    Options {
        password: PASSWORDS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, p)| p.to_string()),
        ..Options::default()
    }
}

/// Compares one metadata field with pdfinfo's line; an absent line means the
/// field is absent or blank.
fn same(ours: &Option<String>, theirs: Option<&String>) -> bool {
    let ours = ours.as_deref().map(str::trim).unwrap_or("");
    let theirs = theirs.map(|s| s.trim()).unwrap_or("");
    ours == theirs
}

/// A PDF date (§7.9.4, `D:YYYYMMDDHHmmSSOHH'mm`) as pdfinfo prints it: in
/// UTC, C locale `%c` plus ` UTC`. Poppler's reading: missing fields default
/// to the start of their range, and an offset after `Z` is still applied.
fn pdfinfo_date(raw: &str) -> Option<String> {
    let s = raw.trim().strip_prefix("D:").unwrap_or(raw.trim());
    let num = |from: usize, len: usize, default: i64| -> Option<i64> {
        match s.get(from..from + len) {
            Some(d) if d.bytes().all(|b| b.is_ascii_digit()) => d.parse().ok(),
            _ if s.len() <= from => Some(default),
            _ => Some(default),
        }
    };
    let year = s.get(0..4)?.parse::<i64>().ok()?;
    let (mo, d, h, mi, sec) = (
        num(4, 2, 1)?,
        num(6, 2, 1)?,
        num(8, 2, 0)?,
        num(10, 2, 0)?,
        num(12, 2, 0)?,
    );
    let tz = s.get(14..).unwrap_or("");
    let (sign, rest) = match tz.chars().next() {
        Some('+') | Some('Z') => (1, tz.get(1..).unwrap_or("")),
        Some('-') => (-1, tz.get(1..).unwrap_or("")),
        _ => (0, ""),
    };
    let digits: String = rest.chars().filter(|c| c.is_ascii_digit()).collect();
    let tzh: i64 = digits.get(0..2).and_then(|x| x.parse().ok()).unwrap_or(0);
    let tzm: i64 = digits.get(2..4).and_then(|x| x.parse().ok()).unwrap_or(0);
    // Days from 1970-01-01 (proleptic Gregorian), Howard Hinnant's algorithm.
    let days_from_civil = |y: i64, m: i64, d: i64| {
        let y = if m <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146097 + doe - 719468
    };
    let t = days_from_civil(year, mo, d) * 86400 + h * 3600 + mi * 60 + sec
        - sign * (tzh * 3600 + tzm * 60);
    let (days, secs) = (t.div_euclid(86400), t.rem_euclid(86400));
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
    const WD: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MO: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    Some(format!(
        "{} {} {:>2} {:02}:{:02}:{:02} {} UTC",
        WD[days.rem_euclid(7) as usize],
        MO[(month - 1) as usize],
        day,
        secs / 3600,
        secs % 3600 / 60,
        secs % 60,
        year
    ))
}

#[test]
fn pdf_dates_convert_as_pdfinfo_prints_them() {
    assert_eq!(
        pdfinfo_date("D:20031010180432-03'00'").as_deref(),
        Some("Fri Oct 10 21:04:32 2003 UTC")
    );
    assert_eq!(
        pdfinfo_date("D:20230410074654Z07'46'").as_deref(),
        Some("Mon Apr 10 00:00:54 2023 UTC")
    );
    assert_eq!(
        pdfinfo_date("D:20260303075300Z").as_deref(),
        Some("Tue Mar  3 07:53:00 2026 UTC")
    );
}

fn check_metadata(name: &str, m: &Metadata, info: &BTreeMap<String, String>) -> Vec<String> {
    let mut bad = Vec::new();
    let pages = info.get("Pages").cloned().unwrap_or_default();
    if m.page_count.to_string() != pages {
        bad.push(format!("{name}: pages {} vs pdfinfo {pages}", m.page_count));
    }
    let enc = info
        .get("Encrypted")
        .map(|e| e.starts_with("yes"))
        .unwrap_or(false);
    if m.encrypted != enc {
        bad.push(format!(
            "{name}: encrypted {} vs pdfinfo {enc}",
            m.encrypted
        ));
    }
    if let (true, Some(alg)) = (
        enc,
        info.get("Encrypted")
            .and_then(|e| e.split("algorithm:").nth(1)),
    ) {
        let alg = alg.trim_end_matches(')').trim();
        let ours = m
            .encryption
            .as_ref()
            .and_then(|e| e.algorithm.as_deref())
            .unwrap_or("?");
        if ours != alg {
            bad.push(format!("{name}: algorithm {ours} vs pdfinfo {alg}"));
        }
    }
    if Some(&m.pdf_version) != info.get("PDF version") {
        bad.push(format!(
            "{name}: version {} vs pdfinfo {:?}",
            m.pdf_version,
            info.get("PDF version")
        ));
    }
    for (field, ours) in [
        (
            "CreationDate",
            &m.creation_date.as_deref().and_then(pdfinfo_date),
        ),
        (
            "ModDate",
            &m.modification_date.as_deref().and_then(pdfinfo_date),
        ),
    ] {
        if !same(ours, info.get(field)) {
            bad.push(format!(
                "{name}: {field} {ours:?} vs pdfinfo {:?}",
                info.get(field)
            ));
        }
    }
    for (field, ours) in [
        ("Title", &m.title),
        ("Author", &m.author),
        ("Subject", &m.subject),
        ("Keywords", &m.keywords),
        ("Creator", &m.creator),
        ("Producer", &m.producer),
    ] {
        if !same(ours, info.get(field)) {
            bad.push(format!(
                "{name}: {field} {ours:?} vs pdfinfo {:?}",
                info.get(field)
            ));
        }
    }
    bad
}

#[test]
fn corpus_metadata_and_extraction_match_pdfinfo() {
    let iso = isolation();
    let mut problems = Vec::new();
    let mut checked = 0;
    eprintln!(
        "{:<30} {:>6} {:>8} {:>9}  outcome",
        "file", "pages", "ms", "rss KiB"
    );
    for (name, path) in files() {
        let known = KNOWN_DIFFERENCES.iter().any(|(n, _)| *n == name);
        let info = pdfinfo(&name);
        let options = options_for(&name);
        let (meta, mstats) = metadata_isolated_with_stats(Source::Path(&path), &options, &iso);
        let (extraction, xstats) =
            extract_isolated_with_stats(Source::Path(&path), None, &options, &iso);
        let outcome = match (&meta, &extraction) {
            (Ok(m), Ok(x)) => {
                if m.page_count != x.page_count || x.pages.len() != x.page_count as usize {
                    problems.push(format!(
                        "{name}: extraction pages {} of {}",
                        x.pages.len(),
                        x.page_count
                    ));
                }
                let bad = check_metadata(&name, m, &info);
                if !known {
                    problems.extend(bad.iter().cloned());
                }
                if bad.is_empty() {
                    "ok".to_string()
                } else {
                    format!("differs: {}", bad.join("; "))
                }
            }
            (Err(e), _) | (_, Err(e)) => {
                if !known {
                    problems.push(format!("{name}: unexpected error {e}"));
                }
                format!("error {}", e.kind())
            }
        };
        eprintln!(
            "{name:<30} {:>6} {:>8.1} {:>9}  {outcome}",
            meta.as_ref()
                .map(|m| m.page_count.to_string())
                .unwrap_or("-".into()),
            (mstats.elapsed_us + xstats.elapsed_us) as f64 / 1000.0,
            xstats
                .max_rss_kib
                .max(mstats.max_rss_kib)
                .map_or("-".into(), |r| r.to_string()),
        );
        checked += 1;
    }
    assert_eq!(checked, 48, "the corpus has 48 PDFs");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn password_files_need_their_password() {
    let iso = isolation();
    for (name, _) in PASSWORDS {
        let path = corpus().join(format!("{name}.pdf"));
        let none = toolgate::pdf::metadata_isolated(Source::Path(&path), &Options::default(), &iso);
        assert_eq!(
            none.unwrap_err(),
            PdfError::PasswordRequired { incorrect: false },
            "{name}"
        );
        let wrong = Options {
            password: Some("not-the-password".into()),
            ..Options::default()
        };
        let wrong = toolgate::pdf::metadata_isolated(Source::Path(&path), &wrong, &iso);
        assert_eq!(
            wrong.unwrap_err(),
            PdfError::PasswordRequired { incorrect: true },
            "{name}"
        );
    }
}

#[test]
fn empty_password_files_open_and_report_encryption() {
    for name in ["qpdf-enc-R3V2", "qpdf-V4-aes", "qpdf-enc-R6V5-O-master"] {
        let path = corpus().join(format!("{name}.pdf"));
        let m = toolgate::pdf::metadata(Source::Path(&path)).unwrap();
        assert!(m.encrypted, "{name}");
        let e = m.encryption.unwrap();
        assert_eq!(e.handler, "Standard");
        assert!(e.key_bits.is_some(), "{name}");
        let x = toolgate::pdf::extract(Source::Path(&path), None).unwrap();
        assert_eq!(x.pages.len(), 30, "{name}");
    }
}
