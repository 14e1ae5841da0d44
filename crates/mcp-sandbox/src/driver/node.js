// mcp-sandbox Node driver: one long-lived Node process per sandbox session.
//
// Protocol (newline-delimited JSON; CommonJS, no npm packages, Node >= 18):
//   fd 3 (host -> driver): {"type":"exec","id":N,"code":"...","fence":"<32 hex>"}
//                          {"type":"run","id":N,"argv":[...]|"shell":"...","fence":"..."}
//   fd 4 (driver -> host): {"type":"ready",...} once at start, then one
//                          {"type":"done","id":N,"ok":...} per request.
//   fd 1 / fd 2: user-visible stdout / stderr. When a request finishes, the driver
//   writes NUL + fence + NUL raw to fd 1 and then fd 2, and only then sends
//   "done", so the host knows it has seen all output of that request.
// exec evaluates a cell through the in-process inspector (Runtime.evaluate with
// replMode: let/const re-declaration, top-level await, declarations persist) and
// shows the last value like the REPL. run starts a program and waits for it.
// EOF on fd 3 ends the driver with status 0.
// Limitations: dynamic import() does not work in cells (V8 gives the inspector no
// import callback; use require()); process.exit() ends the session. (fds 3/4 need
// no care: Node marks inherited fds close-on-exec at startup.)
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const util = require('util');
const crypto = require('crypto');
const readline = require('readline');
const inspector = require('inspector');
const childProcess = require('child_process');
const { createRequire } = require('module');

const WORKSPACE = process.env.MCP_SANDBOX_WORKSPACE || '/workspace';
const CTRL_IN = 3, CTRL_OUT = 4;
const FENCE_RE = /^[0-9a-f]{32}$/;
const ERRNO_TEXT = { ENOENT: 'No such file or directory', EACCES: 'Permission denied' };

// Node makes its stdout/stderr pipes non-blocking, and that flag is shared with
// every child that inherits them (a child could then fail with EAGAIN). Make them
// blocking again: writes stay synchronous, and fs.writeSync of the fence is safe.
for (const stream of [process.stdout, process.stderr]) {
  if (stream._handle && typeof stream._handle.setBlocking === 'function') stream._handle.setBlocking(true);
}

const session = new inspector.Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) =>
  session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));

// Cells see a require() rooted at the workspace, and an inspect helper the driver
// calls on result objects (non-enumerable, under a random name).
const HELPER = `__mcpSandboxInspect_${crypto.randomBytes(6).toString('hex')}`;
globalThis.require = createRequire(path.join(WORKSPACE, '/'));
Object.defineProperty(globalThis, HELPER, { value: (v) => util.inspect(v, { colors: false }) });

function writeAll(fd, data) {
  let buf = Buffer.from(data);
  while (buf.length > 0) {
    try {
      buf = buf.subarray(fs.writeSync(fd, buf));
    } catch (err) {
      if (err.code !== 'EAGAIN') throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); // pipe full: wait 5 ms
    }
  }
}
const send = (frame) => writeAll(CTRL_OUT, JSON.stringify(frame) + '\n');
const protocolError = (message) => ({ name: 'ProtocolError', message });

// Text of a RemoteObject as util.inspect would show it.
async function inspectRemote(obj) {
  if (obj.objectId) {
    const res = await post('Runtime.callFunctionOn', {
      objectId: obj.objectId, returnByValue: true, objectGroup: 'cell',
      functionDeclaration: `function () { 'use strict'; return globalThis[${JSON.stringify(HELPER)}](this); }`,
    });
    // util.inspect itself can throw (e.g. a Proxy with throwing traps): use V8's summary.
    return res.exceptionDetails ? String(obj.description) : res.result.value;
  }
  if (obj.type === 'undefined') return 'undefined';
  if (obj.type === 'bigint') return obj.unserializableValue;
  if ('unserializableValue' in obj) return util.inspect(Number(obj.unserializableValue)); // NaN, -0, ...
  return util.inspect(obj.value, { colors: false });
}

// Print an exception like the REPL ("Uncaught ..."), without the driver's frames.
async function reportException(details, code, cellName) {
  const exc = details.exception || { type: 'undefined' };
  let name = 'Error', message, text, where = '';
  if (exc.subtype === 'error') {
    name = exc.className || 'Error';
    const lines = (exc.description || '').split('\n');
    // Cut at the first driver frame (the inspector call, this file, or the microtask
    // tick that resumed an awaiting cell): the cell's frames come before it.
    const cut = lines.findIndex((l) => /^\s+at /.test(l) && (l.includes('node:inspector') ||
      l.includes(__filename) || l.includes('node:internal/process/task_queues')));
    text = (cut < 0 ? lines : lines.slice(0, cut)).join('\n');
    // "TypeError [ERR_X]: msg" -> "msg"; a bare "Error" (no message) -> "".
    message = lines[0] === name ? '' : lines[0].replace(/^[\w$.]+(?: \[[^\]]*\])?: /, '');
    if (lines[0].includes('ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING')) {
      message = 'dynamic import() is not supported in this sandbox; use require() instead';
      text = `${name}: ${message}`;
    }
    if (name === 'SyntaxError' && typeof details.lineNumber === 'number') {
      // Show where the parser stopped, as Node does for a script (an error at the
      // end of input points into the sourceURL line we appended: use the cell's end).
      const src = code.split('\n');
      let line = details.lineNumber, col = details.columnNumber || 0;
      if (line >= src.length) [line, col] = [src.length - 1, src[src.length - 1].length];
      where = `${cellName}:${line + 1}\n${src[line]}\n${' '.repeat(col)}^\n\n`;
    }
  } else {
    message = text = await inspectRemote(exc); // `throw 5`, `throw {a: 1}`, ...
  }
  process.stderr.write(`${where}Uncaught ${text}\n`);
  return { name, message };
}

async function execCell(id, code) {
  const cellName = `cell-${id}`;
  try {
    const res = await post('Runtime.evaluate', {
      expression: `${code}\n//# sourceURL=${cellName}`,
      replMode: true, awaitPromise: true, objectGroup: 'cell', generatePreview: false,
    });
    if (res.exceptionDetails) return { ok: false, error: await reportException(res.exceptionDetails, code, cellName) };
    if (res.result.type !== 'undefined') process.stdout.write(`${await inspectRemote(res.result)}\n`);
    return { ok: true };
  } finally {
    await post('Runtime.releaseObjectGroup', { objectGroup: 'cell' }).catch(() => {});
  }
}

function runProgram(req) {
  let argv;
  if ('shell' in req) {
    if (typeof req.shell !== 'string') return { ok: false, error: protocolError("'shell' must be a string") };
    argv = ['/bin/sh', '-c', req.shell];
  } else {
    argv = req.argv;
    if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === 'string')) {
      return { ok: false, error: protocolError("'argv' must be a non-empty list of strings (or give 'shell')") };
    }
  }
  const r = childProcess.spawnSync(argv[0], argv.slice(1), {
    stdio: ['ignore', 'inherit', 'inherit'], cwd: WORKSPACE, env: process.env,
  });
  if (r.error) {
    const code = r.error.code || 'EIO';
    const message = `${argv[0]}: ${ERRNO_TEXT[code] || r.error.message}`;
    writeAll(2, message + '\n');
    return { ok: false, exit_code: code === 'ENOENT' ? 127 : 126, signal: null, error: { name: code, message } };
  }
  if (r.signal) return { ok: false, exit_code: null, signal: os.constants.signals[r.signal] || null };
  return { ok: r.status === 0, exit_code: r.status, signal: null };
}

// Serve one request line; returns the done frame's fields and the fence (or null).
async function handle(line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch (err) {
    return [{ id: null, ok: false, error: protocolError(`bad JSON: ${err.message}`) }, null];
  }
  if (req === null || typeof req !== 'object' || Array.isArray(req)) {
    return [{ id: null, ok: false, error: protocolError('request is not an object') }, null];
  }
  const id = Number.isInteger(req.id) ? req.id : null;
  const fence = typeof req.fence === 'string' && FENCE_RE.test(req.fence) ? req.fence : null;
  try {
    return [{ id, ...(await dispatch(req, id, fence)) }, fence];
  } catch (err) { // a driver bug or an inspector failure: report it, keep serving
    return [{ id, ok: false, error: { name: (err && err.name) || 'Error', message: String(err && err.message) } }, fence];
  }
}

async function dispatch(req, id, fence) {
  if (req.type !== 'exec' && req.type !== 'run') {
    return { ok: false, error: protocolError(`unknown request type ${JSON.stringify(req.type)}`) };
  }
  if (id === null || fence === null) {
    return { ok: false, error: protocolError(`missing or invalid '${id === null ? 'id' : 'fence'}'`) };
  }
  if (req.type === 'run') return runProgram(req);
  if (typeof req.code !== 'string') return { ok: false, error: protocolError("'code' must be a string") };
  return execCell(id, req.code);
}

// Wait until anything queued in a stream has been handed to the OS.
const drained = (s) => (s.writableLength > 0 ? new Promise((r) => s.once('drain', r)) : Promise.resolve());

async function serve(line) {
  const [done, fence] = await handle(line);
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  if (fence) {
    writeAll(1, `\0${fence}\0`);
    writeAll(2, `\0${fence}\0`);
  }
  send({ type: 'done', ...done });
}

// A timer or promise that fails after its cell finished must not end the session.
process.on('uncaughtException', (err) => process.stderr.write(`Uncaught ${util.inspect(err)}\n`));
process.on('unhandledRejection', (err) => process.stderr.write(`Uncaught (in promise) ${util.inspect(err)}\n`));

// Requests are served strictly one at a time, in order.
const queue = [];
let busy = false, closed = false;
async function pump() {
  if (busy) return;
  busy = true;
  while (queue.length > 0) await serve(queue.shift());
  busy = false;
  if (closed) process.exit(0); // EOF: end even if user timers or servers are still alive
}

send({ type: 'ready', language: 'node', version: process.versions.node, pid: process.pid });
const rl = readline.createInterface({ input: fs.createReadStream(null, { fd: CTRL_IN }), crlfDelay: Infinity });
rl.on('line', (line) => { if (line.trim()) { queue.push(line); pump(); } });
rl.on('close', () => { closed = true; pump(); });
