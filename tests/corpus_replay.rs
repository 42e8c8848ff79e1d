//! Replays every checked-in fuzz seed under plain `cargo test` (stable, no
//! nightly), through the same harness the fuzz targets use.
//! Needs feature `harness` (`cargo test --all-features`); without it the file
//! is empty so `cargo clippy --all-targets` on default features still builds.
#![cfg(feature = "harness")]
use std::path::Path;

#[test]
fn every_corpus_file_passes_its_harness() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut replayed = 0usize;
    for target in toolgate::harness::TARGETS {
        let dir = root.join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        files.sort();
        for path in files {
            if !path.is_file() || path.file_name().is_some_and(|n| n == "README.md") {
                continue;
            }
            let data = std::fs::read(&path).unwrap();
            assert!(
                toolgate::harness::run(target, &data),
                "unknown target {target}"
            );
            replayed += 1;
        }
    }
    eprintln!("replayed {replayed} corpus files");
}
