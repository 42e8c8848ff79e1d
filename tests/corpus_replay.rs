//! Every fuzz target from the one list in `toolgate::harness`
//! (`for_each_fuzz_target!`), under plain `cargo test` (stable, no nightly):
//!
//! * one test per target, named after it: it replays every checked-in seed in
//!   `corpus/<target>/` through the target's harness, then runs the same
//!   harness as a `bolero::check!()` target on random inputs (about one second;
//!   `BOLERO_RANDOM_ITERATIONS=N` or `BOLERO_RANDOM_TEST_TIME_MS=N` change it).
//!   `cargo +nightly bolero test <target> --features harness --test corpus_replay`
//!   runs it under libFuzzer instead;
//! * `targets_agree`: the list, `fuzz/fuzz_targets/*.rs`, the `[[bin]]`
//!   entries of `fuzz/Cargo.toml` and the `corpus/` directories name the same
//!   targets, and each cargo-fuzz target is the one line over its harness.
//!   With `TOOLGATE_BLESS=1` it writes the missing target files and `[[bin]]`
//!   entries instead of failing on them.
//!
//! Needs feature `harness` (`cargo test --all-features`); without it the file
//! is empty so `cargo clippy --all-targets` on default features still builds.
#![cfg(feature = "harness")]
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Files of `corpus/<target>/` (a README.md there is documentation).
fn seeds(target: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root().join("corpus").join(target)) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    files.sort();
    files
}

fn replay(target: &str, harness: fn(&[u8])) {
    let files = seeds(target);
    for path in &files {
        let data = std::fs::read(path).unwrap();
        eprintln!("replaying {}", path.display());
        harness(&data);
    }
    eprintln!("{target}: replayed {} corpus files", files.len());
}

macro_rules! target_tests {
    ($( $(#[$attr:meta])* $name:ident => $module:ident :: $func:ident ),* $(,)?) => {
        $(
            $(#[$attr])*
            #[test]
            fn $name() {
                // Under `cargo bolero` target selection this returns at once.
                let check = bolero::check!();
                replay(stringify!($name), toolgate::harness::$module::$func);
                check.for_each(|data: &[u8]| toolgate::harness::$module::$func(data));
            }
        )*

        /// Names of the generated tests, for `targets_agree`.
        const TESTED: &[&str] = &[$( $(#[$attr])* stringify!($name) ),*];
    };
}

toolgate::for_each_fuzz_target!(target_tests);

/// The cargo-fuzz target file for a harness: one line over it.
fn fuzz_target_source(harness: &str) -> String {
    format!(
        "#![no_main]\nlibfuzzer_sys::fuzz_target!(|data: &[u8]| toolgate::harness::{harness}(data));\n"
    )
}

fn fuzz_bin_entry(name: &str) -> String {
    format!(
        "\n[[bin]]\nname = \"{name}\"\npath = \"fuzz_targets/{name}.rs\"\ntest = false\ndoc = false\nbench = false\n"
    )
}

fn names_in(dir: &Path, ext: Option<&str>) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| match ext {
            Some(ext) => p.is_file() && p.extension().is_some_and(|e| e == ext),
            None => p.is_dir(),
        })
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect()
}

/// `name = "..."` of every `[[bin]]` in `fuzz/Cargo.toml`.
fn fuzz_bins(manifest: &str) -> BTreeSet<String> {
    let mut bins = BTreeSet::new();
    let mut in_bin = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if in_bin {
            if let Some(v) = line.strip_prefix("name = ") {
                bins.insert(v.trim_matches('"').to_owned());
            }
        }
    }
    bins
}

#[test]
fn targets_agree() {
    let bless = std::env::var_os("TOOLGATE_BLESS").is_some();
    let all = toolgate::harness::ALL_TARGETS;
    let listed: BTreeSet<String> = all.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(listed.len(), all.len(), "a target is listed twice");
    let mut problems = Vec::new();

    // The tests generated here are the compiled-in part of the list.
    let tested: Vec<&str> = TESTED.to_vec();
    assert_eq!(
        tested,
        toolgate::harness::TARGETS,
        "bolero tests and list disagree"
    );
    for t in toolgate::harness::TARGETS {
        assert!(toolgate::harness::run(t, b""), "run() does not know {t}");
    }
    assert!(!toolgate::harness::run("no_such_target", b""));

    // fuzz/fuzz_targets/<name>.rs: exactly the list, each one line over its harness.
    let dir = root().join("fuzz").join("fuzz_targets");
    let files = names_in(&dir, Some("rs"));
    for (name, harness) in all {
        let path = dir.join(format!("{name}.rs"));
        let want = fuzz_target_source(harness);
        match std::fs::read_to_string(&path) {
            Ok(have) if have == want => {}
            _ if bless => std::fs::write(&path, want).unwrap(),
            Ok(_) => problems.push(format!(
                "{} is not the one line over harness::{harness}",
                path.display()
            )),
            Err(_) => problems.push(format!("{} is missing", path.display())),
        }
    }
    for extra in files.difference(&listed) {
        problems.push(format!(
            "fuzz/fuzz_targets/{extra}.rs is not in for_each_fuzz_target!"
        ));
    }

    // fuzz/Cargo.toml: one [[bin]] per target.
    let manifest_path = root().join("fuzz").join("Cargo.toml");
    let mut manifest = std::fs::read_to_string(&manifest_path).unwrap();
    let bins = fuzz_bins(&manifest);
    for name in listed.difference(&bins) {
        if bless {
            manifest.push_str(&fuzz_bin_entry(name));
        } else {
            problems.push(format!("fuzz/Cargo.toml has no [[bin]] {name}"));
        }
    }
    if bless {
        std::fs::write(&manifest_path, &manifest).unwrap();
    }
    for extra in bins.difference(&listed) {
        problems.push(format!(
            "fuzz/Cargo.toml [[bin]] {extra} is not in for_each_fuzz_target!"
        ));
    }

    // corpus/<dir>: every seed directory belongs to a target (`pdf` holds
    // the PDF test documents, not seeds).
    for dir in names_in(&root().join("corpus"), None) {
        if dir != "pdf" && !listed.contains(&dir) {
            problems.push(format!("corpus/{dir}/ belongs to no fuzz target"));
        }
    }

    assert!(
        problems.is_empty(),
        "fuzz targets disagree (TOOLGATE_BLESS=1 writes missing files):\n{}",
        problems.join("\n")
    );
}
