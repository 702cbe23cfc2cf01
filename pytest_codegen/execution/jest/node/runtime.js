'use strict';
// jest-runtime, minus module mocking for the code under test, plus what a long-lived runner
// can keep from one test file to the next without one sample reaching another: the toolchain's
// sources and compiled scripts, and the frozen exports of pure packages (see below).
//
// Every module Jest loads gets its own `jest` object. A solution that calls `jest.mock(...)` at
// import time could swap a package the test imports after it (fetch-mock, Testing Library) for
// a fake that agrees with everything. Only the test file itself (and files outside the
// sample's directory: our guard, installed packages) keep the mocking API.

const path = require('path');
const {featureKey} = require('./transformer.js');
const attemptLog = require('./attempt_log.js');
const {share, viewFor, sampleCache} = require('./shared_view.js');

// What the code under test may not do with its `jest` object: mock modules, or drive the
// test file's clock (a sample that sets the fake clock to the date it prints would pass a
// test that checks it against `new Date()`). Test files keep every one of them.
const DENIED = [
  'autoMockOn',
  'deepUnmock',
  'doMock',
  'dontMock',
  'enableAutomock',
  'isolateModules',
  'isolateModulesAsync',
  'mock',
  'resetModules',
  'retryTimes',
  'setMock',
  'unmock',
  'useFakeTimers',
  'useRealTimers',
  'setSystemTime',
  'advanceTimersByTime',
  'advanceTimersByTimeAsync',
  'advanceTimersToNextTimer',
  'advanceTimersToNextTimerAsync',
  'advanceTimersToNextFrame',
  'runAllTimers',
  'runAllTimersAsync',
  'runOnlyPendingTimers',
  'runOnlyPendingTimersAsync',
  'runAllTicks',
  'runAllImmediates',
  'clearAllTimers',
];

// Core modules that hand out a require() of the runner's own realm. With one, code under test
// could reach Node's module cache, and through it the Jest modules this process grades every
// later sample with (patch jest-runtime, and the next sample "passes"). `module` is replaced by
// the one thing the toolchain reads from it (stack-utils: builtinModules); the rest are refused.
const REFUSED_CORE = new Set(['repl', 'inspector', 'worker_threads', 'cluster']);
let moduleView = null;

function refuseCore(name) {
  attemptLog.note('introspection', `require('${name}'), which would reach the runner's own modules`);
  const error = new Error(`require('${name}') is not available to the code under test`);
  error.code = 'ERR_ACCESS_DENIED';
  throw error;
}

// Core modules are not per file: `require('fs')` in a test's window is this process's own fs,
// which Jest and this runner read every later test file with. Freezing them breaks packages
// that patch them once (graceful-fs), so instead each one's methods are fingerprinted - after
// the warm-up, or when code under test first asks for one after that - and changedCore() names
// what differs: the runner then counts it as a violation and is replaced.
const coreBaseline = new Map(); // module exports -> {name, marks}
let coreSealed = false;

// The identity of every non-primitive own property of `object`, two levels down (`fs.promises`
// and its methods, a class and its prototype's methods).
function fingerprint(object) {
  const marks = [];
  const seen = new Set();
  const mark = (target, prefix, depth) => {
    seen.add(target);
    for (const key of Reflect.ownKeys(target)) {
      const desc = Reflect.getOwnPropertyDescriptor(target, key);
      const name = `${prefix}${String(key)}`;
      if (!('value' in desc)) {
        marks.push([name, desc.get, desc.set]);
        continue;
      }
      const value = desc.value;
      if (value === null || (typeof value !== 'object' && typeof value !== 'function')) continue;
      marks.push([name, value, desc.writable]);
      if (depth === 0 || seen.has(value)) continue;
      if (typeof value === 'object') mark(value, `${name}.`, depth - 1);
      else if (value.prototype && typeof value.prototype === 'object' && !seen.has(value.prototype)) {
        mark(value.prototype, `${name}.prototype.`, depth - 1);
      }
    }
  };
  mark(object, '', 1);
  if (typeof object === 'function' && object.prototype) mark(object.prototype, 'prototype.', 1);
  return marks;
}

function watchCore(name, exports) {
  if (exports === null || (typeof exports !== 'object' && typeof exports !== 'function')) return;
  if (coreBaseline.has(exports)) return;
  coreBaseline.set(exports, {name, marks: coreSealed ? fingerprint(exports) : null});
  // `fs.promises` and its kind are getters, which fingerprint() does not call: watch what
  // they return as modules of their own.
  const promises = Reflect.getOwnPropertyDescriptor(exports, 'promises');
  if (promises && promises.get) {
    try {
      watchCore(`${name}.promises`, promises.get.call(exports));
    } catch {
      // not available here
    }
  }
}

function sealCore() {
  coreSealed = true;
  for (const [exports, entry] of coreBaseline) entry.marks = fingerprint(exports);
}

// What jsdom shares between windows but cannot have frozen (page_classes.js), fingerprinted
// from the end of the warm-up on.
const sharedBaseline = new Map(); // object -> {name, marks}
function watchShared(name, object) {
  sharedBaseline.set(object, {name, marks: fingerprint(object)});
}

const changedCore = () => changedIn(coreBaseline);
const changedShared = () => changedIn(sharedBaseline);

// `name.key` for each property that differs from the fingerprint taken of its object.
function changedIn(baseline) {
  const changed = [];
  for (const [exports, {name, marks}] of baseline) {
    if (marks === null) continue;
    const now = fingerprint(exports);
    // Property order is stable: an unchanged module matches mark for mark.
    if (now.length === marks.length &&
        now.every(([key, a, b], i) => key === marks[i][0] && a === marks[i][1] && b === marks[i][2])) {
      continue;
    }
    const before = new Map(marks.map(([key, a, b]) => [key, [a, b]]));
    for (const [key, a, b] of now) {
      const old = before.get(key);
      if (!old || old[0] !== a || old[1] !== b) changed.push(`${name}.${key}`);
      before.delete(key);
    }
    for (const key of before.keys()) changed.push(`${name}.${key} (deleted)`);
  }
  return changed;
}

let Runtime = null;

// Files no sample can change (the toolchain's packages, our own modules) are read and compiled
// once per runner process instead of once per test file. A vm.Script is bound to no context:
// the one compiled for a file is run again in every later test file's window, so V8 keeps the
// functions it compiled and never hashes or deserializes the source again (~1 ms per MB of
// source when a new string is compiled, even from a code cache). Each test file still
// evaluates every module afresh in its own jsdom; only the bytes and the compiled code are
// shared.
const sources = new Map(); // filename -> source text
const transforms = new Map(); // filename + transform options -> Jest's transform result
const scripts = new Map(); // filename -> {source, script}
let activeRuntime = null; // the runtime of the test file being run: dynamic import()s go there

// Packages that are pure data and pure functions, evaluated once in the runner's realm, frozen
// to the last reachable object, and handed to every test file instead of being evaluated again
// in its window. Per file this saves ~15 ms for aria-query (149 modules of ARIA role tables the
// Testing Library reads), ~8 ms for tr46 (the Unicode tables of node-fetch's and fetch-mock's
// URL parsers) and ~6 ms for lodash's isEqualWith (89 modules; jest-dom compares form values
// with it). Frozen, nothing a sample does to them reaches the next file; a sample's own modules
// are handed a view that notes its writes (shared_view.js).
// Each entry names the module (`via`: the packages it is found from, in turn) and the roots of
// its state: its exports, and what its functions hold in closures (each aria-query map's
// `entries()` returns the very array its other methods read; tr46 reads its mapping table).
// A module whose state reaches anything but plain objects, arrays and functions (a Map, a
// Set, a class instance: state freezing cannot protect) is not shared but evaluated per file.
const SHARED_MODULES = [
  {
    module: 'aria-query',
    via: [],
    state: exports => [
      exports,
      ...['aria', 'dom', 'elementRoles', 'roleElements', 'roles'].map(name => exports[name].entries()),
    ],
  },
  // node-fetch's URL parser, and fetch-mock's, which has its own, newer tr46
  ...['node-fetch', 'fetch-mock'].map(user => ({
    module: 'tr46',
    via: [user, 'whatwg-url'],
    state: (exports, load) => [exports, load('./lib/mappingTable.json')],
  })),
  {module: 'lodash/isEqualWith.js', via: ['@testing-library/jest-dom'], state: exports => [exports]},
];
const shared = new Map(); // resolved path -> frozen exports, or null when not shareable

// Freezes everything reachable from `roots` through own properties. Only plain objects, arrays
// and plain functions are accepted: their prototypes are this realm's intrinsics, which
// runner.js's lockdown() freezes. Returns what it froze, or null, having frozen nothing, for
// anything else.
function deepFreeze(roots) {
  const PLAIN = new Set([null, Object.prototype, Array.prototype, Function.prototype]);
  const INTRINSIC = new Set([Object.prototype, Array.prototype, Function.prototype, Object, Array, Function]);
  const seen = new Set();
  const stack = [...roots];
  while (stack.length) {
    const value = stack.pop();
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) continue;
    if (seen.has(value) || INTRINSIC.has(value)) continue;
    if (!PLAIN.has(Object.getPrototypeOf(value))) return null;
    seen.add(value);
    for (const key of Reflect.ownKeys(value)) {
      const desc = Reflect.getOwnPropertyDescriptor(value, key);
      if ('value' in desc) stack.push(desc.value);
      else stack.push(desc.get, desc.set);
    }
  }
  for (const value of seen) Object.freeze(value);
  return seen;
}

function sharedExports(modulePath, {module, state: stateOf}) {
  if (!shared.has(modulePath)) {
    const exports = require(modulePath);
    const load = relative => require(path.resolve(path.dirname(modulePath), relative));
    const state = deepFreeze(stateOf(exports, load));
    shared.set(modulePath, state === null ? null : exports);
    // a sample's own modules get a view that notes its writes (shared_view.js)
    if (state !== null) share(module, exports, state);
  }
  return shared.get(modulePath);
}

// Where `module` resolves from the last of the `via` packages, each found from the one before;
// null if the toolchain has no such module (then nothing is shared for it).
function resolveShared(toolchain, {module, via}) {
  try {
    let from = toolchain;
    for (const name of via) from = path.dirname(require.resolve(name, {paths: [from]}));
    return require.resolve(module, {paths: [from]});
  } catch {
    return null;
  }
}

// What a module's transform depends on besides its (unchanging) file: the options Jest passes.
const transformKey = (filename, options) => `${filename}\0${featureKey(options ?? {})}`;

// jest-resolve keys its caches on strings it builds on every call (the path, the name, the
// options as JSON): ~4 ms per test file of string building and hashing for the same ~1,000
// requires each time. For a module inside the toolchain, whose files never change, the answer
// is remembered here in maps keyed by the strings Jest already holds. Only plain options
// (`{conditions}`, what jest-runtime passes) are remembered; anything else goes through as is.
const optionKeys = new WeakMap(); // a runtime's conditions array -> its key
function optionsKey(options) {
  if (options === undefined) return '';
  const conditions = options.conditions;
  let key = optionKeys.get(conditions);
  if (key === undefined) {
    const keys = Object.keys(options);
    if (keys.length !== 1 || keys[0] !== 'conditions' || !Array.isArray(conditions)) return null;
    key = conditions.join('\u0001');
    optionKeys.set(conditions, key);
  }
  return key;
}

function memoizeResolver(resolver, trusted) {
  const proto = Object.getPrototypeOf(resolver);
  // The answers remembered for (from, name), or null when they are not to be remembered.
  const slot = (memo, from, name) => {
    if (typeof from !== 'string' || typeof name !== 'string') return null;
    let byName = memo.get(from);
    if (byName === undefined) {
      // a sample's files are not remembered: each sample has a directory of its own
      if (!trusted(from)) return null;
      memo.set(from, (byName = new Map()));
    }
    let byOptions = byName.get(name);
    if (byOptions === undefined) byName.set(name, (byOptions = new Map()));
    return byOptions;
  };
  // Plain functions, not one generic wrapper: these run ~5,000 times per test file.
  const ids = new Map(); // from -> name -> options key -> answer
  resolver.getModuleID = function getModuleID(virtualMocks, from, name = '', options) {
    // Jest's own cache key leaves out the virtual mocks too.
    const key = optionsKey(options);
    const answers = key === null ? null : slot(ids, from, name);
    if (answers === null) return proto.getModuleID.call(resolver, virtualMocks, from, name, options);
    let id = answers.get(key);
    if (id === undefined) answers.set(key, (id = proto.getModuleID.call(resolver, virtualMocks, from, name, options)));
    return id;
  };
  const paths = new Map();
  resolver.resolveModule = function resolveModule(from, name, options) {
    const key = optionsKey(options);
    const answers = key === null ? null : slot(paths, from, name);
    if (answers === null) return proto.resolveModule.call(resolver, from, name, options);
    let found = answers.get(key);
    // throws, remembering nothing, when the module does not exist
    if (found === undefined) answers.set(key, (found = proto.resolveModule.call(resolver, from, name, options)));
    return found;
  };
  const mocks = new Map();
  resolver.getMockModule = function getMockModule(from, name) {
    const answers = slot(mocks, from, name);
    if (answers === null) return proto.getMockModule.call(resolver, from, name);
    if (!answers.has('')) answers.set('', proto.getMockModule.call(resolver, from, name));
    return answers.get('');
  };
  return resolver;
}

// An object built when it is first used, behind a forwarding Proxy (a callable one for a
// `callable` object). `known` answers some reads without building it (the `__esModule` a
// module's importer checks at load time).
function lazyObject(build, {known = {}, callable = false} = {}) {
  let real = null;
  const target = () => (real ??= build());
  // an arrow function has no non-configurable own property a proxy would have to report
  return new Proxy(callable ? () => {} : Object.create(null), {
    get: (_, key) => (real === null && Object.hasOwn(known, key) ? known[key] : Reflect.get(target(), key)),
    set: (_, key, value) => Reflect.set(target(), key, value),
    has: (_, key) => Reflect.has(target(), key),
    deleteProperty: (_, key) => Reflect.deleteProperty(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, key) => {
      const desc = Reflect.getOwnPropertyDescriptor(target(), key);
      // a proxy may not report a property its (empty) target lacks as non-configurable
      if (desc) desc.configurable = true;
      return desc;
    },
    defineProperty: (_, key, desc) => Reflect.defineProperty(target(), key, desc),
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
    apply: (_, self, args) => Reflect.apply(target(), self, args),
  });
}

// Packages Jest's in-window framework requires at load time but uses only in a configuration we
// never grade with, or only to format a failure; each test file evaluated them all the same (93
// of its ~420 modules). They are now loaded on first use, by the module that required them:
// `by` (a file of the toolchain, as the end of its path) requiring `module`. `esModule` is what
// the package's exports say to Babel's import interop, which asks at load time, and `callable`
// whether they are a function (tests/test_jest_runner.py checks both).
const LAZY_REQUIRES = [
  // writing inline snapshots: never in CI mode
  {by: '/jest-snapshot/build/InlineSnapshots.js', module: 'semver', esModule: undefined},
  // `randomize`: test order is never shuffled
  {by: '/jest-circus/build/shuffleArray.js', module: 'pure-rand', esModule: true},
  // a custom `snapshotResolver`: none is configured
  {by: '/jest-snapshot/build/SnapshotResolver.js', module: '@jest/transform', esModule: true},
  // stack traces: highlighting test files (never with `noStackTrace`) and code frames
  {by: '/jest-message-util/build/index.js', module: 'micromatch', esModule: undefined, callable: true},
  {by: '/jest-message-util/build/index.js', module: '@babel/code-frame', esModule: true},
];
const lazyRequire = (from, to) =>
  LAZY_REQUIRES.find(spec => spec.module === to && from.endsWith(spec.by));

function configure(toolchain) {
  const Base = require(require.resolve('jest-runtime', {paths: [toolchain]})).default;
  const {Script} = require('vm');
  const trustedRoots = [path.join(toolchain, 'node_modules') + path.sep, __dirname + path.sep];
  const trusted = filename => trustedRoots.some(root => filename.startsWith(root));
  const sharedPaths = new Map(SHARED_MODULES.map(spec => [resolveShared(toolchain, spec), spec]));
  sharedPaths.delete(null);
  Runtime = class GuardedRuntime extends Base {
    static createResolver(config, moduleMap) {
      return memoizeResolver(super.createResolver(config, moduleMap), trusted);
    }

    constructor(...args) {
      super(...args);
      this._lazyRequires = new Map(); // from + name -> the proxy its LAZY_REQUIRES entry gets
      activeRuntime = this;
    }

    readFile(filename) {
      if (!trusted(filename)) return super.readFile(filename);
      let source = sources.get(filename);
      if (source === undefined) {
        source = super.readFile(filename);
        sources.set(filename, source);
      }
      return source;
    }

    // Jest stats every module of every test file to key its transform cache on the mtime;
    // a toolchain file cannot change, so its transform is looked up by name alone.
    transformFile(filename, options) {
      if (options?.isInternalModule || !trusted(filename)) return super.transformFile(filename, options);
      const key = transformKey(filename, options);
      let transformed = transforms.get(key);
      if (transformed === undefined) {
        transformed = this._scriptTransformer.transform(
          filename,
          this._getFullTransformationOptions(options),
          this.readFile(filename),
        );
        transforms.set(key, transformed);
      }
      this._fileTransforms.set(filename, {...transformed, wrapperLength: this.constructModuleWrapperStart().length});
      if (transformed.sourceMapPath) this._sourceMapRegistry.set(filename, transformed.sourceMapPath);
      return transformed.code;
    }

    createScriptFromCode(scriptSource, filename) {
      if (!trusted(filename)) return super.createScriptFromCode(scriptSource, filename);
      const known = scripts.get(filename);
      if (known && known.source === scriptSource) return known.script;
      const script = new Script(this.wrapCodeInModuleWrapper(scriptSource), {
        columnOffset: this._fileTransforms.get(filename)?.wrapperLength,
        displayErrors: true,
        filename,
        // as Jest's own (runtime.createScriptFromCode), in whichever file runs the script
        importModuleDynamically: async specifier => {
          const runtime = activeRuntime;
          const context = runtime?._environment.getVmContext?.();
          if (!context) throw new Error('Test environment has been torn down');
          const module = await runtime.resolveModule(specifier, filename, context);
          return runtime.linkAndEvaluateModule(module);
        },
      });
      scripts.set(filename, {source: scriptSource, script});
      return script;
    }

    requireInternalModule(from, to) {
      const lazy = typeof to === 'string' && trusted(from) ? lazyRequire(from, to) : undefined;
      if (lazy === undefined) return super.requireInternalModule(from, to);
      const key = `${from}\0${to}`;
      let exports = this._lazyRequires.get(key);
      if (exports === undefined) {
        exports = lazyObject(() => super.requireInternalModule(from, to), {
          known: {__esModule: lazy.esModule},
          callable: lazy.callable,
        });
        this._lazyRequires.set(key, exports);
      }
      return exports;
    }

    _requireCoreModule(moduleName, supportPrefix) {
      const name = moduleName.startsWith('node:') ? moduleName.slice(5) : moduleName;
      if (name === 'module') {
        moduleView ??= Object.freeze({
          builtinModules: Object.freeze([...require('module').builtinModules]),
        });
        return moduleView;
      }
      if (REFUSED_CORE.has(name)) refuseCore(moduleName);
      const exports = super._requireCoreModule(moduleName, supportPrefix);
      watchCore(name, exports);
      return exports;
    }

    requireModule(from, moduleName, options, isRequireActual) {
      const exports = super.requireModule(from, moduleName, options, isRequireActual);
      const view = viewFor(exports);
      // the toolchain's own requires get the exports themselves: grading pays nothing
      if (view === undefined || options?.isInternalModule || (typeof from === 'string' && trusted(from))) {
        return exports;
      }
      return view;
    }

    _createRequireImplementation(from, options) {
      const moduleRequire = super._createRequireImplementation(from, options);
      if (!options?.isInternalModule && !trusted(from.filename)) {
        moduleRequire.cache = sampleCache(moduleRequire.cache, trusted);
      }
      return moduleRequire;
    }

    _loadModule(localModule, from, moduleName, modulePath, options, moduleRegistry) {
      if (!options?.isInternalModule && sharedPaths.has(modulePath)) {
        const exports = sharedExports(modulePath, sharedPaths.get(modulePath));
        if (exports !== null) {
          localModule.exports = exports;
          localModule.loaded = true;
          return;
        }
      }
      super._loadModule(localModule, from, moduleName, modulePath, options, moduleRegistry);
    }

    _createJestObjectFor(from) {
      // Every module gets its own `jest` object (~60 closures); the toolchain's ~380 per test
      // file almost never look past `typeof jest`, and building them all cost ~1.5 ms per file.
      // A sample's modules get theirs eagerly, frozen, below.
      if (trusted(from)) return lazyObject(() => super._createJestObjectFor(from));
      const jestObject = super._createJestObjectFor(from);
      const testPath = this._testPath;
      if (!testPath || from === testPath) return jestObject;
      const sampleDir = path.dirname(testPath) + path.sep;
      if (!from.startsWith(sampleDir) || from.includes(`${path.sep}node_modules${path.sep}`)) {
        return jestObject;
      }
      for (const name of DENIED) {
        const denied = () => {
          attemptLog.note('patching', `jest.${name}() from the code under test`);
          throw new Error(`jest.${name}() is not available to the code under test`);
        };
        Object.defineProperty(jestObject, name, {value: denied, writable: false, configurable: false});
      }
      return Object.freeze(jestObject);
    }
  };
}

module.exports = {
  __esModule: true,
  configure,
  sealCore,
  changedCore,
  watchShared,
  changedShared,
  deepFreeze,
  SHARED_MODULES,
  LAZY_REQUIRES,
  get default() {
    return Runtime;
  },
};
