// MultiPL-E's TypeScript build, `tsc --target esnext FILE`, run by tsc's own command line
// (the same compiler, options, output and exit status), told to skip checking the default
// library (`--skipDefaultLibCheck`) only where the program cannot change what that check
// finds. Checking the library's 50,000 lines is most of tsc's time, the same for every
// program; it can only change when a program adds to the global scope a name the library
// declares (an `interface Iterator<T>` merges with the library's, a `function escape`
// conflicts with it), or brings in more declarations (references, `declare global`).
//
//   node tsc.js record TYPESCRIPT_DIR   the library's global names, once per host, kept
//                                       (globals.json beside this file) only when the
//                                       library alone checks clean
//   node tsc.js compile TYPESCRIPT_DIR FILE
'use strict';
const fs = require('fs');
const path = require('path');

const [mode, typescriptDir, file] = process.argv.slice(2);
const ts = require(path.join(typescriptDir, 'lib', 'typescript.js'));
const TSC_ARGS = ['--target', 'esnext'];
const GLOBALS = path.join(__dirname, 'globals.json');

// What a script declares in the global scope, once bound (`var`s in blocks hoisted).
function scopeNames(sourceFile) {
  return sourceFile.locals ? Array.from(sourceFile.locals.keys()) : [];
}

function record() {
  const empty = path.join(__dirname, 'empty.ts');
  fs.writeFileSync(empty, '');
  const {fileNames, options} = ts.parseCommandLine([...TSC_ARGS, empty]);
  const program = ts.createProgram(fileNames, options);
  const clean = ts.getPreEmitDiagnostics(program).length === 0;
  const names = new Set();
  for (const sourceFile of program.getSourceFiles()) {
    if (program.isSourceFileDefaultLibrary(sourceFile)) {
      scopeNames(sourceFile).forEach((name) => names.add(name));
    }
  }
  if (clean && names.size > 0) fs.writeFileSync(GLOBALS, JSON.stringify([...names].sort()));
}

function leavesLibraryAlone(globals) {
  const {options} = ts.parseCommandLine([...TSC_ARGS, file]);
  // The program alone: parsed and bound, not checked.
  const alone = {...options, noLib: true, noResolve: true, types: []};
  const program = ts.createProgram([file], alone);
  const sourceFile = program.getSourceFile(file);
  if (!sourceFile) return false;
  const {referencedFiles, typeReferenceDirectives, libReferenceDirectives} = sourceFile;
  if (referencedFiles.length || typeReferenceDirectives.length || libReferenceDirectives.length) {
    return false;
  }
  // Namespaces, `declare global` and ambient modules: taken as touching the library.
  if (sourceFile.statements.some((s) => s.kind === ts.SyntaxKind.ModuleDeclaration)) return false;
  program.getTypeChecker(); // binds the file
  if (ts.isExternalModule(sourceFile)) return true; // a module's names are its own
  if (!sourceFile.locals) return false; // not bound: its names are not known
  return !scopeNames(sourceFile).some((name) => globals.has(name));
}

function compile() {
  let globals = null;
  try {
    globals = new Set(JSON.parse(fs.readFileSync(GLOBALS, 'utf8')));
  } catch {
    // not recorded: the library is checked, as tsc does
  }
  const skip = globals !== null && leavesLibraryAlone(globals) ? ['--skipDefaultLibCheck'] : [];
  ts.executeCommandLine(ts.sys, ts.noop, [...TSC_ARGS, ...skip, file]);
}

if (mode === 'record') record();
else if (mode === 'compile') compile();
else throw new Error(`tsc.js: no mode ${mode} (record or compile)`);
