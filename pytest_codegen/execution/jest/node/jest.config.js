'use strict';
// The Jest configuration every sample is graded with, built once per runner process.
// Usable by the jest CLI as well (see `cliConfig`), so a warm-runner verdict can be compared
// with a fresh `jest` run on the same file.

const path = require('path');
const babelOptions = require('./babel.config.js');

const escapeRegExp = text => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function jestConfig({rootDir, toolchain, cacheDirectory, hardened, permissions = true, memo = true}) {
  const resolve = name => require.resolve(name, {paths: [toolchain]});
  const babel = babelOptions(resolve);
  const config = {
    rootDir,
    roots: [rootDir],
    testEnvironment: resolve('jest-environment-jsdom'),
    testRunner: resolve('jest-circus/runner'),
    // Packages the tests import live in the toolchain, not next to the sample.
    modulePaths: [path.join(toolchain, 'node_modules')],
    // A long-lived runner reuses Babel's output for a file it has seen (transformer.js); a
    // one-off CLI run gains nothing from it and uses babel-jest as it comes.
    transform: {
      '\\.[cm]?[jt]sx?$': memo
        ? [path.join(__dirname, 'transformer.js'), {toolchain, babel}]
        : [resolve('babel-jest'), babel],
    },
    // Our own modules (guard.js) are plain CommonJS: nothing to transform.
    transformIgnorePatterns: ['/node_modules/', `^${escapeRegExp(__dirname + path.sep)}`],
    // Transformed code is never read back from disk: a sample cannot plant a cached transform.
    cache: false,
    cacheDirectory,
    watchman: false,
    ci: true,
    injectGlobals: true,
    // As react-scripts' Jest configuration, which WebApp1K's harness runs: every mock is reset
    // before each test, and a CSS module imports as an object that names its classes.
    resetMocks: true,
    moduleNameMapper: {
      '^.+\\.module\\.(css|sass|scss)$': resolve('identity-obj-proxy'),
      // Its CommonJS build, which react-scripts' Jest 27 loads (jsdom's "browser" condition
      // would pick the ES module build, which Jest cannot load from node_modules).
      '^uuid$': resolve('uuid'),
    },
  };
  if (permissions) {
    // resolution that needs no read access above the work root
    config.resolver = path.join(__dirname, 'resolver.js');
  }
  if (hardened) {
    const here = __dirname;
    config.testEnvironment = path.join(here, 'environment.js');
    config.runtime = path.join(here, 'runtime.js');
    config.setupFilesAfterEnv = [path.join(here, 'guard.js')];
  }
  return config;
}

module.exports = jestConfig;

// `jest --config <(node -e ...)` style use: PYTEST_CODEGEN_TOOLCHAIN names the toolchain dir.
module.exports.cliConfig = function cliConfig(rootDir) {
  const toolchain = process.env.PYTEST_CODEGEN_TOOLCHAIN;
  return jestConfig({
    rootDir,
    toolchain,
    cacheDirectory: path.join(rootDir, '.jest-cache'),
    hardened: false,
    permissions: false,
    memo: false,
  });
};
