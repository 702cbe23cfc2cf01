'use strict';
// Module resolution that works under Node's permission model.
//
// Jest's default resolver realpath()s every directory above the importing file while looking
// for a package.json. Under `--permission` the runner may read only the toolchain, our own files
// and the work root, so that walk fails above the work root. Imports *from the sample's
// directory* of relative paths are resolved here directly (file, file + extension, directory
// index); everything else - packages, and files inside the toolchain - goes to Jest's resolver.

const fs = require('fs');
const path = require('path');

const isFile = candidate => {
  try {
    return fs.statSync(candidate).isFile();
  } catch {
    return false;
  }
};

module.exports = function resolve(request, options) {
  const relative = request.startsWith('./') || request.startsWith('../') || request === '.' ||
    request === '..' || path.isAbsolute(request);
  const fromPackage = options.basedir.split(path.sep).includes('node_modules');
  if (!relative || fromPackage) return options.defaultResolver(request, options);
  const base = path.resolve(options.basedir, request);
  const extensions = options.extensions || ['.js'];
  const candidates = [base];
  for (const ext of extensions) candidates.push(base + ext);
  for (const ext of extensions) candidates.push(path.join(base, `index${ext}`));
  for (const candidate of candidates) {
    if (isFile(candidate)) return candidate;
  }
  const error = new Error(`Cannot find module '${request}' from '${options.basedir}'`);
  error.code = 'MODULE_NOT_FOUND';
  throw error;
};
