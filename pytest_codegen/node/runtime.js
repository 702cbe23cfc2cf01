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

function configure(toolchain) {
  const Base = require(require.resolve('jest-runtime', {paths: [toolchain]})).default;
  Runtime = class GuardedRuntime extends Base {
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
