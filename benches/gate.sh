#!/usr/bin/env bash
# Builds the rmcp baseline (benches/rmcp_echo, its own crate) and runs the
# gateway bench (benches/gate.rs): `toolgate gate` against the same server
# directly. Prints one line per figure, each a ratio measured in the same
# run; docs/gate.md keeps them.
set -euo pipefail
cd "$(dirname "$0")/.."
(cd benches/rmcp_echo && cargo build --release --quiet)
cargo bench --bench gate
