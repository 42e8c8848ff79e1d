#!/usr/bin/env bash
# Real MCP servers behind `toolgate gate`, driven by the MCP Inspector CLI
# (npm @modelcontextprotocol/inspector-cli, pinned in tests/clients/package.json).
#
# Usage: bash tests/clients/gate_inspector.sh PATH/TO/toolgate
#
# Run it where only loopback exists (CI: `unshare -rn sh -c 'ip link set lo up && bash ...'`):
# the fetch server fetches URLs itself, started with --allow-private-ips so the gateway is the
# only guard. Needs tests/clients/node_modules (npm install) and .venv with mcp-server-fetch.
#
# For each server (server-filesystem, server-everything, mcp-server-fetch, toolgate mcp), one
# Inspector CLI run per request, each a whole client session through
# `toolgate gate ... -- tests/servers/tap.py LOG SERVER`: tools/list (denied tools hidden), a
# call that succeeds, and refused calls (tool denied by name, path outside --root, URL to a
# special-purpose address, prompt argument), each answered with its stable code and its token
# absent from the tap's log (it never reached the server). After every run, no process of the
# session is left (each carries a marker in its environment, passed on with --env).
# The inspector exits 0 even for `isError: true` results, so every answer's JSON is checked.
# Prints one line per check and a final `N passed, M failed`; exits 1 on failure.
set -uo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 PATH/TO/toolgate" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
py="$repo/.venv/bin/python"
tap="$repo/tests/servers/tap.py"
nbin="$here/node_modules/.bin"
started=$SECONDS

for need in "$nbin/mcp-inspector-cli" "$nbin/mcp-server-filesystem" "$nbin/mcp-server-everything" "$py"; do
  [ -x "$need" ] || { echo "missing $need (npm install in tests/clients; .venv with mcp-server-fetch)"; exit 1; }
done
if ! "$py" -c 'import os, readabilipy; assert os.path.isdir(os.path.join(os.path.dirname(readabilipy.__file__), "javascript", "node_modules"))' 2>/dev/null; then
  echo "readabilipy's Readability.js is not installed (mcp-server-fetch would run npm install and hang here):"
  echo "  .venv/bin/python -c 'from readabilipy.simple_json import have_node; have_node()'  (with the network)"
  exit 1
fi
if "$py" -c 'import socket,sys; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.connect(("192.0.2.1", 9))' 2>/dev/null; then
  echo "a non-loopback route exists: run this under unshare -rn (see the header)"
  exit 1
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/toolgate-gate-inspector-XXXXXX")"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

passed=0
failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

# gateway NAME POLICY-TOML GATE-FLAGS... -- SERVER...: writes $work/NAME/gate.sh, the command
# the inspector starts (the gateway in front of the tap in front of the server).
gateway() {
  local name="$1" policy="$2"
  shift 2
  local dir="$work/$name"
  mkdir -p "$dir"
  printf '%s' "$policy" >"$dir/policy.toml"
  local flags=() arg
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do flags+=("$1"); shift; done
  shift
  {
    echo '#!/bin/sh'
    echo "TOOLGATE_TEST_MARK='$dir'; export TOOLGATE_TEST_MARK"
    printf 'exec %q gate --policy %q --audit %q --env TOOLGATE_TEST_MARK' "$bin" "$dir/policy.toml" "$dir/audit.jsonl"
    for arg in "${flags[@]}"; do printf ' %q' "$arg"; done
    printf ' -- %q %q %q' "$py" "$tap" "$dir/tap.log"
    for arg in "$@"; do printf ' %q' "$arg"; done
    echo
  } >"$dir/gate.sh"
  chmod +x "$dir/gate.sh"
}

# Processes still carrying the session's marker (the gateway, the tap, the server, its children).
leftovers() {
  grep -lsF "TOOLGATE_TEST_MARK=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | tr '\n' ' '
}

# run SERVER NAME PYTHON-EXPR-ON-r [TOKEN] -- inspector args...
# TOKEN, when given and not "-", must not reach the server (the refused request's marker).
run() {
  local server="$1" name="$2" expr="$3" token="$4"
  shift 5
  local dir="$work/$server" out t0
  t0=$SECONDS
  out="$(cd "$here/node_modules" && timeout 90 ./.bin/mcp-inspector-cli --cli "$dir/gate.sh" "$@" 2>/dev/null)"
  if printf '%s' "$out" | python3 -c "import json,sys; r=json.load(sys.stdin); sys.exit(0 if ($expr) else 1)" 2>/dev/null; then
    ok "$server: $name"
  else
    fail "$server: $name" "$(printf '%s' "$out" | head -c 400)"
  fi
  if [ "$token" != "-" ]; then
    if grep -qF -- "$token" "$dir/tap.log" 2>/dev/null; then
      fail "$server: $name: never reached the server" "token $token in the tap log"
    else
      ok "$server: $name: never reached the server"
    fi
  fi
  # The inspector is gone; its gateway ends within its bound (8 s) and takes the server along.
  local left i c0
  c0=$(date +%s%N)
  for i in $(seq 1 80); do
    left="$(leftovers "$dir")"
    [ -z "$left" ] && break
    sleep 0.1
  done
  if [ -z "$left" ]; then
    ok "$server: $name: clean shutdown (session $((SECONDS - t0)) s, all gone $((($(date +%s%N) - c0) / 1000000)) ms after the client)"
  else
    fail "$server: $name: clean shutdown" "left after 8 s: $left"
  fi
}
refused() { printf "r.get('isError') is True and r['content'][0]['text'].startswith('refused by toolgate gate: %s:')" "$1"; }

# A loopback origin (allowed by policy) and the "internal" 127.0.0.2 on the same port.
mkdir -p "$work/www" "$work/internal"
echo '<html><body><h1>toolgate origin</h1><p>inspector-marker</p></body></html>' >"$work/www/page.html"
port="$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$py" -m http.server --bind 127.0.0.1 --directory "$work/www" "$port" >/dev/null 2>"$work/origin.log" &
pids+=($!)
"$py" -m http.server --bind 127.0.0.2 --directory "$work/internal" "$port" >/dev/null 2>"$work/internal.log" &
pids+=($!)
for i in $(seq 1 50); do
  "$py" -c "import socket; socket.create_connection(('127.0.0.1', $port), 1).close(); socket.create_connection(('127.0.0.2', $port), 1).close()" 2>/dev/null && break
  sleep 0.1
done
: >"$work/internal.log" # the readiness probe above is the only connection it may have had

# ---- @modelcontextprotocol/server-filesystem
fsroot="$work/fs/root"
outside="$work/fs/outside"
mkdir -p "$fsroot" "$outside"
echo "hello from the root" >"$fsroot/hello.txt"
echo "outside" >"$outside/secret-abs.txt"
echo "outside" >"$outside/secret-link.txt"
ln -s "$outside" "$fsroot/escape"
gateway filesystem $'[tools]\ndeny = ["move_file"]\n' --root "$fsroot" -- "$nbin/mcp-server-filesystem" "$fsroot"
run filesystem "tools/list: read_text_file shown, move_file (denied) hidden" \
  "'read_text_file' in [t['name'] for t in r['tools']] and 'move_file' not in [t['name'] for t in r['tools']]" - \
  -- --method tools/list
run filesystem "read_text_file in the root" \
  "r.get('isError') is not True and 'hello from the root' in r['content'][0]['text']" - \
  -- --method tools/call --tool-name read_text_file --tool-arg "path=$fsroot/hello.txt"
run filesystem "refused: move_file (denied tool) -> policy.tool_denied" "$(refused policy.tool_denied)" moved-tok \
  -- --method tools/call --tool-name move_file --tool-arg "source=$fsroot/hello.txt" --tool-arg "destination=$fsroot/moved-tok.txt"
run filesystem "refused: absolute path outside --root -> path.outside_root" "$(refused path.outside_root)" secret-abs \
  -- --method tools/call --tool-name read_text_file --tool-arg "path=$outside/secret-abs.txt"
run filesystem "refused: symbolic link out of --root -> path.outside_root" "$(refused path.outside_root)" secret-link \
  -- --method tools/call --tool-name read_text_file --tool-arg "path=$fsroot/escape/secret-link.txt"

# ---- @modelcontextprotocol/server-everything
gateway everything $'[tools]\ndeny = ["toggle-*"]\n' -- "$nbin/mcp-server-everything"
run everything "tools/list: echo shown, toggle-* (denied) hidden" \
  "'echo' in [t['name'] for t in r['tools']] and not any(t['name'].startswith('toggle-') for t in r['tools'])" - \
  -- --method tools/list
run everything "echo" "r.get('isError') is not True and r['content'][0]['text'] == 'Echo: hello-inspector'" - \
  -- --method tools/call --tool-name echo --tool-arg message=hello-inspector
run everything "refused: toggle-simulated-logging (denied by glob) -> policy.tool_denied" "$(refused policy.tool_denied)" - \
  -- --method tools/call --tool-name toggle-simulated-logging
run everything "refused: gzip-file-as-resource of 127.0.0.2 -> ssrf.loopback" "$(refused ssrf.loopback)" gz-int-tok \
  -- --method tools/call --tool-name gzip-file-as-resource --tool-arg name=x.gz --tool-arg "data=http://127.0.0.2:$port/gz-int-tok"
run everything "refused: echo of the cloud metadata URL -> ssrf.cloud_metadata" "$(refused ssrf.cloud_metadata)" echo-md-tok \
  -- --method tools/call --tool-name echo --tool-arg "message=http://169.254.169.254/echo-md-tok"

# ---- mcp-server-fetch (PyPI), its own private-address guard off
gateway fetch "[net]
allow = [\"127.0.0.1:$port\"]
" -- "$py" -m mcp_server_fetch --ignore-robots-txt --allow-private-ips
run fetch "tools/list: fetch" "[t['name'] for t in r['tools']] == ['fetch']" - -- --method tools/list
run fetch "fetch from the allowed origin (127.0.0.1:PORT in [net] allow)" \
  "r.get('isError') is not True and 'inspector-marker' in r['content'][0]['text']" - \
  -- --method tools/call --tool-name fetch --tool-arg "url=http://127.0.0.1:$port/page.html"
run fetch "refused: 127.0.0.2 (internal) -> ssrf.loopback" "$(refused ssrf.loopback)" fetch-int-tok \
  -- --method tools/call --tool-name fetch --tool-arg "url=http://127.0.0.2:$port/fetch-int-tok"
run fetch "refused: the cloud metadata address -> ssrf.cloud_metadata" "$(refused ssrf.cloud_metadata)" fetch-md-tok \
  -- --method tools/call --tool-name fetch --tool-arg "url=http://169.254.169.254/latest/fetch-md-tok"
run fetch "refused: localhost by name -> ssrf.localhost_name" "$(refused ssrf.localhost_name)" fetch-name-tok \
  -- --method tools/call --tool-name fetch --tool-arg "url=http://localhost:$port/fetch-name-tok"
if grep -q "page.html" "$work/origin.log"; then ok "fetch: the allowed origin was fetched"; else fail "fetch: the allowed origin was fetched" "$(cat "$work/origin.log")"; fi
if [ -s "$work/internal.log" ]; then fail "fetch: 127.0.0.2 received no request" "$(cat "$work/internal.log")"; else ok "fetch: 127.0.0.2 received no request"; fi

# ---- toolgate mcp
pdf="$repo/corpus/pdf"
gateway toolgate $'[tools]\ndeny = ["get_metadata"]\n[paths]\nrelative = "each_root"\n' --root "$pdf" -- "$bin" mcp --root "$pdf"
run toolgate "tools/list: extract shown, get_metadata (denied) hidden" "[t['name'] for t in r['tools']] == ['extract']" - \
  -- --method tools/list
run toolgate "extract pages 2-3" \
  "r.get('isError') is False and [p['page'] for p in r['structuredContent']['pages']] == [2, 3]" - \
  -- --method tools/call --tool-name extract --tool-arg path=pypdf-pdflatex-4-pages.pdf --tool-arg pages=2-3
run toolgate "refused: get_metadata (denied tool) -> policy.tool_denied" "$(refused policy.tool_denied)" meta-tok \
  -- --method tools/call --tool-name get_metadata --tool-arg path=meta-tok.pdf
run toolgate "refused: ../ out of --root, at the gateway -> path.outside_root" "$(refused path.outside_root)" dotdot-tok \
  -- --method tools/call --tool-name extract --tool-arg path=../../../etc/dotdot-tok

echo "$passed passed, $failed failed ($((SECONDS - started)) s)"
[ "$failed" -eq 0 ]
