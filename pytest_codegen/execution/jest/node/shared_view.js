'use strict';
// What a sample's own modules get when they require a package runtime.js shares deep-frozen
// (aria-query, tr46, ...): a view of its exports that reads like them and notes each write.
// A write to a frozen object fails, but a sample that catches the TypeError would leave no
// trace; through the view, the write is noted as `patching` (docs/attempts.md) before it is
// refused as the frozen object refuses it. The toolchain keeps the exports themselves.
//
// The view is a membrane: every object or function reached through it (a property, what a
// function returns, what the package passes to a callback of the sample's) is itself a view,
// and the package's functions run on the objects themselves. A frozen object's view is a Proxy
// over a shadow (an object, array or function of the same shape holding the views of its
// properties, frozen like it), so that a Proxy may answer reads with views at all: the
// invariants of a Proxy over the frozen object itself would demand its own values.

const attemptLog = require('./attempt_log.js');

const owners = new WeakMap(); // an object of a shared package's frozen state -> the package's name
const views = new WeakMap(); // an object or function of the package -> its view
const backing = new WeakMap(); // a view -> what it shows
const outside = new WeakSet(); // the sample's own objects and functions handed to the package
const callbacks = new WeakMap(); // a function of the sample's -> what the package calls instead
const callbackOf = new WeakMap(); // that function -> the sample's function

const isObject = value => value !== null && (typeof value === 'object' || typeof value === 'function');

// The path of a property, as a reader would write it: `roles.entries()[3]['aria-pressed']`.
function step(path, key) {
  if (typeof key === 'symbol') return `${path}[${String(key)}]`;
  if (/^(?:0|[1-9]\d*)$/.test(key)) return `${path}[${key}]`;
  if (/^[A-Za-z_$][\w$]*$/.test(key)) return path ? `${path}.${key}` : key;
  return `${path}['${key.replace(/['\\]/g, '\\$&')}']`;
}

const shownArgument = value => {
  if (typeof value === 'string') return `'${value.length > 30 ? `${value.slice(0, 27)}...` : value}'`;
  return isObject(value) ? '...' : String(value);
};
const called = (path, args) => `${path}(${args.map(shownArgument).join(', ')})`;

const isConstructor = fn => {
  try {
    Reflect.construct(String, [], fn);
    return true;
  } catch {
    return false;
  }
};

// What the sample passes to the package: the package's own object for a view; for a function
// of the sample's, one that gives it views of what the package passes (aria-query's forEach
// hands its callback the role definitions themselves). `path` names the call it is passed to.
function inward(value, path = '') {
  if (!isObject(value) || owners.has(value)) return value;
  const shown = backing.get(value);
  if (shown !== undefined) return shown;
  if (typeof value !== 'function') {
    outside.add(value);
    return value;
  }
  let callback = callbacks.get(value);
  if (callback === undefined) {
    const passed = what => `<${what} of ${path}'s callback>`;
    callback = function (...args) {
      const given = args.map((arg, i) => outward(arg, passed(`argument ${i}`)));
      return inward(Reflect.apply(value, outward(this, passed('this')), given));
    };
    callbacks.set(value, callback);
    callbackOf.set(callback, value);
  }
  return callback;
}

// What the package hands the sample, read or passed to a callback: a view of an object of its
// frozen state, the sample's own value as it was, anything else (the realm's frozen built-ins,
// the sample's objects inside its own arguments) as it is.
function outward(value, path) {
  if (!isObject(value) || outside.has(value)) return value;
  const known = views.get(value) ?? callbackOf.get(value);
  if (known !== undefined) return known;
  const owner = owners.get(value);
  return owner === undefined ? value : frozenView(value, owner, path);
}

// What a function of the package returns: also a view of a new object it built (the array
// `roles.values()` returns, an iterator and its steps), which holds the package's frozen objects
// but is the caller's to change.
function returned(value, path) {
  const shown = outward(value, path);
  if (shown !== value || !isObject(value) || outside.has(value) || Object.isFrozen(value)) return shown;
  return liveView(value, path);
}

// Calling a view: the package's function on the package's objects, the result a view.
const callTraps = (target, path) => ({
  apply: (_, self, args) => {
    const call = called(path, args);
    return returned(Reflect.apply(target, inward(self), args.map(arg => inward(arg, call))), call);
  },
  construct: (_, args, newTarget) => {
    const call = `new ${called(path, args)}`;
    return returned(Reflect.construct(target, args.map(arg => inward(arg, call)), inward(newTarget)), call);
  },
});

function shadowOf(target) {
  let shadow;
  if (Array.isArray(target)) shadow = [];
  else if (typeof target !== 'function') shadow = {};
  else if (Object.hasOwn(target, 'prototype')) shadow = function () {};
  else if (isConstructor(target)) shadow = function () {}.bind(null);
  else shadow = () => {};
  Object.setPrototypeOf(shadow, Object.getPrototypeOf(target));
  return shadow;
}

function frozenView(target, owner, path) {
  const shadow = shadowOf(target);
  let filled = false;
  // The shadow is filled when the view is first used, then frozen as the target is; it never
  // changes after that, as the target cannot.
  const fill = () => {
    if (filled) return;
    for (const key of Reflect.ownKeys(target)) {
      const desc = Reflect.getOwnPropertyDescriptor(target, key);
      const where = step(path, key);
      if ('value' in desc) desc.value = outward(desc.value, where);
      else {
        desc.get = outward(desc.get, where);
        desc.set = outward(desc.set, where);
      }
      Reflect.defineProperty(shadow, key, desc);
    }
    for (const key of Reflect.ownKeys(shadow)) {
      if (!Object.hasOwn(target, key)) Reflect.deleteProperty(shadow, key);
    }
    if (!Reflect.isExtensible(target)) Reflect.preventExtensions(shadow);
    filled = true;
  };
  const named = key => `${owner}'s ${key === undefined ? path || 'exports' : step(path, key)}`;
  // A write the frozen object would accept (freezing it again, redefining a property as it
  // is) changes nothing; one it refuses is the attempt.
  const refused = (done, what) => {
    if (!done) attemptLog.note('patching', what);
    return done;
  };
  const view = new Proxy(shadow, {
    ...(typeof target === 'function' ? callTraps(target, path) : {}),
    get: (_, key, receiver) => (fill(), Reflect.get(shadow, key, receiver)),
    has: (_, key) => (fill(), Reflect.has(shadow, key)),
    ownKeys: () => (fill(), Reflect.ownKeys(shadow)),
    getOwnPropertyDescriptor: (_, key) => (fill(), Reflect.getOwnPropertyDescriptor(shadow, key)),
    isExtensible: () => (fill(), Reflect.isExtensible(shadow)),
    set: (_, key, value, receiver) => {
      fill();
      const done = Reflect.set(shadow, key, value, receiver);
      // a write on an object that only inherits from the view is that object's own
      return receiver === view ? refused(done, `changed ${named(key)}`) : done;
    },
    defineProperty: (_, key, desc) =>
      (fill(), refused(Reflect.defineProperty(shadow, key, desc), `changed ${named(key)}`)),
    deleteProperty: (_, key) =>
      (fill(), refused(Reflect.deleteProperty(shadow, key), `deleted ${named(key)}`)),
    setPrototypeOf: (_, proto) =>
      (fill(), refused(Reflect.setPrototypeOf(shadow, proto), `replaced the prototype of ${named()}`)),
    preventExtensions: () =>
      (fill(), refused(Reflect.preventExtensions(shadow), `made ${named()} non-extensible`)),
  });
  views.set(target, view);
  backing.set(view, target);
  return view;
}

// The view of an object the package built for its caller: reads and writes go to the object,
// what is read from it is a view. A property the object holds frozen (only if the sample froze
// it) must be answered with its own value.
function liveView(target, path) {
  const fixed = key => {
    const desc = Reflect.getOwnPropertyDescriptor(target, key);
    return desc !== undefined && !desc.configurable && (desc.writable === false || !('value' in desc));
  };
  const inwardDesc = desc => {
    const own = {...desc};
    for (const part of ['value', 'get', 'set']) if (part in own) own[part] = inward(own[part]);
    return own;
  };
  const view = new Proxy(target, {
    ...(typeof target === 'function' ? callTraps(target, path) : {}),
    get: (_, key, receiver) => {
      const value = Reflect.get(target, key, receiver === view ? target : receiver);
      return fixed(key) ? value : returned(value, step(path, key));
    },
    getOwnPropertyDescriptor: (_, key) => {
      const desc = Reflect.getOwnPropertyDescriptor(target, key);
      if (desc === undefined || fixed(key)) return desc;
      for (const part of ['value', 'get', 'set']) {
        if (part in desc) desc[part] = returned(desc[part], step(path, key));
      }
      return desc;
    },
    set: (_, key, value, receiver) =>
      Reflect.set(target, key, inward(value), receiver === view ? target : receiver),
    defineProperty: (_, key, desc) => Reflect.defineProperty(target, key, inwardDesc(desc)),
  });
  views.set(target, view);
  backing.set(view, target);
  return view;
}

const exportViews = new Map(); // a shared package's exports -> the view a sample's module gets

// Shares a package's frozen exports with the sample's modules through a view; `state` holds
// every object of its frozen state (runtime.js's deepFreeze): those are the objects whose
// writes are noted.
function share(name, exports, state) {
  for (const value of state) owners.set(value, name);
  exportViews.set(exports, outward(exports, ''));
}

// What a sample's module gets for `exports`, if that is a shared package's; else undefined.
const viewFor = exports => exportViews.get(exports);

// A sample's `require.cache`. A toolchain module's own entry would hand out what the view
// keeps from the sample: a shared package's exports, and the module's `require`, which gives
// the toolchain's files the packages themselves. Its stand-in has the module's name and
// exports (a view for a shared package) only.
function sampleCache(cache, trusted) {
  const standIns = new WeakMap(); // a module of the toolchain -> its stand-in
  const standIn = module => {
    let shown = standIns.get(module);
    if (shown === undefined) {
      shown = Object.freeze({
        id: module.id,
        filename: module.filename,
        path: module.path,
        children: Object.freeze([]),
        get loaded() {
          return module.loaded;
        },
        get exports() {
          return exportViews.get(module.exports) ?? module.exports;
        },
      });
      standIns.set(module, shown);
    }
    return shown;
  };
  return new Proxy(cache, {
    get: (target, key, receiver) => {
      const module = Reflect.get(target, key, receiver);
      const ofToolchain = isObject(module) && typeof module.filename === 'string' && trusted(module.filename);
      return ofToolchain ? standIn(module) : module;
    },
  });
}

module.exports = {share, viewFor, sampleCache};
