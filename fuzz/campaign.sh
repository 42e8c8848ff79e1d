#!/usr/bin/env bash
# A fuzz campaign anyone can repeat: fuzz/campaign.sh TARGET... [--minutes N]
#
# For each target, in turn: run it for N minutes (default 5) with a scratch
# corpus first (libFuzzer writes only into the first directory, so the
# checked-in corpus/<target>/ stays clean) and corpus/<target>/ as seeds;
# then `cargo fuzz cmin` over the checked-in seeds plus the scratch finds,
# and copy into corpus/<target>/ only the inputs the minimized set kept that
# are not there yet (named by their SHA-1, as libFuzzer names them; the
# checked-in seeds, regressions included, are never removed or renamed).
# Prints one Markdown table row per target: runs, execs/s, coverage
# (libFuzzer's edge count `cov` and feature count `ft`), corpus size after
# the merge, new inputs kept, crashes (artifacts written, in
# fuzz/artifacts/<target>/).
#
# ASan on nightly when `rustup toolchain list` shows one, else stable with
# `--sanitizer none` (our code is safe Rust: ASan mostly guards libFuzzer
# and C dependencies). Run it nice'd on a shared machine:
#   nice -n 10 fuzz/campaign.sh parse_tool_call classify_url --minutes 20
# `all` as the only target runs every target of fuzz/fuzz_targets/.
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=5
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --minutes=*) minutes="${1#--minutes=}"; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    -*) echo "campaign.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "usage: fuzz/campaign.sh TARGET... [--minutes N]   (TARGET: a file stem of fuzz/fuzz_targets/, or all)" >&2
  exit 2
fi
if [ "${targets[*]}" = all ]; then
  targets=()
  for f in fuzz/fuzz_targets/*.rs; do targets+=("$(basename "$f" .rs)"); done
fi
for t in "${targets[@]}"; do
  [ -f "fuzz/fuzz_targets/$t.rs" ] || { echo "campaign.sh: no fuzz target $t" >&2; exit 2; }
done
case "$minutes" in ''|*[!0-9]*) echo "campaign.sh: --minutes takes a whole number" >&2; exit 2 ;; esac

if rustup toolchain list | grep -q '^nightly'; then
  fuzz=(cargo +nightly fuzz) san=() mode="ASan, nightly"
else
  fuzz=(cargo +stable fuzz) san=(--sanitizer none) mode="no sanitizer, stable"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rows=()
for t in "${targets[@]}"; do
  scratch="$work/$t-scratch" stage="$work/$t-stage" log="$work/$t.log"
  artifacts="fuzz/artifacts/$t"
  mkdir -p "$scratch" "$stage" "$artifacts" "corpus/$t"
  before=$(find "$artifacts" -type f | wc -l)
  echo "== $t: $minutes min ($mode)" >&2
  status=0
  "${fuzz[@]}" run -a "${san[@]}" "$t" "$scratch" "corpus/$t" -- \
    -max_total_time=$((minutes * 60)) -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1 || status=$?
  tail -n 4 "$log" >&2
  crashes=$(( $(find "$artifacts" -type f | wc -l) - before ))
  [ "$status" -ne 0 ] && [ "$crashes" -eq 0 ] && { echo "campaign.sh: $t failed (exit $status), see above" >&2; tail -n 30 "$log" >&2; exit 1; }
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  last=$(grep -E '^#[0-9]+' "$log" | grep ' cov: ' | tail -n 1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")

  # Minimize seeds + finds together, then keep what is new.
  find "corpus/$t" -maxdepth 1 -type f ! -name README.md -exec cp {} "$stage/" \;
  cp "$scratch"/* "$stage/" 2>/dev/null || true
  "${fuzz[@]}" cmin -a "${san[@]}" "$t" "$stage" >"$work/$t.cmin.log" 2>&1 ||
    { echo "campaign.sh: cmin of $t failed" >&2; tail -n 20 "$work/$t.cmin.log" >&2; exit 1; }
  declare -A have=()
  while read -r h _; do have[$h]=1; done < <(find "corpus/$t" -maxdepth 1 -type f -exec sha1sum {} +)
  added=0
  for f in "$stage"/*; do
    [ -f "$f" ] || continue
    h=$(sha1sum "$f" | cut -d' ' -f1)
    if [ -z "${have[$h]:-}" ]; then
      cp "$f" "corpus/$t/$h"
      have[$h]=1
      added=$((added + 1))
    fi
  done
  unset have
  size=$(find "corpus/$t" -maxdepth 1 -type f ! -name README.md | wc -l)
  rows+=("| $t | $minutes | ${runs:-?} | ${eps:-?} | ${cov:-?} | ${ft:-?} | $size | $added | $crashes |")
done

echo
echo "Campaign $(date -u +%Y-%m-%d), $(nproc) cores, $mode:"
echo
echo "| target | minutes | runs | execs/s | cov (edges) | ft (features) | corpus files | new kept | crashes |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
