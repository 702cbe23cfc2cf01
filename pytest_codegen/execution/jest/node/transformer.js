'use strict';
// babel-jest, remembering its output and its Babel configuration.
//
// A runner grades the same test file again for every sample of a problem (and often the same
// completion more than once). Babel is deterministic, so its output for a (path, source, options)
// seen before is reused instead of recomputed: ~9 ms per test file. The memo lives in the
// runner's own realm, in this module rather than in a transformer: Jest builds a new
// ScriptTransformer, and so calls createTransformer() again, for every test file.
//
// A file Babel has not seen is compiled as babel-jest 29's process() compiles it, except that
// Babel's partial configuration is loaded once instead of for every file (~1.2 ms: Babel looks
// for package.json files up each new sample's directories). With `babelrc` and `configFile`
// off it depends on the file only through its name, which is set per file.
//
// Jest config: [require.resolve('./transformer.js'), {toolchain, babel: <babel options>}]

const crypto = require('crypto');
const path = require('path');

const MEMO_SIZE = 64;

// The module features Jest says a file may use: part of what any transform of it depends on
// (also runtime.js's key for the toolchain's files), and what babel-jest tells Babel.
const FEATURES = ['supportsDynamicImport', 'supportsExportNamespaceFrom', 'supportsStaticESM', 'supportsTopLevelAwait'];
const featureKey = options => FEATURES.map(feature => (options[feature] ? feature : '')).join('\0');

// toolchain + options -> {inner: babel-jest's transformer, compile, memo: key -> {code, map},
// oldest first}
const transformers = new Map();

// babel-jest's process(sourceText, sourcePath, jestOptions) for these Babel options, with the
// partial configuration loaded once per set of caller features.
function babelJestCompiler(toolchain, babel) {
  // What babel-jest itself loads: its own @babel/core and babel-preset-jest.
  const from = {paths: [path.dirname(require.resolve('babel-jest', {paths: [toolchain]}))]};
  const {loadPartialConfig, transformSync} = require(require.resolve('@babel/core', from));
  // babel-jest's createTransformer(babel)
  const options = {
    ...babel,
    caller: {
      name: 'babel-jest',
      ...Object.fromEntries(FEATURES.map(feature => [feature, false])),
      ...babel.caller,
    },
    compact: false,
    plugins: babel.plugins ?? [],
    presets: (babel.presets ?? []).concat(require.resolve('babel-preset-jest', from)),
    sourceMaps: 'both',
  };
  const partials = new Map(); // cwd, root, caller -> Babel's options, for any file
  return (sourceText, sourcePath, jestOptions) => {
    // babel-jest's mergeBabelTransformOptions
    const {cwd, rootDir} = jestOptions.config;
    const caller = {...options.caller};
    for (const feature of FEATURES) caller[feature] = jestOptions[feature] ?? options.caller[feature];
    const key = JSON.stringify([cwd, rootDir, caller]);
    let partial = partials.get(key);
    if (partial === undefined) {
      const config = loadPartialConfig({cwd, root: rootDir, ...options, caller, filename: sourcePath});
      if (!config) throw new Error(`babel-jest: Babel ignores ${sourcePath}`);
      partial = config.options;
      partials.set(key, partial);
    }
    const result = transformSync(sourceText, {...partial, filename: path.resolve(partial.cwd, sourcePath)});
    return result && typeof result.code === 'string' ? {code: result.code, map: result.map} : {code: sourceText};
  };
}

function createTransformer({toolchain, babel}) {
  const optionsText = JSON.stringify(babel);
  const id = `${toolchain}\0${optionsText}`;
  if (!transformers.has(id)) {
    const babelJest = require(require.resolve('babel-jest', {paths: [toolchain]}));
    transformers.set(id, {
      inner: (babelJest.default || babelJest).createTransformer(babel), // for coverage, never asked
      compile: babelJestCompiler(toolchain, babel),
      memo: new Map(),
    });
  }
  const {inner, compile, memo} = transformers.get(id);

  // What babel-jest's output depends on besides the options fixed above.
  const keyOf = (sourceText, sourcePath, options) =>
    [sourcePath, options.instrument ? 'instrument' : '', featureKey(options), sourceText].join('\0');

  return {
    canInstrument: inner.canInstrument,
    // Names the (never read back) files Jest writes next to a transform: babel-jest's own key
    // would reload the Babel configuration for every file.
    getCacheKey(sourceText, sourcePath, options) {
      return crypto
        .createHash('sha1')
        .update(optionsText)
        .update('\0')
        .update(path.relative(options.config.rootDir, sourcePath))
        .update('\0')
        .update(options.configString)
        .update('\0')
        .update(keyOf(sourceText, '', options))
        .digest('hex')
        .substring(0, 32);
    },
    process(sourceText, sourcePath, options) {
      const key = keyOf(sourceText, sourcePath, options);
      const known = memo.get(key);
      if (known !== undefined) {
        memo.delete(key); // most recently used goes last
        memo.set(key, known);
        return {code: known.code, map: known.map};
      }
      // Babel captures a stack trace for every template it builds (for its own error messages),
      // 50 frames deep and source-mapped by Jest: ~1.6 ms per sample. Not needed to compile.
      const stackTraceLimit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      let result;
      try {
        result = options.instrument
          ? inner.process(sourceText, sourcePath, options)
          : compile(sourceText, sourcePath, options);
      } finally {
        Error.stackTraceLimit = stackTraceLimit;
      }
      memo.set(key, {code: result.code, map: result.map});
      if (memo.size > MEMO_SIZE) memo.delete(memo.keys().next().value);
      return result;
    },
  };
}

module.exports = {createTransformer, featureKey};
