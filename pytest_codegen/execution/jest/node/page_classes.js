'use strict';
// jsdom's implementation classes, and the classes of the packages it builds the page with, are
// this runner's own: jsdom is loaded once, in the runner's realm, and every test file's window
// is made of instances of the same classes. The page reaches them - every DOM node's
// Symbol(impl) property is its implementation object, whose prototype is NodeImpl's, ...;
// `element.style` is a cssstyle object - so a sample that patched one (NodeImpl's
// `textContent`) changed the DOM of every later test file.
//
// After the warm-up, lockdown() (runner.js) freezes them: every class (function) and every
// prototype reachable from the exports of jsdom and of the packages it depends on, prototypes
// tamed against the override mistake as the built-ins are. The rest of those modules' state
// (plain objects, arrays, Maps, instances such as jsdom's custom-element reaction stack) is
// jsdom's working memory, written while it runs: it is left as it is. What jsdom copies onto
// each new window cannot be frozen (COPIED); it is fingerprinted after every test file instead
// (runtime.js), like the core modules.

const fs = require('fs');
const path = require('path');

// Window.js mixes these prototypes' descriptors into every new window, then redefines some of
// the properties: copied from a frozen prototype they would be non-configurable.
const COPIED = /[\\/]jsdom[\\/]lib[\\/]jsdom[\\/]living[\\/]nodes[\\/]((?:Global|Window)EventHandlers)-impl\.js$/;

// The directories of `root`'s package and of every package it depends on, found as Node finds
// them (the nearest node_modules up from the dependent).
function dependencyClosure(root) {
  const found = new Set();
  const pending = [root];
  while (pending.length) {
    const dir = pending.pop();
    if (found.has(dir)) continue;
    found.add(dir);
    let dependencies;
    try {
      dependencies = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).dependencies;
    } catch {
      continue;
    }
    for (const name of Object.keys(dependencies || {})) {
      for (let from = dir; ; from = path.dirname(from)) {
        const candidate = path.join(from, 'node_modules', name);
        if (fs.existsSync(path.join(candidate, 'package.json'))) {
          pending.push(candidate);
          break;
        }
        if (path.dirname(from) === from) break;
      }
    }
  }
  return found;
}

const MODULES = `${path.sep}node_modules${path.sep}`;
// The directory of the package a file belongs to, or null.
function packageOf(filename) {
  const at = filename.lastIndexOf(MODULES);
  if (at < 0) return null;
  const [first, second] = filename.slice(at + MODULES.length).split(path.sep);
  return filename.slice(0, at + MODULES.length) + (first.startsWith('@') ? `${first}${path.sep}${second}` : first);
}

// Freezes the classes and prototypes of jsdom (at `jsdomDir`) and its dependencies, as loaded
// in this realm (`modules`: require.cache), skipping what `seen` holds (the frozen built-ins,
// which it is added to). `tame(prototype)` readies a prototype for freezing, false when it
// cannot be. Returns what must stay open instead: [name, object] pairs to fingerprint.
function freezePageClasses(jsdomDir, modules, seen, tame) {
  const packages = dependencyClosure(jsdomDir);
  const copied = new Map();
  const stack = [];
  for (const [filename, module] of Object.entries(modules)) {
    if (!packages.has(packageOf(filename))) continue;
    const mixin = COPIED.exec(filename);
    const implementation = mixin && module.exports && module.exports.implementation;
    if (typeof implementation === 'function') copied.set(implementation.prototype, `jsdom's ${mixin[1]}Impl.prototype`);
    stack.push([module.exports, false]);
  }
  while (stack.length) {
    const [value, isPrototype] = stack.pop();
    if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) continue;
    seen.add(value);
    if (ArrayBuffer.isView(value) || value === process || value === globalThis) continue;
    if ((isPrototype || typeof value === 'function') && !copied.has(value)) {
      if (!isPrototype || tame(value)) Object.freeze(value);
    }
    for (const key of Reflect.ownKeys(value)) {
      const desc = Reflect.getOwnPropertyDescriptor(value, key);
      if (!desc) continue;
      if ('value' in desc) stack.push([desc.value, key === 'prototype' && typeof value === 'function']);
      else stack.push([desc.get, false], [desc.set, false]);
    }
    // a class's parent class, a prototype's parent prototype
    stack.push([Object.getPrototypeOf(value), isPrototype]);
  }
  return [...copied].map(([object, name]) => [name, object]);
}

module.exports = {freezePageClasses};
