#!/usr/bin/env bash
# End-to-end check of `toolgate mcp` with the MCP Inspector CLI
# (npm @modelcontextprotocol/inspector-cli, pinned in tests/clients/package.json).
#
# Usage: bash tests/clients/inspector.sh PATH/TO/toolgate [--http]
#
# With --http the server runs as `toolgate mcp --root corpus/pdf --http 127.0.0.1:0` and the
# CLI connects to the URL it prints (`--transport http`).
#
# Lists the tools and calls `extract` and `get_metadata` on corpus PDFs, plus one refused
# path. The inspector exits 0 even for `isError: true` results, so every answer's JSON is
# checked here. Prints one line per check and a final `N passed, M failed`; exits 1 on failure.
set -uo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ] || { [ $# -eq 2 ] && [ "$2" != "--http" ]; }; then
  echo "usage: $0 PATH/TO/toolgate [--http]" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
root="$repo/corpus/pdf"

if [ ! -x "$here/node_modules/.bin/mcp-inspector-cli" ]; then
  (cd "$here" && npm install --no-audit --no-fund --silent) || { echo "npm install failed"; exit 1; }
fi
# The CLI reads its own version from ../package.json relative to the working directory, so
# it must run from a directory whose parent holds a package.json: node_modules/ here.
cd "$here/node_modules" || exit 1

target=("$bin" mcp --root "$root")
if [ "${2:-}" = "--http" ]; then
  errlog="$(mktemp)"
  "$bin" mcp --root "$root" --http 127.0.0.1:0 2>"$errlog" &
  server=$!
  trap 'kill $server 2>/dev/null; rm -f "$errlog"' EXIT
  for _ in $(seq 50); do
    grep -q "serving MCP at" "$errlog" && break
    sleep 0.1
  done
  url="$(sed -n 's/^toolgate mcp: serving MCP at //p' "$errlog" | head -n 1)"
  target=("$url" --transport http)
fi

passed=0
failed=0
# check NAME PYTHON-EXPRESSION-ON-r -- inspector args...
check() {
  local name="$1" expr="$2"
  shift 3
  local out
  out="$(timeout 60 ./.bin/mcp-inspector-cli --cli "${target[@]}" "$@" 2>/dev/null)"
  if printf '%s' "$out" | python3 -c "import json,sys; r=json.load(sys.stdin); sys.exit(0 if ($expr) else 1)" 2>/dev/null; then
    echo "ok   $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name: $(printf '%s' "$out" | head -c 400)"
    failed=$((failed + 1))
  fi
}

check "tools/list lists extract and get_metadata" \
  "sorted(t['name'] for t in r['tools']) == ['extract', 'get_metadata'] and all(t['inputSchema']['additionalProperties'] is False and t['annotations']['readOnlyHint'] is True for t in r['tools'])" \
  -- --method tools/list
check "tools/call extract (4-page PDF)" \
  "r.get('isError') is False and r['structuredContent']['pageCount'] == 4 and [p['page'] for p in r['structuredContent']['pages']] == [1, 2, 3, 4] and 'blind text' in r['structuredContent']['pages'][0]['text']" \
  -- --method tools/call --tool-name extract --tool-arg path=pypdf-pdflatex-4-pages.pdf
check "tools/call extract pages=2-3" \
  "r.get('isError') is False and [p['page'] for p in r['structuredContent']['pages']] == [2, 3]" \
  -- --method tools/call --tool-name extract --tool-arg path=pypdf-pdflatex-4-pages.pdf --tool-arg pages=2-3
check "tools/call get_metadata" \
  "r.get('isError') is False and r['structuredContent']['pageCount'] == 1 and r['structuredContent']['encrypted'] is False" \
  -- --method tools/call --tool-name get_metadata --tool-arg path=pypdf-minimal-document.pdf
check "tools/call extract outside the root is refused" \
  "r.get('isError') is True and json.loads(r['content'][0]['text'])['error']['kind'] == 'path.outside_root'" \
  -- --method tools/call --tool-name extract --tool-arg path=../../../etc/passwd

echo "$passed passed, $failed failed${2:+ (Streamable HTTP)}"
[ "$failed" -eq 0 ]
