#!/usr/bin/env bash
# Builds the rmcp baseline (benches/rmcp_echo, its own crate) and runs the
# `toolgate mcp` engine bench (benches/mcp_engine.rs). Prints one line per
# figure, each a ratio measured in the same run; docs/mcp.md keeps them.
set -euo pipefail
cd "$(dirname "$0")/.."
(cd benches/rmcp_echo && cargo build --release --quiet)
cargo bench --bench mcp_engine
