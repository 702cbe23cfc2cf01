'use strict';
// jest-runtime, minus module mocking for the code under test.
//
// Every module Jest loads gets its own `jest` object. A solution that calls `jest.mock(...)` at
// import time could swap a package the test imports after it (fetch-mock, Testing Library) for
// a fake that agrees with everything. Only the test file itself (and files outside the
// sample's directory: our guard, installed packages) keep the mocking API.

const path = require('path');

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
];

let Runtime = null;

// Files no sample can change (the toolchain's packages, our own modules) are read and compiled
// once per runner process instead of once per test file: their source is kept as a string and
// V8's code cache, taken after a file's first full run, spares the next compiles. Each test
// file still evaluates every module afresh in its own jsdom; only the bytes and the compiled
// code are shared.
const sources = new Map(); // filename -> source text
const codeCache = new Map(); // filename -> {script, data}: the last script, then its code cache

function configure(toolchain) {
  const Base = require(require.resolve('jest-runtime', {paths: [toolchain]})).default;
  const {Script} = require('vm');
  const trustedRoots = [path.join(toolchain, 'node_modules') + path.sep, __dirname + path.sep];
  const trusted = filename => trustedRoots.some(root => filename.startsWith(root));
  Runtime = class GuardedRuntime extends Base {
    readFile(filename) {
      if (!trusted(filename)) return super.readFile(filename);
      let source = sources.get(filename);
      if (source === undefined) {
        source = super.readFile(filename);
        sources.set(filename, source);
      }
      return source;
    }

    createScriptFromCode(scriptSource, filename) {
      if (!trusted(filename)) return super.createScriptFromCode(scriptSource, filename);
      const entry = codeCache.get(filename);
      if (entry && entry.data === undefined && entry.source === scriptSource) {
        // its first run is over: everything it compiled lazily is in the cache now
        entry.data = entry.script.createCachedData();
        entry.script = null;
      }
      if (!entry || entry.source !== scriptSource) {
        const script = super.createScriptFromCode(scriptSource, filename);
        codeCache.set(filename, {source: scriptSource, script, data: undefined});
        return script;
      }
      const script = new Script(this.wrapCodeInModuleWrapper(scriptSource), {
        columnOffset: this._fileTransforms.get(filename)?.wrapperLength,
        displayErrors: true,
        filename,
        cachedData: entry.data,
        // as Jest's own (runtime.createScriptFromCode)
        importModuleDynamically: async specifier => {
          const context = this._environment.getVmContext?.();
          if (!context) throw new Error('Test environment has been torn down');
          const module = await this.resolveModule(specifier, filename, context);
          return this.linkAndEvaluateModule(module);
        },
      });
      if (script.cachedDataRejected) {
        entry.data = undefined;
        entry.script = script;
      }
      return script;
    }

    _createJestObjectFor(from) {
      const jestObject = super._createJestObjectFor(from);
      const testPath = this._testPath;
      if (!testPath || from === testPath) return jestObject;
      const sampleDir = path.dirname(testPath) + path.sep;
      if (!from.startsWith(sampleDir) || from.includes(`${path.sep}node_modules${path.sep}`)) {
        return jestObject;
      }
      for (const name of DENIED) {
        const denied = () => {
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
  get default() {
    return Runtime;
  },
};
