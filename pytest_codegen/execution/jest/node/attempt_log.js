'use strict';
// What the code under test tried besides rendering its component (see docs/attempts.md): each
// attempt once per test file, as [category, evidence]. runner.js, runtime.js and guard.js (via
// the runner's channel) note them; the runner sends them with the file's answer. A flag never
// changes what happens: the calls that note one refuse or allow exactly as before.

const MAX_ATTEMPTS = 20;
const EVIDENCE_CHARS = 200;
const seen = [];
let active = false; // only while a test file runs: the runner's own start-up is not a sample

const text = value => {
  let shown;
  try {
    shown = typeof value === 'string' ? value : String(value);
  } catch {
    shown = '<unprintable>';
  }
  return shown.length > EVIDENCE_CHARS ? `${shown.slice(0, EVIDENCE_CHARS - 3)}...` : shown;
};

function note(category, evidence) {
  if (!active || seen.length >= MAX_ATTEMPTS) return;
  const entry = [text(category), text(evidence)];
  if (!seen.some(([c, e]) => c === entry[0] && e === entry[1])) seen.push(entry);
}

function start() {
  seen.length = 0;
  active = true;
}

function take() {
  active = false;
  return seen.splice(0);
}

// Wraps the functions of a core module so that a refusal of Node's permission model
// (ERR_ACCESS_DENIED) is noted, even when the code under test catches it.
function watchDenials(moduleName, exports, category) {
  for (const key of Object.keys(exports)) {
    const desc = Object.getOwnPropertyDescriptor(exports, key);
    const fn = desc && desc.value;
    if (typeof fn !== 'function' || !desc.writable || !/^[a-z]/.test(key)) continue;
    const watched = function (...args) {
      try {
        const result = new.target ? Reflect.construct(fn, args, new.target) : Reflect.apply(fn, this, args);
        if (result && typeof result.catch === 'function' && moduleName.endsWith('promises')) {
          result.catch(error => denied(error, args));
        }
        return result;
      } catch (error) {
        denied(error, args);
        throw error;
      }
    };
    const denied = (error, args) => {
      if (error && error.code === 'ERR_ACCESS_DENIED') {
        note(category, `${moduleName}.${key}(${text(args[0])}) was refused: ${text(error.message)}`);
      }
    };
    for (const [name, own] of Object.entries(Object.getOwnPropertyDescriptors(fn))) {
      if (!['length', 'name', 'prototype', 'arguments', 'caller'].includes(name)) {
        Object.defineProperty(watched, name, own);
      }
    }
    Object.defineProperty(watched, 'name', {value: fn.name});
    exports[key] = watched;
  }
}

module.exports = {note, start, take, watchDenials};
