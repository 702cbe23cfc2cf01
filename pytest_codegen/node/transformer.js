'use strict';
// babel-jest, remembering its output.
//
// A runner grades the same test file again for every sample of a problem (and often the same
// completion more than once). Babel is deterministic, so its output for a (path, source, options)
// seen before is reused instead of recomputed: ~9 ms per test file. The memo lives in the
// runner's own realm, in this module rather than in a transformer: Jest builds a new
// ScriptTransformer, and so calls createTransformer() again, for every test file.
//
// Jest config: [require.resolve('./transformer.js'), {toolchain, babel: <babel options>}]

const crypto = require('crypto');
const path = require('path');

const MEMO_SIZE = 64;

// The module features Jest says a file may use: part of what any transform of it depends on
// (also runtime.js's key for the toolchain's files).
const featureKey = options =>
  [
    options.supportsDynamicImport ? 'dynamic' : '',
    options.supportsStaticESM ? 'esm' : '',
    options.supportsTopLevelAwait ? 'tla' : '',
    options.supportsExportNamespaceFrom ? 'nsfrom' : '',
  ].join('\0');

// toolchain + options -> {inner: babel-jest's transformer, memo: key -> {code, map}, oldest first}
const transformers = new Map();

function createTransformer({toolchain, babel}) {
  const optionsText = JSON.stringify(babel);
  const id = `${toolchain}\0${optionsText}`;
  if (!transformers.has(id)) {
    const babelJest = require(require.resolve('babel-jest', {paths: [toolchain]}));
    transformers.set(id, {inner: (babelJest.default || babelJest).createTransformer(babel), memo: new Map()});
  }
  const {inner, memo} = transformers.get(id);

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
        result = inner.process(sourceText, sourcePath, options);
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
