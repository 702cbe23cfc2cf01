'use strict';
// Runs inside the test's window (setupFilesAfterEnv) before the test file, and therefore before
// the sample the test imports. The sample shares this JavaScript realm with its test, so
// everything the verdict relies on is captured or locked here first:
//
// - the runner's channel is taken off the window: only this module can report results;
// - `test`/`it`/`describe`/hooks/`expect`/`jest` become non-writable, non-configurable
//   globals; `test` records every registration and wraps the body, so the runner learns from
//   *this* module (not from Jest's own bookkeeping, which lives in the same realm) which tests
//   exist, which ones started, and how each body settled - observed with a `then` captured
//   before the sample existed;
// - the packages the test imports are loaded now (same order as the test) and their exported
//   surface is locked: `screen.getByText = ...` or `fetchMock.calls = ...` fail;
// - expect's matcher table and equality testers are frozen;
// - the built-in objects (Object, Array, Promise, ...) and the DOM interfaces are frozen, and
//   DOM nodes cannot be given look-alike own properties or prototypes.

const G = globalThis;
const CHANNEL_KEY = '__pytestCodegenChannel';
const channel = G[CHANNEL_KEY];
delete G[CHANNEL_KEY];
if (typeof channel !== 'function') {
  throw new Error('pytest-codegen: the runner channel is missing (runner/guard mismatch)');
}

// ---- captured before any untrusted code runs ------------------------------------------------
const R = Reflect;
const {apply, defineProperty: reflectDefine, getOwnPropertyDescriptor: gopd, ownKeys} = R;
const getProto = R.getPrototypeOf;
const freeze = Object.freeze;
const isFrozen = Object.isFrozen;
const objectPrototype = Object.prototype;
const functionPrototype = Function.prototype;
const uncurry = fn => functionPrototype.call.bind(fn);
const promiseThen = uncurry(Promise.prototype.then);
const PromiseCtor = Promise;
const ProxyCtor = Proxy;
const StringCtor = String;
const arrayPush = uncurry(Array.prototype.push);
const arrayPop = uncurry(Array.prototype.pop);
const arrayJoin = uncurry(Array.prototype.join);
const isPrototypeOf = uncurry(objectPrototype.isPrototypeOf);
const hasOwn = uncurry(objectPrototype.hasOwnProperty);

// On a vm context's global, a partial descriptor reaches jsdom's window object with
// `value: undefined`: always restate the whole property.
const lockGlobal = key => {
  const desc = gopd(G, key);
  if (!desc || !desc.configurable) return;
  if ('value' in desc) {
    reflectDefine(G, key, {value: desc.value, writable: false, enumerable: desc.enumerable, configurable: false});
  } else {
    reflectDefine(G, key, {get: desc.get, set: desc.set, enumerable: desc.enumerable, configurable: false});
  }
};

const safeString = value => {
  try {
    return typeof value === 'string' ? value : StringCtor(value);
  } catch {
    return '<unprintable>';
  }
};

const errorInfo = error => {
  // Classifies a test body's failure; any getter here is the test's own error object.
  let name = '';
  let message = '';
  let assertion = false;
  try {
    name = error && typeof error.name === 'string' ? error.name : typeof error;
    message = error && typeof error.message === 'string' ? error.message : safeString(error);
    assertion = !!(error && typeof error === 'object' && hasOwn(error, 'matcherResult'));
  } catch {
    // an exotic throwable: keep the defaults
  }
  return {name, message, assertion};
};

// ---- 1. load the packages the test imports, in its order, then lock what they export -------
const modulePaths = channel('modules');
const loaded = [];
for (let i = 0; i < modulePaths.length; i++) {
  try {
    arrayPush(loaded, require(modulePaths[i]));
  } catch {
    // The test's own import will fail the same way and report it.
  }
}

const lockMethods = (target, walkPrototypes) => {
  // Function-valued properties become own, non-writable, non-configurable ones.
  if (target === null || (typeof target !== 'object' && typeof target !== 'function')) return;
  let source = target;
  const seen = [];
  while (source !== null && source !== objectPrototype && source !== functionPrototype) {
    const keys = ownKeys(source);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (key === 'constructor' || key === 'prototype' || seen.includes(key)) continue;
      arrayPush(seen, key);
      const desc = gopd(source, key);
      if (!desc || !('value' in desc) || typeof desc.value !== 'function') continue;
      const own = source === target ? desc : gopd(target, key);
      if (own && own.configurable === false && own.writable === false) continue;
      try {
        reflectDefine(target, key, {value: desc.value, writable: false, configurable: false});
      } catch {
        // a non-extensible object: nothing can be added to it either
      }
    }
    if (!walkPrototypes) break;
    source = getProto(source);
  }
};

const pinAll = target => {
  // a module namespace (Babel's __esModule exports): every binding becomes read-only
  const keys = ownKeys(target);
  for (let i = 0; i < keys.length; i++) {
    const desc = gopd(target, keys[i]);
    if (!desc || !desc.configurable) continue;
    if ('value' in desc) desc.writable = false;
    desc.configurable = false;
    try {
      reflectDefine(target, keys[i], desc);
    } catch {
      // ignore
    }
  }
};

const lockExports = exported => {
  if (exported === null || (typeof exported !== 'object' && typeof exported !== 'function')) {
    return;
  }
  const keys = ownKeys(exported);
  for (let i = 0; i < keys.length; i++) {
    const desc = gopd(exported, keys[i]);
    let value;
    if (!desc) continue;
    if ('value' in desc) value = desc.value;
    else if (desc.get) {
      try {
        value = desc.get.call(exported);
      } catch {
        continue;
      }
    }
    // Plain objects (screen, the fetch-mock instance) get their methods pinned, inherited ones
    // included; functions (fireEvent) their own function-valued properties. Their data stays
    // writable: fetch-mock keeps its routes and call history there.
    if (value && typeof value === 'object') lockMethods(value, true);
    else if (typeof value === 'function') lockMethods(value, false);
  }
  if (typeof exported === 'function' || exported.__esModule === true) pinAll(exported);
  else lockMethods(exported, true);
};
for (let i = 0; i < loaded.length; i++) lockExports(loaded[i]);

// ---- 2. expect: frozen matcher table, a counting proxy, no extend ----------------------------
const MATCHERS = Symbol.for('$$jest-matchers-object');
const matchersObject = G[MATCHERS];
if (matchersObject) {
  freeze(matchersObject.matchers);
  if (matchersObject.customEqualityTesters) freeze(matchersObject.customEqualityTesters);
  reflectDefine(matchersObject, 'matchers', {writable: false, configurable: false});
  reflectDefine(matchersObject, 'customEqualityTesters', {writable: false, configurable: false});
  lockGlobal(MATCHERS);
}

let current = -1; // index of the running test body, -1 between bodies

const realExpect = G.expect;
const countAssertion = (ok, result) => {
  channel('assert', current, ok ? 'pass' : 'fail');
  return result;
};
// A fresh promise that follows the native promise `result` through the captured `then`
// (the sample cannot intercept it): `onValue(value)` resolves it, `onError(error)` runs
// before it rejects. Throws when `result` is not a native promise.
const follow = (result, onValue, onError) => {
  let resolveOuter;
  let rejectOuter;
  const outer = new PromiseCtor((resolve, reject) => {
    resolveOuter = resolve;
    rejectOuter = reject;
  });
  promiseThen(
    result,
    value => resolveOuter(onValue(value)),
    error => {
      onError(error);
      rejectOuter(error);
    },
  );
  return outer;
};
const wrapMatcher = matcher =>
  function matcherCall(...args) {
    let result;
    try {
      result = apply(matcher, this, args);
    } catch (error) {
      countAssertion(false);
      throw error;
    }
    if (result !== null && typeof result === 'object') {
      // .resolves/.rejects matchers return native promises
      try {
        return follow(result, value => countAssertion(true, value), () => countAssertion(false));
      } catch {
        return countAssertion(true, result);
      }
    }
    return countAssertion(true, result);
  };
const matcherProxyHandler = {
  get(target, key) {
    const value = target[key];
    if (typeof value === 'function') return wrapMatcher(value);
    if (value !== null && typeof value === 'object') return new ProxyCtor(value, matcherProxyHandler);
    return value;
  },
};
const guardedExpect = function expect(...args) {
  return new ProxyCtor(apply(realExpect, this, args), matcherProxyHandler);
};
{
  const keys = ownKeys(realExpect);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === 'length' || key === 'name' || key === 'prototype') continue;
    const desc = gopd(realExpect, key);
    if (key === 'extend' || key === 'addEqualityTesters' || key === 'addSnapshotSerializer') {
      desc.value = function denied() {
        throw new Error(`expect.${safeString(key)}() is locked by the grader`);
      };
      delete desc.get;
      delete desc.set;
    }
    if ('value' in desc) desc.writable = false;
    desc.configurable = false;
    reflectDefine(guardedExpect, key, desc);
  }
  freeze(guardedExpect);
}

// ---- 3. test / it / describe record what the test file declares ------------------------------
// The describe blocks around the test being declared: their names, and the mode each one has
// as jest-circus gives it (its own `only`/`skip`, else its parent's), with a number of its own.
const describeStack = [];
let registered = 0;
let describes = 0;

const settle = (index, error) => {
  current = -1;
  if (error === undefined) {
    channel('end', index, 'ok');
    return;
  }
  const info = errorInfo(error);
  channel('end', index, info.assertion ? 'assertion' : 'exception', info.name, info.message);
};

const wrapBody = (index, body) => {
  if (typeof body !== 'function') return body;
  const run = (self, args) => {
    channel('start', index);
    current = index;
    let result;
    try {
      result = apply(body, self, args);
    } catch (error) {
      settle(index, error);
      throw error;
    }
    try {
      // Jest's own bookkeeping shares the realm with the sample; this reaction does not.
      return follow(
        result,
        value => {
          settle(index);
          return value;
        },
        error => settle(index, error === undefined ? null : error),
      );
    } catch {
      // not a native promise
    }
    if (result !== undefined && result !== null && typeof result.then === 'function') {
      channel('unverified', index, 'the test body returned a non-native thenable');
      return result;
    }
    settle(index);
    return result;
  };
  if (body.length > 0) {
    // done-callback style: Jest looks at the arity
    return function testBodyWithDone(done) {
      const guardedDone = error => {
        settle(index, error === undefined || error === null ? undefined : error);
        return done(error);
      };
      channel('start', index);
      current = index;
      try {
        return apply(body, this, [guardedDone]);
      } catch (error) {
        settle(index, error);
        throw error;
      }
    };
  }
  return function testBody(...args) {
    return run(this, args);
  };
};

const titleOf = name => {
  if (typeof name === 'function') return safeString(name.name);
  return safeString(name);
};

// `failing`: a test.failing, which passes when its body throws (verdicts.py).
const makeTest = (real, mode, failing = false) =>
  function test(name, body, timeout, ...rest) {
    const index = registered++;
    const path = [];
    for (let i = 0; i < describeStack.length; i++) arrayPush(path, describeStack[i].name);
    arrayPush(path, titleOf(name));
    // where it is declared, for the verdict to know whether Jest may skip it (verdicts.py)
    const block = describeStack.length ? describeStack[describeStack.length - 1] : {mode: '', id: 0};
    channel('test', index, arrayJoin(path, ' '), mode, block.mode, block.id, failing);
    if (mode === 'skip' || mode === 'todo') return apply(real, this, arguments);
    // the rest: the error a table of failing cases passes along (jest-each's needsEachError)
    return apply(real, this, [name, wrapBody(index, body), timeout, ...rest]);
  };

const makeDescribe = (real, mode) =>
  function describe(name, body, ...rest) {
    const parent = describeStack.length ? describeStack[describeStack.length - 1].mode : '';
    const block = {name: titleOf(name), mode: mode || parent, id: ++describes};
    const wrapped =
      typeof body === 'function'
        ? function describeBody(...args) {
            arrayPush(describeStack, block);
            try {
              return apply(body, this, args);
            } finally {
              arrayPop(describeStack);
            }
          }
        : body;
    return apply(real, this, [name, wrapped, ...rest]);
  };

let eachBind = null;
try {
  // the same helper Jest builds test.each from, bound to our recording `test`
  eachBind = require(channel('each')).bind;
} catch {
  eachBind = null;
}

// Every way jest-circus has to declare a test records it: its modes, `failing` tests and
// `concurrent` ones (started together, each body still observed on its own), and their tables
// of cases, bound as jest-circus binds them (done callbacks only for plain tests).
const buildTest = realTest => {
  const variant = (real, mode, failing = false, supportsDone = !failing) => {
    const recorder = makeTest(real, mode, failing);
    if (real.each) recorder.each = eachBind ? eachBind(recorder, supportsDone, failing) : real.each;
    return recorder;
  };
  const test = variant(realTest, 'run');
  const only = variant(realTest.only, 'only');
  const skip = variant(realTest.skip, 'skip');
  only.failing = freeze(variant(realTest.only.failing, 'only', true));
  skip.failing = freeze(variant(realTest.skip.failing, 'skip', true));
  const realConcurrent = realTest.concurrent;
  const concurrent = variant(realConcurrent, 'run', false, false);
  const concurrentOnly = variant(realConcurrent.only, 'only', false, false);
  concurrentOnly.failing = freeze(variant(realConcurrent.only.failing, 'only', true));
  concurrent.only = freeze(concurrentOnly);
  concurrent.skip = skip;
  concurrent.failing = freeze(variant(realConcurrent.failing, 'run', true));
  test.failing = freeze(variant(realTest.failing, 'run', true));
  test.concurrent = freeze(concurrent);
  test.only = freeze(only);
  test.skip = freeze(skip);
  test.todo = freeze(makeTest(realTest.todo, 'todo'));
  return freeze(test);
};

const buildDescribe = realDescribe => {
  const describe = makeDescribe(realDescribe, '');
  const only = makeDescribe(realDescribe.only, 'only');
  const skip = makeDescribe(realDescribe.skip, 'skip');
  if (eachBind) {
    describe.each = eachBind(describe, false);
    only.each = eachBind(only, false);
    skip.each = eachBind(skip, false);
  } else {
    describe.each = realDescribe.each;
  }
  describe.only = freeze(only);
  describe.skip = freeze(skip);
  return freeze(describe);
};

const guardedTest = buildTest(G.test);
const guardedDescribe = buildDescribe(G.describe);
const locked = {
  test: guardedTest,
  it: guardedTest,
  fit: guardedTest.only,
  xit: guardedTest.skip,
  xtest: guardedTest.skip,
  describe: guardedDescribe,
  fdescribe: guardedDescribe.only,
  xdescribe: guardedDescribe.skip,
  expect: guardedExpect,
};
for (const name of ['beforeAll', 'beforeEach', 'afterAll', 'afterEach', 'jest']) {
  if (name in G) locked[name] = G[name];
}
{
  const names = ownKeys(locked);
  for (let i = 0; i < names.length; i++) {
    reflectDefine(G, names[i], {
      value: locked[names[i]],
      writable: false,
      configurable: false,
      enumerable: false,
    });
  }
}
if (G.jest && typeof G.jest === 'object') {
  lockMethods(G.jest, false);
  freeze(G.jest);
}

// ---- 4. the DOM: nodes keep their real accessors and prototypes ------------------------------
const NodeCtor = G.Node;
const isNode = value =>
  value !== null &&
  (typeof value === 'object' || typeof value === 'function') &&
  NodeCtor &&
  isPrototypeOf(NodeCtor.prototype, value);
// React's input value tracker is the one legitimate own accessor on nodes.
const NODE_OWN_ALLOWED = ['value', 'checked'];
const shadowsInterface = (target, key) => {
  if (!isNode(target) || NODE_OWN_ALLOWED.includes(key)) return false;
  let proto = getProto(target);
  while (proto !== null) {
    if (gopd(proto, key)) return true;
    proto = getProto(proto);
  }
  return false;
};
const refuse = what => {
  throw new TypeError(`${what} on a DOM node is blocked by the grader`);
};
{
  const realDefine = Object.defineProperty;
  const realDefineAll = Object.defineProperties;
  const realSetProto = Object.setPrototypeOf;
  const realReflectSetProto = R.setPrototypeOf;
  const protoAccessor = gopd(objectPrototype, '__proto__');
  const defineGetter = objectPrototype.__defineGetter__;
  const defineSetter = objectPrototype.__defineSetter__;
  const checkKeys = (target, descriptors) => {
    if (!isNode(target) || descriptors === null || typeof descriptors !== 'object') return;
    const keys = ownKeys(descriptors);
    for (let i = 0; i < keys.length; i++) {
      if (shadowsInterface(target, keys[i])) refuse(`redefining ${safeString(keys[i])}`);
    }
  };
  const patches = {
    defineProperty(target, key, desc) {
      if (shadowsInterface(target, key)) refuse(`redefining ${safeString(key)}`);
      return apply(realDefine, Object, [target, key, desc]);
    },
    defineProperties(target, descriptors) {
      checkKeys(target, descriptors);
      return apply(realDefineAll, Object, [target, descriptors]);
    },
    setPrototypeOf(target, proto) {
      if (isNode(target)) refuse('changing the prototype');
      return apply(realSetProto, Object, [target, proto]);
    },
  };
  reflectDefine(Object, 'defineProperty', {value: patches.defineProperty});
  reflectDefine(Object, 'defineProperties', {value: patches.defineProperties});
  reflectDefine(Object, 'setPrototypeOf', {value: patches.setPrototypeOf});
  reflectDefine(R, 'defineProperty', {
    value: function defineProperty(target, key, desc) {
      if (shadowsInterface(target, key)) return false;
      return reflectDefine(target, key, desc);
    },
  });
  reflectDefine(R, 'setPrototypeOf', {
    value: function setPrototypeOf(target, proto) {
      if (isNode(target)) return false;
      return realReflectSetProto(target, proto);
    },
  });
  reflectDefine(objectPrototype, '__proto__', {
    get: protoAccessor.get,
    set: function __proto__(proto) {
      if (isNode(this)) refuse('changing the prototype');
      return apply(protoAccessor.set, this, [proto]);
    },
  });
  reflectDefine(objectPrototype, '__defineGetter__', {
    value: function __defineGetter__(key, getter) {
      if (shadowsInterface(this, key)) refuse(`redefining ${safeString(key)}`);
      return apply(defineGetter, this, [key, getter]);
    },
  });
  reflectDefine(objectPrototype, '__defineSetter__', {
    value: function __defineSetter__(key, setter) {
      if (shadowsInterface(this, key)) refuse(`redefining ${safeString(key)}`);
      return apply(defineSetter, this, [key, setter]);
    },
  });
}

// ---- 5. freeze the built-ins and the DOM interfaces ---------------------------------------------
const intrinsicNames = [
  'Object', 'Function', 'Array', 'String', 'Number', 'Boolean', 'Symbol', 'BigInt', 'Math',
  'JSON', 'Reflect', 'Promise', 'Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef',
  'FinalizationRegistry', 'RegExp', 'Date', 'Error', 'TypeError', 'RangeError', 'SyntaxError',
  'ReferenceError', 'EvalError', 'URIError', 'AggregateError', 'ArrayBuffer', 'DataView',
  'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array',
  'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'Proxy',
  'Atomics', 'Iterator', 'Intl',
];
const hidden = () => {
  const list = [];
  const add = value => value && arrayPush(list, value);
  add(getProto(Int8Array));
  add(getProto([][Symbol.iterator]()));
  add(getProto(getProto([][Symbol.iterator]())));
  add(getProto(new Map()[Symbol.iterator]()));
  add(getProto(new Set()[Symbol.iterator]()));
  add(getProto(''[Symbol.iterator]()));
  add(getProto(/x/[Symbol.matchAll]('')));
  add(getProto(async function () {}));
  add(getProto(function* () {}));
  add(getProto(async function* () {}));
  add(getProto(getProto(function* () {}).prototype));
  add(getProto(getProto(async function* () {}).prototype));
  return list;
};

const frozenAlready = new WeakSet();
const deepFreezeShallow = value => {
  // value, its statics and its prototype object
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return;
  if (frozenAlready.has(value)) return;
  frozenAlready.add(value);
  const proto = typeof value === 'function' ? value.prototype : null;
  try {
    freeze(value);
  } catch {
    // typed arrays with elements cannot be frozen; none here
  }
  if (proto && typeof proto === 'object' && !isFrozen(proto)) {
    try {
      freeze(proto);
    } catch {
      // ignore
    }
  }
};

// The "override mistake": once a prototype is frozen, `obj.toString = f` on an instance throws.
// Like SES, the few names libraries assign on their own objects become accessors whose setter
// defines an own property on the instance instead.
const tame = (proto, names) => {
  for (let i = 0; i < names.length; i++) {
    const key = names[i];
    const desc = gopd(proto, key);
    if (!desc || !('value' in desc) || !desc.configurable) continue;
    const value = desc.value;
    reflectDefine(proto, key, {
      get: function getter() {
        return value;
      },
      set: function setter(next) {
        if (this === proto) {
          // Writing back the value a property already has changes nothing (Jest's fake timers
          // copy Date.prototype.toUTCString onto itself).
          if (next === value) return;
          throw new TypeError(`Cannot assign to read only property '${safeString(key)}'`);
        }
        if (hasOwn(this, key)) this[key] = next;
        else reflectDefine(this, key, {value: next, writable: true, enumerable: true, configurable: true});
      },
      enumerable: desc.enumerable,
      configurable: false,
    });
  }
};
tame(objectPrototype, [
  'constructor', 'toString', 'toLocaleString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf',
  'propertyIsEnumerable',
]);
tame(functionPrototype, ['constructor', 'toString']);
for (const name of ['Error', 'TypeError', 'RangeError', 'SyntaxError', 'ReferenceError', 'EvalError', 'URIError', 'AggregateError']) {
  if (G[name]) tame(G[name].prototype, ['name', 'message', 'constructor', 'toString']);
}
for (const ctor of [Array, Promise, Map, Set, RegExp]) tame(ctor.prototype, ['constructor', 'toString']);
tame(Date.prototype, ['constructor', 'toString', 'toUTCString']);

// Date stays the window's own, except while Jest installs or removes its modern fake timers,
// which swap it for their clock's: the runner says when that is (and checks what Date is
// afterwards). Any other assignment fails as on a read-only property.
{
  const desc = gopd(G, 'Date');
  if (desc && desc.configurable && 'value' in desc) {
    let current = desc.value;
    reflectDefine(G, 'Date', {
      get: function getDate() {
        return current;
      },
      set: function setDate(next) {
        if (channel('timers') !== true) {
          throw new TypeError("Cannot assign to read only property 'Date' of object '[object Window]'");
        }
        current = next;
      },
      enumerable: desc.enumerable,
      configurable: false,
    });
  }
}

for (let i = 0; i < intrinsicNames.length; i++) {
  const name = intrinsicNames[i];
  if (name === 'Error') {
    // Jest assigns Error.stackTraceLimit, and V8 reads it only as a data property: the
    // constructor stays open, its prototype is frozen.
    freeze(Error.prototype);
    continue;
  }
  if (hasOwn(G, name)) deepFreezeShallow(G[name]);
}
{
  const extra = hidden();
  for (let i = 0; i < extra.length; i++) deepFreezeShallow(extra[i]);
}
// DOM interfaces: every capitalised constructor on the window (Node, Element, HTMLElement, ...)
{
  const keys = ownKeys(G);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (typeof key !== 'string' || key[0] < 'A' || key[0] > 'Z' || key === 'Error') continue;
    const desc = gopd(G, key);
    if (!desc || !('value' in desc) || typeof desc.value !== 'function') continue;
    if (!desc.value.prototype) continue;
    deepFreezeShallow(desc.value);
  }
}
// The window's own functions the libraries call (getComputedStyle, ...) and the built-in names
for (const name of ['getComputedStyle', 'matchMedia', 'document', ...intrinsicNames]) {
  const desc = gopd(G, name);
  if (desc && desc.configurable) {
    // data properties become read-only; accessors (document) only non-configurable
    lockGlobal(name);
  }
}
// document itself: its methods are pinned (React adds expando markers, so no freeze)
if (G.document) lockMethods(G.document, true);

// ---- attempts (attempt_log.js): a secret-like variable looked up that the environment lacks --
// The runner's environment is an allowlist: a grader's keys are never there, so asking for one
// is reaching for them. Noted only; the lookup answers as before.
const SECRET_NAME = /SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|API_?KEY/i;
const windowProcess = G.process;
if (windowProcess && windowProcess.env && typeof windowProcess.env === 'object') {
  const env = windowProcess.env;
  try {
    reflectDefine(windowProcess, 'env', {
      value: new ProxyCtor(env, {
        get(target, key, receiver) {
          if (typeof key === 'string' && !hasOwn(target, key) && SECRET_NAME.test(key)) {
            channel('attempt', 'grader-access', `looked up the environment variable ${key}`);
          }
          return R.get(target, key, receiver);
        },
      }),
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } catch {
    // a process object we cannot watch: fewer flags, never a failure
  }
}

channel('ready');
