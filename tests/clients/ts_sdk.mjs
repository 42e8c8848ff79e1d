#!/usr/bin/env node
// End-to-end check of `toolgate mcp` with the official MCP TypeScript SDK
// (npm @modelcontextprotocol/sdk, pinned in tests/clients/package.json): its `Client` over
// `StdioClientTransport`, or with --http over `StreamableHTTPClientTransport`.
//
// Usage: node tests/clients/ts_sdk.mjs PATH/TO/toolgate [--http]
//
// Over stdio each client launches `toolgate mcp --root corpus/pdf`; with --http one server runs
// as `toolgate mcp --root corpus/pdf --http 127.0.0.1:0` and every client connects to the URL
// its first stderr line names. Checks: the initialize handshake (negotiated revision,
// serverInfo), tools/list, extract with exact text, get_metadata, a path outside the root
// (isError, `path.outside_root`), progress notifications for a 117-page PDF (heard before the
// result, in order, nothing after it), a call cancelled through an AbortSignal (the session
// goes on), two clients at once each getting their own answers, and a clean end (HTTP: the
// session terminated with DELETE, then refused; stdio: the server exits when its stdin closes).
//
// Plain ESM for Node 20 or newer, no build step. Prints one line per check and a final
// `N passed, M failed`; exits 1 if any check failed.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');
const ROOT = resolve(REPO, 'corpus', 'pdf');
const SDK_VERSION = '1.32.2';
const NEGOTIATED = '2025-11-25';
// A multi-page PDF that takes the extractor long enough to report progress several times.
const BIG = { path: 'pypdf-geotopo-compressed.pdf', pages: 117 };

const args = process.argv.slice(2);
if (args.length < 1 || args.length > 2 || (args.length === 2 && args[1] !== '--http')) {
  console.error('usage: node tests/clients/ts_sdk.mjs PATH/TO/toolgate [--http]');
  process.exit(2);
}
const BIN = resolve(args[0]);
const HTTP = args[1] === '--http';

// Like inspector.sh: install the pinned packages when they are missing.
if (!existsSync(resolve(HERE, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'))) {
  const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--silent'], { cwd: HERE, stdio: 'inherit' });
  if (npm.status !== 0) {
    console.log('npm install failed');
    process.exit(1);
  }
}
const sdk = '@modelcontextprotocol/sdk';
const { Client } = await import(`${sdk}/client/index.js`);
const { StdioClientTransport } = await import(`${sdk}/client/stdio.js`);
const { StreamableHTTPClientTransport } = await import(`${sdk}/client/streamableHttp.js`);

let passed = 0;
let failed = 0;
function check(name, ok, detail = '') {
  if (ok) passed += 1;
  else failed += 1;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${!ok && detail ? `: ${String(detail).slice(0, 400)}` : ''}`);
  return ok;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function withTimeout(promise, ms, what) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

function errorKind(result) {
  try {
    return JSON.parse(result.content[0].text).error.kind;
  } catch {
    return undefined;
  }
}

// `toolgate mcp --root ROOT --http 127.0.0.1:0`: the process and the URL it serves at.
async function startHttpServer() {
  const server = spawn(BIN, ['mcp', '--root', ROOT, '--http', '127.0.0.1:0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((r) => server.once('exit', (code, signal) => r({ code, signal })));
  const lines = createInterface({ input: server.stderr });
  const stderr = [];
  const first = new Promise((resolveUrl, reject) => {
    lines.once('line', resolveUrl);
    server.once('exit', (code) => reject(new Error(`server exited (${code}) before serving`)));
  });
  lines.on('line', (l) => stderr.push(l));
  const line = await withTimeout(first, 10000, 'the server\'s first stderr line');
  const prefix = 'toolgate mcp: serving MCP at ';
  if (!line.startsWith(prefix)) throw new Error(`unexpected first stderr line: ${line}`);
  return { server, exited, stderr, url: line.slice(prefix.length) };
}

// A connected Client. `received` records every message the transport hands the client, in
// order (the SDK chains an `onmessage` set before `connect`).
async function connect(label, url) {
  const transport = HTTP
    ? new StreamableHTTPClientTransport(new URL(url))
    : new StdioClientTransport({ command: BIN, args: ['mcp', '--root', ROOT], stderr: 'pipe' });
  const stderr = [];
  if (!HTTP) transport.stderr?.on('data', (chunk) => stderr.push(String(chunk)));
  const received = [];
  transport.onmessage = (message) => received.push(message);
  const client = new Client({ name: `toolgate-ts-sdk-test-${label}`, version: '1.0.0' });
  const errors = [];
  client.onerror = (e) => errors.push(String(e?.message ?? e));
  let closed = false;
  client.onclose = () => {
    closed = true;
  };
  await withTimeout(client.connect(transport), 15000, `${label}: connect`);
  return { client, transport, received, errors, stderr, isClosed: () => closed };
}

async function basics(c) {
  const { client, transport, received } = c;
  const init = received.find((m) => m.id !== undefined && m.result?.serverInfo);
  const version = init?.result?.protocolVersion;
  const info = client.getServerVersion();
  check(
    `connect: initialize negotiated ${NEGOTIATED}, serverInfo.name toolgate`,
    version === NEGOTIATED && info?.name === 'toolgate' && typeof info?.version === 'string'
      && (!HTTP || transport.protocolVersion === NEGOTIATED),
    JSON.stringify({ version, info }),
  );
  if (HTTP) {
    check('connect: Mcp-Session-Id issued (128 bits, hex)', /^[0-9a-f]{32}$/.test(transport.sessionId ?? ''), transport.sessionId);
  }
  check('connect: tools capability announced', client.getServerCapabilities()?.tools !== undefined,
    JSON.stringify(client.getServerCapabilities()));

  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  check('listTools: extract and get_metadata', JSON.stringify(Object.keys(byName).sort()) === '["extract","get_metadata"]',
    JSON.stringify(Object.keys(byName)));
  for (const t of tools) {
    check(
      `listTools: ${t.name} has an object inputSchema (path required, closed) and an outputSchema`,
      t.inputSchema?.type === 'object' && t.inputSchema.additionalProperties === false
        && t.inputSchema.properties?.path?.type === 'string' && (t.inputSchema.required ?? []).includes('path')
        && t.outputSchema?.type === 'object' && t.annotations?.readOnlyHint === true,
      JSON.stringify(t.inputSchema),
    );
  }

  // The SDK validates structuredContent against the listed outputSchema on every call below.
  let r = await client.callTool({ name: 'extract', arguments: { path: 'pypdf-minimal-document.pdf' } });
  const minimal = 'Lorem ipsum dolor sit amet, consetetur sadipscing elitr, sed diam nonumy eirmod\n'
    + 'tempor invidunt ut labore et dolore magna aliquyam erat, sed diam voluptua. At vero\n'
    + 'eos et accusam et justo duo dolores et ea rebum. Stet clita kasd gubergren, no sea takimata sanctus est Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet, consetetur\n'
    + 'sadipscing elitr, sed diam nonumy eirmod tempor invidunt ut labore et dolore magna\n'
    + 'aliquyam erat, sed diam voluptua. At vero eos et accusam et justo duo dolores et ea\n'
    + 'rebum. Stet clita kasd gubergren, no sea takimata sanctus est Lorem ipsum dolor sit\n'
    + 'amet.\n1\n';
  let sc = r.structuredContent ?? {};
  check(
    'callTool extract pypdf-minimal-document.pdf: exact text of its one page',
    r.isError === false && sc.pageCount === 1 && sc.pages?.length === 1 && sc.pages[0].page === 1
      && sc.pages[0].text === minimal && sc.truncated === false,
    JSON.stringify(r).slice(0, 400),
  );
  let mirror;
  try {
    mirror = JSON.parse(r.content?.[0]?.text);
  } catch {
    mirror = undefined;
  }
  check('callTool extract: the text content mirrors structuredContent', JSON.stringify(mirror) === JSON.stringify(sc));

  r = await client.callTool({ name: 'extract', arguments: { path: 'qpdf-lin1.pdf' } });
  sc = r.structuredContent ?? {};
  const potatoes = Array.from({ length: 30 }, (_, i) => ({ page: i + 1, text: `Potato ${i}\n` }));
  check(
    'callTool extract qpdf-lin1.pdf: 30 pages, each exactly "Potato N"',
    r.isError === false && sc.pageCount === 30 && JSON.stringify(sc.pages) === JSON.stringify(potatoes),
    JSON.stringify(sc).slice(0, 400),
  );

  r = await client.callTool({ name: 'extract', arguments: { path: 'pypdf-pdflatex-4-pages.pdf', pages: '2-3' } });
  sc = r.structuredContent ?? {};
  check(
    'callTool extract pypdf-pdflatex-4-pages.pdf pages 2-3',
    r.isError === false && sc.pageCount === 4 && JSON.stringify(sc.pages?.map((p) => p.page)) === '[2,3]'
      && sc.pages.every((p) => p.text.includes('Hello, here is some text without a meaning.')),
    JSON.stringify(sc).slice(0, 400),
  );

  r = await client.callTool({ name: 'get_metadata', arguments: { path: 'pypdf-pdflatex-4-pages.pdf' } });
  sc = r.structuredContent ?? {};
  check(
    'callTool get_metadata pypdf-pdflatex-4-pages.pdf: 4 pages, PDF 1.5, not encrypted',
    r.isError === false && sc.pageCount === 4 && sc.pdfVersion === '1.5' && sc.encrypted === false
      && sc.info?.Producer === 'pdfTeX-1.40.23',
    JSON.stringify(sc).slice(0, 400),
  );

  r = await client.callTool({ name: 'extract', arguments: { path: '../../etc/passwd' } });
  check(
    'callTool extract ../../etc/passwd: isError, kind path.outside_root',
    r.isError === true && errorKind(r) === 'path.outside_root' && r.structuredContent === undefined,
    JSON.stringify(r).slice(0, 400),
  );
}

async function progress(c) {
  const { client, received } = c;
  const heard = [];
  const before = received.length;
  const r = await client.callTool({ name: 'extract', arguments: { path: BIG.path } }, undefined, {
    onprogress: (p) => heard.push(p),
  });
  const atResult = heard.length;
  await sleep(300);
  check(`progress: extract ${BIG.path} completes (${BIG.pages} pages)`,
    r.isError === false && r.structuredContent?.pageCount === BIG.pages && r.structuredContent.pages.length === BIG.pages,
    JSON.stringify(r).slice(0, 300));
  check(
    `progress: heard before the result, pages done out of ${BIG.pages}, in order`,
    atResult > 0 && heard.every((p) => p.total === BIG.pages && p.progress >= 0 && p.progress <= p.total)
      && heard.every((p, i) => i === 0 || heard[i - 1].progress <= p.progress),
    JSON.stringify(heard.slice(0, 5)),
  );
  // On the wire: every notifications/progress of the call came before its response.
  const mine = received.slice(before);
  const answer = mine.findIndex((m) => m.id !== undefined && m.result?.structuredContent?.pageCount === BIG.pages);
  const notes = mine.map((m, i) => [m, i]).filter(([m]) => m.method === 'notifications/progress');
  check(
    'progress: every notification on the wire precedes the response',
    answer >= 0 && notes.length === atResult && notes.every(([, i]) => i < answer),
    `${notes.length} notifications, response at ${answer}`,
  );
  check('progress: nothing after the result', heard.length === atResult, `${atResult} then ${heard.length}`);
  console.log(`     [${HTTP ? 'http' : 'stdio'}] ${atResult} progress notifications: ${heard.map((p) => p.progress).join(', ')}`);
}

async function cancellation(c) {
  const { client, received, errors } = c;
  const controller = new AbortController();
  const errorsBefore = errors.length;
  const before = received.length;
  let outcome;
  try {
    // Aborted on the first progress notification, so the call is running in the server.
    const r = await client.callTool({ name: 'extract', arguments: { path: BIG.path } }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort('the test aborts this call'),
    });
    outcome = `a result (isError ${r.isError})`;
  } catch (e) {
    outcome = `rejected: ${e?.message ?? e}`;
  }
  check('cancel: the aborted call rejects', outcome.startsWith('rejected') && controller.signal.aborted, outcome);
  await sleep(500);
  const { tools } = await withTimeout(client.listTools(), 15000, 'listTools after the cancellation');
  check('cancel: a later listTools works', tools.length === 2, JSON.stringify(tools.map((t) => t.name)));
  const r = await withTimeout(
    client.callTool({ name: 'get_metadata', arguments: { path: 'pypdf-minimal-document.pdf' } }),
    15000,
    'callTool after the cancellation',
  );
  check('cancel: a later callTool works', r.isError === false && r.structuredContent?.pageCount === 1,
    JSON.stringify(r).slice(0, 300));
  const late = received.slice(before).filter((m) => m.id !== undefined && m.result?.structuredContent?.pageCount === BIG.pages);
  console.log(`     [${HTTP ? 'http' : 'stdio'}] cancelled call: ${late.length ? 'the server answered it anyway' : 'no answer from the server'}`
    + `; client errors: ${JSON.stringify(errors.slice(errorsBefore))}`);
}

async function twoClients(url) {
  const a = await connect('a', url);
  const b = await connect('b', url);
  try {
    if (HTTP) {
      check('two clients: two sessions', a.transport.sessionId && b.transport.sessionId
        && a.transport.sessionId !== b.transport.sessionId, `${a.transport.sessionId} ${b.transport.sessionId}`);
    }
    // Both clients number their requests alike, so the two calls of each pair share an id.
    const page = (sc) => sc?.pages?.map((p) => `${p.page}:${p.text}`).join('|');
    const [ra1, rb1, ra2, rb2] = await withTimeout(Promise.all([
      a.client.callTool({ name: 'extract', arguments: { path: 'qpdf-lin1.pdf', pages: '5' } }),
      b.client.callTool({ name: 'extract', arguments: { path: 'qpdf-lin1.pdf', pages: '9' } }),
      a.client.callTool({ name: 'get_metadata', arguments: { path: 'pypdf-pdflatex-4-pages.pdf' } }),
      b.client.callTool({ name: 'get_metadata', arguments: { path: 'pypdf-minimal-document.pdf' } }),
    ]), 30000, 'two clients\' concurrent calls');
    check('two clients: a gets page 5, b page 9', page(ra1.structuredContent) === '5:Potato 4\n'
      && page(rb1.structuredContent) === '9:Potato 8\n', `${page(ra1.structuredContent)} / ${page(rb1.structuredContent)}`);
    check('two clients: a gets 4 pages, b 1 page', ra2.structuredContent?.pageCount === 4
      && rb2.structuredContent?.pageCount === 1, `${ra2.structuredContent?.pageCount} / ${rb2.structuredContent?.pageCount}`);
    const ids = (c) => c.received.filter((m) => m.id !== undefined).map((m) => m.id).sort((x, y) => x - y);
    check('two clients: each received only answers to its own ids, once each',
      JSON.stringify(ids(a)) === JSON.stringify(ids(b)) && JSON.stringify(ids(a)) === '[0,1,2]',
      `${JSON.stringify(ids(a))} / ${JSON.stringify(ids(b))}`);
  } finally {
    await closeClient(b, 'b', url);
    const { tools } = await a.client.listTools();
    check('close: the other client still works', tools.length === 2);
    await closeClient(a, 'a', url);
  }
}

async function closeClient(c, label, url) {
  const { client, transport } = c;
  if (HTTP) {
    const id = transport.sessionId;
    let how = 'ok';
    try {
      await transport.terminateSession();
    } catch (e) {
      how = String(e?.message ?? e);
    }
    check(`close ${label}: terminateSession (DELETE)`, how === 'ok' && transport.sessionId === undefined, how);
    // The ended session is refused (404), as the spec asks.
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': id,
        'mcp-protocol-version': NEGOTIATED,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list' }),
    });
    await res.body?.cancel();
    check(`close ${label}: the terminated session is refused with 404`, res.status === 404, `HTTP ${res.status}`);
    await client.close();
    check(`close ${label}: client.close() closes the transport`, c.isClosed());
  } else {
    const pid = transport.pid;
    const started = Date.now();
    await client.close();
    const elapsed = Date.now() - started;
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch {
      alive = false;
    }
    // The SDK ends stdin, waits up to 2 s for the process, then sends SIGTERM.
    check(`close ${label}: the server exits when stdin closes (${elapsed} ms)`, !alive && elapsed < 1900 && c.isClosed(),
      `alive ${alive}, ${elapsed} ms; stderr: ${c.stderr.join('').slice(-300)}`);
  }
}

async function main() {
  const installed = JSON.parse(spawnSync(process.execPath, ['-p',
    `JSON.stringify(require(${JSON.stringify(resolve(HERE, 'node_modules', sdk, 'package.json'))}).version)`]).stdout);
  console.log(`     @modelcontextprotocol/sdk ${installed}, ${HTTP ? 'Streamable HTTP' : 'stdio'}`);
  check(`@modelcontextprotocol/sdk is the pinned ${SDK_VERSION}`, installed === SDK_VERSION, installed);

  let http;
  if (HTTP) {
    try {
      http = await startHttpServer();
      console.log(`     server at ${http.url}`);
    } catch (e) {
      check('server started', false, e?.message ?? e);
      return;
    }
  }
  try {
    let c;
    try {
      c = await connect('main', http?.url);
    } catch (e) {
      check('connect', false, e?.message ?? e);
      return;
    }
    for (const [name, part] of [['basics', basics], ['progress', progress], ['cancellation', cancellation]]) {
      try {
        await withTimeout(part(c), 60000, name);
      } catch (e) {
        check(`${name}: completed`, false, `${e?.name}: ${e?.message ?? e}`);
      }
    }
    try {
      await withTimeout(closeClient(c, 'main', http?.url), 15000, 'close');
    } catch (e) {
      check('close main: completed', false, `${e?.name}: ${e?.message ?? e}`);
    }
    try {
      await withTimeout(twoClients(http?.url), 60000, 'two clients');
    } catch (e) {
      check('two clients: completed', false, `${e?.name}: ${e?.message ?? e}`);
    }
  } finally {
    if (http) {
      http.server.kill('SIGTERM');
      const { code, signal } = await withTimeout(http.exited, 10000, 'server exit after SIGTERM')
        .catch((e) => ({ code: null, signal: e.message }));
      if (code === null) http.server.kill('SIGKILL');
      check('server exits 0 on SIGTERM', code === 0, `code ${code}, signal ${signal}; stderr: ${http.stderr.slice(-5).join(' | ')}`);
    }
  }
}

await main();
console.log(`${passed} passed, ${failed} failed${HTTP ? ' (Streamable HTTP)' : ''}`);
process.exit(failed === 0 ? 0 : 1);
