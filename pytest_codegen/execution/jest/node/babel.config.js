'use strict';
// Babel options for test files and samples. Passed inline to babel-jest (never discovered from
// disk: `babelrc`/`configFile` are off, so a sample cannot bring its own configuration).
// `resolve` maps a package name to its path inside the managed toolchain.

module.exports = function babelOptions(resolve) {
  return {
    babelrc: false,
    configFile: false,
    presets: [
      [resolve('@babel/preset-env'), {targets: {node: 'current'}}],
      // The automatic runtime: solutions that never `import React` still compile.
      [resolve('@babel/preset-react'), {runtime: 'automatic'}],
    ],
    // Flow's type annotations are stripped, as WebApp1K's harness (react-scripts, whose
    // babel-preset-react-app strips them from JavaScript files) does: `(e: any) => ...`
    // compiles. (The options cross to Jest's workers as JSON: no per-file RegExp here.)
    plugins: [resolve('@babel/plugin-transform-flow-strip-types')],
  };
};
