'use strict';
// A long-lived grader: Jest's per-file runner with a config built once, fed one test file at a
// time by pytest_codegen.jest.JestRunner.
//
//   node runner.js <toolchain dir> <work root> <result fd>
//
// stdin  one JSON line per message. The first is {"secret", "warmup"}; then requests
//        {"id", "test"}: the absolute path of a test file whose sample sits next to it.
// result fd  one JSON line per answer, each carrying the secret from the first line. The
//        secret is read before any sample code exists and lives only in this module's
//        closure, so a sample writing to this fd (or stdout) cannot forge an answer.
// stdout/stderr  free text; the Python side keeps a capped tail.
//
// The sample runs in this process, in the test's jsdom realm, and can reach this realm too.
// Before the first sample: process.exit/kill/getBuiltinModule, stdin and heap snapshots are
// disabled (harden()); after a warm-up file, the built-ins are frozen (lockdown()) and the core
// modules fingerprinted: one changed by a test file is a violation (runtime.js). The OS-level
// limits (permission model, uid, time, memory) are applied by the Python side.

const fs = require('fs');
const path = require('path');
const v8 = require('v8');
const environment = require('./environment.js');
const {freezePageClasses} = require('./page_classes.js');
const attemptLog = require('./attempt_log.js');

// ---- captured before any sample exists --------------------------------------------------------
const readSync = fs.readSync;
const writeSync = fs.writeSync;
const stringify = JSON.stringify;
const parse = JSON.parse;
const now = Date.now;
const clock = performance.now.bind(performance);
const cpuUsage = process.cpuUsage.bind(process);
const BufferCtor = Buffer;
const sleepArray = new Int32Array(new SharedArrayBuffer(4));
const atomicsWait = Atomics.wait;
const realExit = process.reallyExit.bind(process);
const activeResources =
  typeof process.getActiveResourcesInfo === 'function'
    ? process.getActiveResourcesInfo.bind(process)
    : () => [];

const [toolchain, workRoot, resultFd] = process.argv.slice(2);
const RESULT_FD = Number(resultFd);
const MESSAGE_CAP = 4000;
// A test file that focuses tests itself (`test.only(`, `it.only.each`, `fit(`, `fdescribe(`) in
// its code, not in a comment or a string: only then may Jest skip its other tests for them
// (verdicts.py). A sample's own `test.only` may not.
const FOCUS = /\.only\s*[(.`]|\bf(?:it|describe)\s*[(.`]/;
const FOCUS_NEXT = new Set(['(', '.', '`']);
const CONSOLE_CAP = 16000;

const cap = (text, limit) => {
  const value = typeof text === 'string' ? text : '';
  return value.length > limit ? `${value.slice(0, limit)}\n... [${value.length - limit} more characters]` : value;
};

// ---- stdin / result fd ---------------------------------------------------------------------------
let pendingInput = '';
const readLine = () => {
  const chunk = BufferCtor.alloc(65536);
  for (;;) {
    const newline = pendingInput.indexOf('\n');
    if (newline >= 0) {
      const line = pendingInput.slice(0, newline);
      pendingInput = pendingInput.slice(newline + 1);
      return line;
    }
    let count;
    try {
      count = readSync(0, chunk, 0, chunk.length, null);
    } catch (error) {
      if (error && error.code === 'EAGAIN') {
        atomicsWait(sleepArray, 0, 0, 5);
        continue;
      }
      if (error && error.code === 'EOF') return null;
      throw error;
    }
    if (count === 0) return null;
    pendingInput += chunk.toString('utf8', 0, count);
  }
};

let secret = '';
const answer = payload => {
  payload.secret = secret;
  const data = BufferCtor.from(`${stringify(payload)}\n`, 'utf8');
  let offset = 0;
  while (offset < data.length) offset += writeSync(RESULT_FD, data, offset, data.length - offset);
};

// ---- per-request record, filled by guard.js through the channel -------------------------------
let record = null;
const violations = [];
const newRecord = () => ({
  ready: false,
  modules: [],
  tests: [],
  dynamic: 0,
  unverified: [],
  hookAssertions: {pass: 0, fail: 0},
});

// ---- where a file's time goes: wall and CPU (ms) at named points, for benchmarks/perf ------
let marks = [];
const mark = name => {
  const cpu = cpuUsage();
  marks.push([name, clock(), (cpu.user + cpu.system) / 1000]);
};
// Wall and CPU from the first `from` to the last `to` (the first with `first`), or null.
const span = (from, to, first = false) => {
  const a = marks.find(m => m[0] === from);
  let b = null;
  for (const m of marks) if (m[0] === to && !(first && b)) b = m;
  return a && b ? [b[1] - a[1], b[2] - a[2]] : null;
};
// The test bodies (guard.js's start..end, hooks excluded): summed wall and CPU.
const bodies = () => {
  let wall = 0;
  let cpu = 0;
  let open = null;
  for (const m of marks) {
    if (m[0] === 'body') open = m;
    else if (m[0] === 'body end' && open) {
      wall += m[1] - open[1];
      cpu += m[2] - open[2];
      open = null;
    }
  }
  return [wall, cpu];
};
const minus = (a, b) => (a && b ? [a[0] - b[0], a[1] - b[1]] : null);
const round = pair => (pair ? pair.map(x => Math.round(x * 100) / 100) : null);
// [wall, CPU] per phase of the last file, in the order they happen.
const profile = () => {
  const body = bodies();
  const load = span('ready', 'body', true);
  return {
    parse: round(span('start', 'parsed')),
    prepare: round(span('parsed', 'environment')),
    environment: round(span('environment', 'environment end')),
    setup: round(span('environment end', 'guard')),
    packages: round(span('guard', 'ready')),
    load: round(load),
    bodies: round(body),
    hooks: round(minus(minus(span('ready', 'teardown'), load), body)),
    teardown: round(span('teardown', 'ran')),
    checks: round(span('ran', 'checked')),
  };
};

const asIndex = value => (typeof value === 'number' && value >= 0 && value < 100000 ? value | 0 : -1);
const asText = value => (typeof value === 'string' ? cap(value, MESSAGE_CAP) : '');

const makeChannel = rec =>
  function channel(op, a, b, c, d, e, f) {
    if (rec !== record) return undefined; // a stale window from an earlier file
    switch (op) {
      case 'modules':
        mark('guard');
        return rec.modules.slice();
      case 'each':
        return jestEach;
      case 'ready':
        mark('ready');
        rec.ready = true;
        return undefined;
      case 'timers':
        return environment.replacingTimers() === true;
      case 'test': {
        const index = asIndex(a);
        if (index < 0 || rec.tests[index]) return undefined;
        rec.tests[index] = {
          name: asText(b),
          mode: asText(c),
          within: asText(d), // the mode of the describe block it is declared in
          block: asIndex(e), // that block's number, 0 outside any
          failing: f === true, // a test.failing: to pass, its body must throw
          started: false,
          end: '',
          errorName: '',
          errorMessage: '',
          pass: 0,
          fail: 0,
        };
        return undefined;
      }
      case 'start': {
        const test = rec.tests[asIndex(a)];
        if (test) test.started = true;
        mark('body');
        return undefined;
      }
      case 'end': {
        const test = rec.tests[asIndex(a)];
        mark('body end');
        if (test && !test.end) {
          test.end = asText(b);
          test.errorName = asText(c);
          test.errorMessage = asText(d);
        }
        return undefined;
      }
      case 'assert': {
        const test = rec.tests[asIndex(a)];
        const bucket = test || rec.hookAssertions;
        if (b === 'pass') bucket.pass += 1;
        else bucket.fail += 1;
        return undefined;
      }
      case 'unverified':
        rec.unverified.push(asText(b));
        return undefined;
      case 'attempt':
        attemptLog.note(asText(a), asText(b));
        return undefined;
      default:
        return undefined;
    }
  };

// ---- process hardening (the sample sees this process object) --------------------------------
const harden = () => {
  const RECORDED = ['reallyExit', 'abort', 'kill', '_kill'];
  // What reaching for each refused power is (attempt_log.js); the rest say nothing.
  const ATTEMPTED = {
    reallyExit: 'exit-early', abort: 'exit-early', kill: 'process', _kill: 'process',
    setuid: 'process', setgid: 'process', seteuid: 'process', setegid: 'process',
    setgroups: 'process', initgroups: 'process', stdin: 'grader-access', openStdin: 'grader-access',
    loadEnvFile: 'grader-access', dlopen: 'introspection', binding: 'introspection',
    _linkedBinding: 'introspection', getBuiltinModule: 'introspection', _debugProcess: 'introspection',
    _debugEnd: 'introspection', _startProfilerIdleNotifier: 'introspection',
  };
  // Only a call from a file in the work root (the sample's, not a package's: packages may
  // probe process.binding and the like on their own) is an attempt.
  // The caller's frame as V8 writes it, unmapped: formatting the stack would go through Jest's
  // source-map-support, which parses the source maps of every file on it (~3 ms per test
  // file: lodash.isequal and lodash.sortby probe process.binding as they load).
  const asFrames = (_, frames) => frames;
  const callerFrame = () => {
    const prepare = Error.prepareStackTrace;
    const limit = Error.stackTraceLimit;
    try {
      Error.prepareStackTrace = asFrames;
      Error.stackTraceLimit = 4;
      if (Error.prepareStackTrace === asFrames) {
        const frames = new Error().stack; // [callerFrame, calledFromWork, denied, the caller]
        if (Array.isArray(frames)) return String(frames[3] || '');
      }
    } catch {
      // an Error we cannot set: the formatted stack below
    } finally {
      try {
        Error.prepareStackTrace = prepare;
        Error.stackTraceLimit = limit;
      } catch {
        // as it was
      }
    }
    return String(new Error().stack || '').split('\n')[4] || '';
  };
  const calledFromWork = () => {
    const caller = callerFrame();
    return caller.includes(workRoot) && !caller.includes('node_modules');
  };
  const deny = (name, message) =>
    function denied() {
      if (RECORDED.includes(name)) violations.push(message);
      if (calledFromWork()) attemptLog.note(ATTEMPTED[name] || 'introspection', `${message} (called ${name})`);
      const error = new Error(message);
      error.name = 'SandboxViolation';
      throw error;
    };
  const replace = (object, name, value) => {
    try {
      Object.defineProperty(object, name, {value, writable: false, configurable: false});
    } catch {
      // already locked
    }
  };
  // Jest wraps the window's copy of process.exit on every file, so this one stays writable.
  Object.defineProperty(process, 'exit', {writable: true, configurable: false, value: function exit(code) {
    violations.push(`process.exit(${code === undefined ? '' : String(code)}) was called`);
    attemptLog.note('exit-early', `process.exit(${code === undefined ? '' : String(code)})`);
    const error = new Error(`process.exit(${code === undefined ? '' : String(code)}) called by the code under test`);
    error.name = 'ProcessExitError';
    throw error;
  }});
  for (const name of ['reallyExit', 'abort', 'kill', '_kill', 'dlopen', 'binding', '_linkedBinding',
    'getBuiltinModule', 'setuid', 'setgid', 'seteuid', 'setegid', 'setgroups',
    'initgroups', '_debugProcess', '_debugEnd', '_startProfilerIdleNotifier', 'openStdin',
    'loadEnvFile', 'setSourceMapsEnabled']) {
    if (name in process) replace(process, name, deny(name, `process.${name}() is not available`));
  }
  replace(process, 'mainModule', undefined);
  // fd 0 carries requests: nobody else may open a stream on it.
  try {
    Object.defineProperty(process, 'stdin', {
      get: deny('stdin', 'process.stdin is not available'),
      configurable: false,
    });
  } catch {
    // ignore
  }
  // Heap snapshots and V8 flags would expose or change this process's internals.
  for (const name of Object.keys(v8)) {
    if (/snapshot|Flags|queryObjects|startupSnapshot|setHeapSnapshotNearHeapLimit|takeCoverage|stopCoverage|promiseHooks/i.test(name)) {
      replace(v8, name, deny(name, `v8.${name}() is not available`));
    }
  }
  Object.freeze(v8);
  // Refusals of the permission model the code under test may catch: noted all the same.
  attemptLog.watchDenials('fs', fs, 'grader-access');
  attemptLog.watchDenials('fs.promises', fs.promises, 'grader-access');
  attemptLog.watchDenials('child_process', require('child_process'), 'process');
  const net = require('net');
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (...args) {
    const [target] = args;
    attemptLog.note('network', `net.Socket.connect(${stringify(target && typeof target === 'object' ? {host: target.host, port: target.port, path: target.path} : target)})`);
    return Reflect.apply(connect, this, args);
  };
  // A timer of this realm that a sample leaves running would fire in a later test file: one
  // still referenced after the file counts in activeResources() (the runner is replaced), so
  // none may be unreferenced, which hides it from that count.
  for (const timer of [setTimeout(() => {}, 0), setImmediate(() => {})]) {
    replace(Object.getPrototypeOf(timer), 'unref', function unref() {
      return this;
    });
    clearTimeout(timer);
    clearImmediate(timer);
  }
  // timers/promises unreferences its timers on request ({ref: false}) without unref().
  const promises = require('timers/promises');
  const referenced = options => (options && typeof options === 'object' ? {...options, ref: true} : options);
  for (const name of ['setTimeout', 'setImmediate', 'setInterval']) {
    const make = promises[name];
    replace(promises, name, (delay, value, options) => make(delay, value, referenced(options)));
  }
  const scheduler = Object.getPrototypeOf(promises.scheduler);
  const {wait} = scheduler;
  replace(scheduler, 'wait', function (delay, options) {
    return Reflect.apply(wait, this, [delay, referenced(options)]);
  });
  ownHandlers.uncaughtException = error => {
    violations.push(`uncaught exception outside a test: ${String(error && error.message)}`);
  };
  ownHandlers.unhandledRejection = () => {
    // late rejections of a finished file are not the next file's business
  };
  for (const [event, listener] of Object.entries(ownHandlers)) process.on(event, listener);
};

// ---- what of the runner's realm stays open, as it is after the warm-up ----------------------
// A sample reaches this realm's global object (the window's `process` is made from this one's
// prototype, whose constructor's constructor is this realm's Function). Error.prepareStackTrace
// (source-map-support's, set once) must be as it was after each file: a change would carry over
// to the next. The runner's own process listeners (harden()) are put back when missing: Jest
// itself leaves them out after a file whose test suite failed to run.
const ownHandlers = {}; // event -> the runner's listener
let prepareStackTrace = null;
const changedHandlers = () => {
  if (prepareStackTrace === null) return [];
  for (const [event, listener] of Object.entries(ownHandlers)) {
    if (!process.listeners(event).includes(listener)) process.on(event, listener);
  }
  return Error.prepareStackTrace === prepareStackTrace ? [] : ['Error.prepareStackTrace'];
};

// ---- the outer realm's lockdown, once everything is loaded -----------------------------------
const lockdown = runtime => {
  const seen = new WeakSet();
  // The "override mistake": on a frozen prototype, `instance.method = f` throws. Jest and jsdom
  // do that (`testConsole._log = ...`), so a prototype's data properties become accessors
  // whose setter gives the instance its own property, as SES does.
  // Built-in prototypes are hot: only the names libraries really assign are converted there.
  const COMMON = ['constructor', 'toString', 'toLocaleString', 'valueOf', 'name', 'message', 'toJSON'];
  let tameAll = false;
  // Returns false for a prototype that cannot be tamed (a non-configurable writable method,
  // as on Node's Console): freezing it would break `instance.method = ...` in Jest.
  const tame = proto => {
    for (const key of Reflect.ownKeys(proto)) {
      const d = Reflect.getOwnPropertyDescriptor(proto, key);
      if (d && 'value' in d && !d.configurable && d.writable) return false;
    }
    for (const key of Reflect.ownKeys(proto)) {
      if (!tameAll && !COMMON.includes(key)) continue;
      const desc = Reflect.getOwnPropertyDescriptor(proto, key);
      if (!desc || !('value' in desc) || !desc.configurable) continue;
      const value = desc.value;
      Object.defineProperty(proto, key, {
        get() {
          return value;
        },
        set(next) {
          if (this === proto) throw new TypeError(`Cannot assign to read only property '${String(key)}'`);
          Object.defineProperty(this, key, {value: next, writable: true, enumerable: true, configurable: true});
        },
        enumerable: desc.enumerable,
        configurable: false,
      });
    }
    return true;
  };
  const freezeTree = (root, depth, isPrototype) => {
    if (root === null || (typeof root !== 'object' && typeof root !== 'function')) return;
    if (seen.has(root) || depth > 6) return;
    seen.add(root);
    if (ArrayBuffer.isView(root) || root === process || root === globalThis) return;
    if (isPrototype && !tame(root)) return;
    try {
      Object.freeze(root);
    } catch {
      return;
    }
    for (const key of Reflect.ownKeys(root)) {
      if (key === 'prototype' && typeof root === 'function') continue; // tamed below
      const desc = Reflect.getOwnPropertyDescriptor(root, key);
      if (!desc) continue;
      if ('value' in desc) freezeTree(desc.value, depth + 1, key === 'prototype');
      else {
        freezeTree(desc.get, depth + 1, false);
        freezeTree(desc.set, depth + 1, false);
      }
    }
    if (typeof root === 'function' && root.prototype) freezeTree(root.prototype, depth + 1, true);
  };
  const intrinsics = ['Object', 'Function', 'Array', 'String', 'Number', 'Boolean', 'Symbol',
    'BigInt', 'Math', 'JSON', 'Reflect', 'Promise', 'Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef',
    'FinalizationRegistry', 'RegExp', 'Date', 'Error', 'TypeError', 'RangeError', 'SyntaxError',
    'ReferenceError', 'EvalError', 'URIError', 'AggregateError', 'ArrayBuffer', 'DataView',
    'Uint8Array', 'Int8Array', 'Uint16Array', 'Int16Array', 'Uint32Array', 'Int32Array',
    'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'Uint8ClampedArray',
    'Proxy', 'Atomics', 'Iterator'];
  for (const name of intrinsics) {
    if (name === 'Error') {
      // Jest assigns Error.stackTraceLimit on every file and V8 reads it only as a data
      // property: the constructor stays open, its prototype is frozen.
      freezeTree(Error.prototype, 0, true);
      continue;
    }
    if (globalThis[name] !== undefined) freezeTree(globalThis[name], 0);
  }
  for (const value of [Object.getPrototypeOf(Int8Array), Object.getPrototypeOf([][Symbol.iterator]()),
    Object.getPrototypeOf(async function () {}), Object.getPrototypeOf(function* () {})]) {
    freezeTree(value, 0);
  }
  // Jest's modules and jsdom's generated interfaces are left as they are: the interfaces are
  // built anew for each window from descriptors jsdom copies. jsdom's implementation classes
  // (and its packages'), which every window shares, are frozen, but for the few it copies onto
  // each new window: those are fingerprinted after every file (page_classes.js).
  tameAll = true;
  seen.add(Error); // open, as above
  const jsdomDir = path.dirname(require.resolve('jsdom/package.json', {
    paths: [path.dirname(require.resolve('jest-environment-jsdom', {paths: [toolchain]}))],
  }));
  for (const [name, object] of freezePageClasses(jsdomDir, require.cache, seen, tame)) {
    runtime.watchShared(name, object);
  }
  // Core modules stay open too: graceful-fs re-patches `fs` inside every window.
  for (const name of [...intrinsics.filter(n => n !== 'Error'), 'setTimeout', 'setImmediate', 'setInterval',
    'clearTimeout', 'clearImmediate', 'clearInterval', 'queueMicrotask', 'structuredClone',
    'Buffer', 'process', 'globalThis']) {
    const desc = Reflect.getOwnPropertyDescriptor(globalThis, name);
    if (desc && desc.configurable && 'value' in desc) {
      Object.defineProperty(globalThis, name, {writable: false, configurable: false});
    }
  }
};

// ---- Jest ----------------------------------------------------------------------------------
const fromToolchain = name => require(require.resolve(name, {paths: [toolchain]}));
// jest-each as jest-circus builds test.each from it: guard.js builds its own from it, for its
// recording `test` (its directory is not the toolchain's, so Jest would not find it from there).
let jestEach = '';

// Jest writes the code and source map of every transform into its cache directory with
// write-file-atomic: a temporary file, a rename, and exit handlers for every signal installed
// and removed around each write, ~1.4 ms per test file. The directory is this runner's own, the
// code is never read back (`cache: false`), and the map is read only by this process, after
// the write (to map stack traces). So the map is written plainly and the code not at all.
const writeFileSync = fs.writeFileSync;
const plainTransformCache = () => {
  const transform = path.dirname(require.resolve('@jest/transform', {paths: [toolchain]}));
  const file = require.resolve('write-file-atomic', {paths: [transform]});
  const atomic = require(file);
  require.cache[file].exports = {
    ...atomic,
    sync(filename, data) {
      if (String(filename).endsWith('.map')) writeFileSync(filename, data, 'utf8');
    },
  };
};

const main = async () => {
  const hello = parse(readLine() || '{}');
  secret = typeof hello.secret === 'string' ? hello.secret : '';
  const hardened = hello.hardened !== false;

  const runtime = require('./runtime.js');
  plainTransformCache();
  environment.configure(toolchain, mark);
  runtime.configure(toolchain);
  const jestConfig = require('./jest.config.js');
  const {readConfig} = fromToolchain('jest-config');
  const runTest = require(path.join(path.dirname(require.resolve('jest-runner', {paths: [toolchain]})), 'runTest.js')).default;
  const Runtime = runtime.default;
  const {ModuleMap} = fromToolchain('jest-haste-map');
  const babelParser = fromToolchain('@babel/parser');
  jestEach = require.resolve('jest-each', {paths: [path.dirname(require.resolve('jest-circus', {paths: [toolchain]}))]});

  const config = jestConfig({
    rootDir: workRoot,
    toolchain,
    cacheDirectory: path.join(workRoot, '.jest-cache'),
    hardened,
  });
  // noStackTrace: the verdict reads each test's own failure message (its raw stack); Jest's
  // formatted summary of them, with code frames of the test file, is never shown and cost
  // ~2 ms per failing file.
  const {globalConfig, projectConfig} = await readConfig(
    {config: stringify(config), _: [], $0: 'pytest-codegen', noStackTrace: true},
    workRoot,
  );
  const resolver = Runtime.createResolver(projectConfig, ModuleMap.create(workRoot));

  // The packages a test imports, resolved from the test file, in import order. Every sample
  // of a problem is graded with the same test file at the same path (warm_runner.py): its
  // answer is remembered (~3 ms of parsing per file).
  const packagesOf = new Map(); // test path + source -> paths, oldest first
  const importedPackages = (testPath, source) => {
    const key = `${testPath}\0${source}`;
    let paths = packagesOf.get(key);
    if (paths === undefined) {
      paths = resolvePackages(testPath, source);
      packagesOf.set(key, paths);
      if (packagesOf.size > 64) packagesOf.delete(packagesOf.keys().next().value);
    }
    return paths.slice();
  };
  const focuses = source => {
    if (!FOCUS.test(source)) return false;
    let tokens;
    try {
      tokens = babelParser.parse(source, {sourceType: 'unambiguous', plugins: ['jsx'], tokens: true}).tokens;
    } catch {
      return true; // as the words read; Jest reports why it does not parse
    }
    return tokens.some((token, i) => {
      const next = tokens[i + 1];
      if (token.type.label !== 'name' || !next || !FOCUS_NEXT.has(next.type.label)) return false;
      if (token.value === 'only') return i > 0 && tokens[i - 1].type.label === '.';
      return token.value === 'fit' || token.value === 'fdescribe';
    });
  };
  const resolvePackages = (testPath, source) => {
    const specifiers = [];
    try {
      const ast = babelParser.parse(source, {sourceType: 'unambiguous', plugins: ['jsx']});
      for (const node of ast.program.body) {
        if (node.type === 'ImportDeclaration') specifiers.push(node.source.value);
        const text = node.type === 'VariableDeclaration' ? node.declarations : [];
        for (const decl of text) {
          const init = decl.init;
          if (init && init.type === 'CallExpression' && init.callee.name === 'require' &&
              init.arguments[0] && init.arguments[0].type === 'StringLiteral') {
            specifiers.push(init.arguments[0].value);
          }
        }
      }
    } catch {
      return [];
    }
    const paths = [];
    for (const spec of specifiers) {
      if (spec.startsWith('.') || spec.startsWith('/')) continue;
      try {
        const resolved = resolver.resolveModule(testPath, spec);
        if (!paths.includes(resolved)) paths.push(resolved);
      } catch {
        // the test's own import reports it
      }
    }
    return paths;
  };

  const grade = async testPath => {
    const started = now();
    marks = [];
    mark('start');
    record = newRecord();
    violations.length = 0;
    attemptLog.start();
    let source = '';
    try {
      source = fs.readFileSync(testPath, 'utf8');
    } catch (error) {
      return {fatal: `cannot read the test file: ${error.message}`};
    }
    record.modules = hardened ? importedPackages(testPath, source) : [];
    record.focus = focuses(source);
    mark('parsed');
    const rec = record;
    if (hardened) environment.offer(makeChannel(rec));
    let result;
    try {
      result = await runTest(
        testPath,
        globalConfig,
        projectConfig,
        resolver,
        {changedFiles: undefined, sourcesRelatedToTestsInChangedFiles: undefined},
        () => {},
      );
    } catch (error) {
      result = {testExecError: {message: String(error && error.stack ? error.stack : error)}, testResults: []};
    }
    record = null;
    mark('ran');
    if (hardened) {
      const timers = environment.takeTimerViolation();
      if (timers) violations.push(timers);
      const changed = runtime.changedCore();
      if (changed.length) violations.push(`a core module was changed: ${changed.slice(0, 3).join(', ')}`);
      if (changed.length) attemptLog.note('patching', `changed the core modules' ${changed.slice(0, 3).join(', ')}`);
      const handlers = changedHandlers();
      if (handlers.length) violations.push(`the runner's error handling was changed: ${handlers.join(', ')}`);
      if (handlers.length) attemptLog.note('patching', `changed the runner's ${handlers.join(', ')}`);
      const shared = runtime.changedShared();
      if (shared.length) violations.push(`a class every window shares was changed: ${shared.slice(0, 3).join(', ')}`);
      if (shared.length) attemptLog.note('patching', `changed ${shared.slice(0, 3).join(', ')}`);
      if (timers) attemptLog.note('patching', timers);
    }
    const circus = [];
    for (const test of result.testResults || []) {
      circus.push({
        name: asText(test.fullName || test.title || ''),
        status: asText(test.status),
        message: cap((test.failureMessages || []).map(String).join('\n'), MESSAGE_CAP),
      });
    }
    const consoleText = (result.console || [])
      .map(entry => `console.${entry.type}: ${entry.message}`)
      .join('\n');
    const execError = result.testExecError
      ? cap(String(result.testExecError.message || result.testExecError.stack || 'test suite failed to run'), MESSAGE_CAP)
      : '';
    mark('checked');
    return {
      guard: hardened ? {ready: rec.ready, tests: rec.tests.filter(Boolean), registered: rec.tests.length,
        unverified: rec.unverified, hookAssertions: rec.hookAssertions, focus: rec.focus} : null,
      circus,
      execError,
      failureMessage: cap(String(result.failureMessage || ''), MESSAGE_CAP),
      console: cap(consoleText, CONSOLE_CAP),
      violations: violations.slice(0, 20),
      attempts: attemptLog.take(),
      resources: activeResources().length,
      durationMs: now() - started,
      profile: {...profile(), jest: (result.testResults || []).reduce((sum, t) => sum + (Number(t.duration) || 0), 0)},
    };
  };

  if (hardened) harden();
  if (typeof hello.warmup === 'string' && hello.warmup) {
    // Loads every module a React test needs, so lockdown() can freeze them all.
    const warm = await grade(hello.warmup);
    answer({warmup: warm});
  }
  if (hardened) {
    lockdown(runtime);
    runtime.sealCore();
    prepareStackTrace = Error.prepareStackTrace;
  }
  answer({ready: true, pid: process.pid, node: process.version, resources: activeResources().length});

  for (;;) {
    const line = readLine();
    if (line === null) break;
    let request;
    try {
      request = parse(line);
    } catch {
      continue;
    }
    const result = await grade(String(request.test));
    result.id = request.id;
    answer(result);
  }
  realExit(0);
};

main().catch(error => {
  try {
    answer({fatal: String(error && error.stack ? error.stack : error)});
  } finally {
    realExit(70);
  }
});
