#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: every cargo-fuzz target of toolgate into
# $OUT, each with its checked-in seeds as NAME_seed_corpus.zip.
#
# The builder image sets $SRC (sources), $OUT (binaries), $WORK (scratch),
# $SANITIZER (address, or coverage for coverage builds) and its own `cargo`
# wrapper, which adds the coverage flags when $SANITIZER is coverage. The
# target list is fuzz/fuzz_targets/*.rs, which the one list in
# src/harness/mod.rs generates (docs/fuzzing.md), so a new target needs no
# edit here.
#
# To run it outside the image (no docker engine), as docs/fuzzing.md shows:
#   SRC=/tmp/cfl/src OUT=/tmp/cfl/out WORK=/tmp/cfl/work SANITIZER=address \
#   FUZZING_ENGINE=libfuzzer ARCHITECTURE=x86_64 RUSTUP_TOOLCHAIN=nightly \
#   bash .clusterfuzzlite/build.sh
cd "$SRC/toolgate"

# cargo-fuzz builds with ASan by default; a coverage build gets its flags
# from the image's cargo wrapper, and `none` is a plain libFuzzer build.
san=()
case "${SANITIZER:-address}" in
  address|coverage) ;;
  none) san=(--sanitizer none) ;;
  *) echo "build.sh: sanitizer ${SANITIZER} is not supported for Rust" >&2; exit 1 ;;
esac

# -O: release (what fuzzing wants); --debug-assertions: overflow and debug
# checks stay on, as OSS-Fuzz recommends for Rust.
cargo fuzz build -O --debug-assertions "${san[@]}"

bin_dir=fuzz/target/x86_64-unknown-linux-gnu/release
built=0
for f in fuzz/fuzz_targets/*.rs; do
  name=$(basename "$f" .rs)
  cp "$bin_dir/$name" "$OUT/$name"
  if compgen -G "corpus/$name/*" >/dev/null; then
    # -j: flat (libFuzzer reads a flat corpus); README.md files are notes, not seeds.
    find "corpus/$name" -maxdepth 1 -type f ! -name README.md -print0 |
      xargs -0 zip -jq "$OUT/${name}_seed_corpus.zip"
  fi
  built=$((built + 1))
done
echo "build.sh: $built fuzz targets in $OUT"
