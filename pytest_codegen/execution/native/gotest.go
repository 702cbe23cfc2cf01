// Command gotest runs `go test [-timeout=D] FILE` for one test file, as `go test` would, without
// what go test does before it builds: loading the packages the file imports and checking the
// build cache for the ~200 packages a test binary needs (two thirds of go test's time for a
// sample). It replays the compile, vet, link and run that go test ran for a probe file on this
// host (the recipe, made by libraries.go_test_recipe) with the sample's file and tests in the
// probe's place.
//
// It does so only where the replay is go test's own work: the file parses, has no build
// constraints, cgo or embedded files, imports only packages the recipe holds, is of the
// recipe's form (an internal or an external test package) and declares only well-formed
// TestXxx(*testing.T) functions (no TestMain, benchmark, fuzz target or example). A build or
// vet step that does not succeed cleanly is not judged here either. In every other case, it
// is go test itself that runs: this program replaces itself by `go test ARGS FILE`, whose
// messages are then exactly go test's.
//
//	gotest RECIPE GO [-timeout=D] FILE
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"
)

// Recipe is what go test ran for the probe, its work folder written as {WORK}.
type Recipe struct {
	External       bool                   `json:"external"` // package x_test
	Compile        []string               `json:"compile"`  // ends with the file
	ImportCfg      string                 `json:"importcfg"`
	Vet            []string               `json:"vet"`
	VetCfg         map[string]interface{} `json:"vetcfg"`
	Packages       map[string]Package     `json:"packages"`
	TestMain       string                 `json:"testmain"`  // {TESTS} where the tests go
	TestLine       string                 `json:"test_line"` // {NAME} for each test's name
	MainCompile    []string               `json:"main_compile"`
	MainImportCfg  string                 `json:"main_importcfg"`
	Link           []string               `json:"link"`
	LinkImportCfg  string                 `json:"link_importcfg"`
	Env            map[string]string      `json:"env"` // for the link (GOROOT)
	Binary         string                 `json:"binary"`
	Run            []string               `json:"run"` // the binary's flags, -test.timeout last
	PackageSummary string                 `json:"summary_name"`
}

// Package is one importable package's compiled export data and vet facts.
type Package struct {
	File     string `json:"file"`
	Vetx     string `json:"vetx"`
	Standard bool   `json:"standard"`
}

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: gotest RECIPE GO [-timeout=D] FILE")
		os.Exit(2)
	}
	recipePath, goTool, args := os.Args[1], os.Args[2], os.Args[3:]
	if code, ok := fast(recipePath, args); ok {
		os.Exit(code)
	}
	argv := append([]string{goTool, "test"}, args...)
	err := syscall.Exec(goTool, argv, os.Environ())
	fmt.Fprintln(os.Stderr, "gotest: cannot run go test:", err)
	os.Exit(2)
}

// fast runs the replay; ok is false where go test itself must run.
func fast(recipePath string, args []string) (int, bool) {
	timeout := ""
	file := args[len(args)-1]
	for _, arg := range args[:len(args)-1] {
		if !strings.HasPrefix(arg, "-timeout=") {
			return 0, false
		}
		timeout = strings.TrimPrefix(arg, "-timeout=")
	}
	data, err := os.ReadFile(recipePath)
	if err != nil {
		return 0, false
	}
	var recipe Recipe
	if json.Unmarshal(data, &recipe) != nil {
		return 0, false
	}
	pkg, tests, imports, ok := examine(file, &recipe)
	if !ok {
		return 0, false
	}
	cwd, err := os.Getwd()
	if err != nil {
		return 0, false
	}
	work, err := os.MkdirTemp("", "gotest-")
	if err != nil {
		return 0, false
	}
	defer os.RemoveAll(work)
	// The binary is named after the package, as go test names it.
	binaryName := strings.TrimSuffix(pkg, "_test")
	w := func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, "{WORK}", work), "{NAME}", binaryName)
	}
	ws := func(list []string) []string {
		out := make([]string, len(list))
		for i, s := range list {
			out[i] = w(s)
		}
		return out
	}
	for _, dir := range []string{"t", "m"} {
		if os.Mkdir(filepath.Join(work, dir), 0o700) != nil {
			return 0, false
		}
	}
	write := func(name, text string) bool {
		return os.WriteFile(filepath.Join(work, name), []byte(w(text)), 0o600) == nil
	}
	if !write("t/importcfg", recipe.ImportCfg) || !write("m/importcfg", recipe.MainImportCfg) ||
		!write("m/importcfg.link", recipe.LinkImportCfg) {
		return 0, false
	}
	compile := ws(recipe.Compile)
	compile[len(compile)-1] = "./" + filepath.Base(file)
	if filepath.Dir(file) != "." || !quiet(compile, nil) {
		return 0, false
	}
	if !writeVetCfg(&recipe, work, cwd, file, imports) || !quiet(ws(recipe.Vet), []string{"TERM=dumb"}) {
		return 0, false
	}
	lines := ""
	for _, name := range tests {
		lines += strings.ReplaceAll(recipe.TestLine, "{NAME}", name) + "\n"
	}
	if !write("m/_testmain.go", strings.Replace(recipe.TestMain, "{TESTS}", lines, 1)) {
		return 0, false
	}
	linkEnv := []string{}
	for k, v := range recipe.Env {
		linkEnv = append(linkEnv, k+"="+v)
	}
	if !quiet(ws(recipe.MainCompile), nil) || !quiet(ws(recipe.Link), linkEnv) {
		return 0, false
	}
	// The environment go test gives the binary: its own, its GOROOT's bin first on PATH, and
	// PWD the package's folder.
	env := os.Environ()
	if goroot := recipe.Env["GOROOT"]; goroot != "" {
		bin := filepath.Join(goroot, "bin")
		if path := os.Getenv("PATH"); path != "" {
			bin += string(os.PathListSeparator) + path
		}
		env = append(env, "PATH="+bin)
	}
	env = append(env, "PWD="+cwd)
	return run(w(recipe.Binary), recipe.Run, timeout, recipe.PackageSummary, env), true
}

// examine parses the file: its tests in order and its imports, and whether the replay may
// build it (see the command's comment).
func examine(file string, recipe *Recipe) (string, []string, []string, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
	if err != nil {
		return "", nil, nil, false
	}
	if strings.HasSuffix(f.Name.Name, "_test") != recipe.External {
		return "", nil, nil, false
	}
	for _, group := range f.Comments {
		for _, c := range group.List {
			text := c.Text
			// Build constraints, embedded files and cgo directives are go build's to read.
			if strings.HasPrefix(text, "//go:build") || strings.HasPrefix(text, "// +build") ||
				strings.HasPrefix(text, "//go:embed") || strings.Contains(text, "#cgo") {
				return "", nil, nil, false
			}
		}
	}
	var imports []string
	testingName := ""
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			return "", nil, nil, false
		}
		if _, known := recipe.Packages[path]; !known {
			return "", nil, nil, false // "C", unsafe, or a package the probe did not build
		}
		imports = append(imports, path)
		if path == "testing" {
			testingName = "testing"
			if spec.Name != nil {
				testingName = spec.Name.Name
			}
		}
	}
	var tests []string
	for _, decl := range f.Decls {
		fn, isFunc := decl.(*ast.FuncDecl)
		if !isFunc || fn.Recv != nil {
			continue
		}
		name := fn.Name.Name
		if name == "TestMain" || isTest(name, "Benchmark") || isTest(name, "Fuzz") ||
			isTest(name, "Example") {
			return "", nil, nil, false
		}
		if !isTest(name, "Test") {
			continue
		}
		if testingName != "testing" || !takesTestingT(fn) {
			return "", nil, nil, false // go test reports a malformed test its own way
		}
		tests = append(tests, name)
	}
	if len(tests) == 0 {
		return "", nil, nil, false
	}
	return f.Name.Name, tests, imports, true
}

// isTest is go test's rule for a function name: the prefix, then nothing or not a lower-case
// letter.
func isTest(name, prefix string) bool {
	if !strings.HasPrefix(name, prefix) {
		return false
	}
	if len(name) == len(prefix) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(name[len(prefix):])
	return !unicode.IsLower(r)
}

// takesTestingT: exactly func(x *testing.T), no results, no type parameters.
func takesTestingT(fn *ast.FuncDecl) bool {
	t := fn.Type
	if t.TypeParams != nil || (t.Results != nil && len(t.Results.List) > 0) {
		return false
	}
	if t.Params == nil || len(t.Params.List) != 1 || len(t.Params.List[0].Names) > 1 {
		return false
	}
	star, ok := t.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "T" {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "testing"
}

// writeVetCfg writes vet's configuration as go test does, for the file's own imports.
func writeVetCfg(recipe *Recipe, work, cwd, file string, imports []string) bool {
	cfg := map[string]interface{}{}
	for k, v := range recipe.VetCfg {
		cfg[k] = v
	}
	importMap, files, standard, vetx := map[string]string{}, map[string]string{}, map[string]bool{}, map[string]string{}
	for _, path := range imports {
		p := recipe.Packages[path]
		importMap[path] = path
		files[path] = p.File
		if p.Standard {
			standard[path] = true
		}
		if p.Vetx != "" {
			vetx[path] = p.Vetx
		}
	}
	cfg["Dir"] = cwd
	cfg["GoFiles"] = []string{filepath.Join(cwd, filepath.Base(file))}
	cfg["ImportMap"], cfg["PackageFile"], cfg["Standard"], cfg["PackageVetx"] = importMap, files, standard, vetx
	cfg["VetxOutput"] = filepath.Join(work, "t", "vet.out")
	cfg["Stdout"] = filepath.Join(work, "t", "vet.stdout")
	data, err := json.MarshalIndent(cfg, "", "\t")
	return err == nil && os.WriteFile(filepath.Join(work, "t", "vet.cfg"), data, 0o600) == nil
}

// quiet runs a build step; true only if it exits 0 having printed nothing.
func quiet(argv []string, env []string) bool {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd.Run() == nil && out.Len() == 0
}

// run runs the test binary as go test does for a package named on its command line (its
// runTestActor): the output only when it fails, then go test's summary line.
func run(binary string, flags []string, timeout, name string, env []string) int {
	if timeout != "" {
		flags = append(append([]string{}, flags[:len(flags)-1]...), "-test.timeout="+timeout)
	}
	cmd := exec.Command(binary, flags...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	started := time.Now()
	err := cmd.Run()
	took := fmt.Sprintf("%.3fs", time.Since(started).Seconds())
	output := out.Bytes()
	if err == nil {
		norun := ""
		if bytes.HasPrefix(output, noTestsToRun[1:]) || bytes.Contains(output, noTestsToRun) {
			norun = " [no tests to run]"
		}
		if len(output) > 0 && !bytes.HasSuffix(output, []byte("\n")) {
			fmt.Print("\n")
		}
		fmt.Printf("ok  \t%s\t%s%s\n", name, took, norun)
		return 0
	}
	os.Stdout.Write(output)
	if exit, isExit := err.(*exec.ExitError); !isExit || !exit.Exited() || len(output) == 0 {
		fmt.Printf("%s\n", err)
	} else if !bytes.HasSuffix(output, []byte("\n")) {
		fmt.Print("\n")
	}
	fmt.Printf("FAIL\t%s\t%s\nFAIL\n", name, took)
	return 1
}

var noTestsToRun = []byte("\ntesting: warning: no tests to run\n")
