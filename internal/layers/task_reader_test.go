package layers

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/floedb/floe/internal/fixtures"
)

// Package scan holds two layers: the scan orchestration (files named
// scan*.go: options, planning, streaming, runtime filters, metrics) and,
// in its other files, the task: the Task that is only data about what to
// read, and the reader of one task (task_*.go, deletes*.go, filter*.go,
// project_*.go, …). The reader gets what the running process lends it
// through readEnv and filterSource and must use nothing of the scan, as
// if it were a package of its own; it is not one because ~40 of scan's
// test files drive the reader through scan.New and look at its state, and
// an in-package test of a scan/task package could not import scan.
//
// This test type-checks package scan and fails on any use, in a task-side
// file, of something declared in a scan-side file.
func TestTaskReaderUsesNothingOfTheScan(t *testing.T) {
	root, err := fixtures.Root()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "reader", "scan")
	fset, uses := typeCheckUses(t, root, dir)
	fileOf := func(pos token.Pos) string { return fset.Position(pos).Filename }
	scanSide := func(file string) bool { return strings.HasPrefix(filepath.Base(file), "scan") }
	var bad []string
	checked := 0
	for id, obj := range uses {
		if obj.Pkg() == nil || obj.Pkg().Path() != module+"reader/scan" {
			continue
		}
		checked++
		if u, d := fileOf(id.Pos()), fileOf(obj.Pos()); !scanSide(u) && scanSide(d) {
			bad = append(bad, filepath.Base(u)+" uses "+obj.Name()+" of "+filepath.Base(d))
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d uses of package scan's own names seen: the check sees nothing", checked)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// typeCheckUses type-checks the non-test files of the package in dir
// against its dependencies' export data (go list -export: a fraction of a
// second once built, against ~45 s from source) and returns every use of
// an identifier.
func typeCheckUses(t *testing.T, root, dir string) (*token.FileSet, map[*ast.Ident]types.Object) {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}", dir)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	exports := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if path, file, ok := strings.Cut(line, "="); ok {
			exports[path] = file
		}
	}
	fset := token.NewFileSet()
	names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{Importer: imp}).Check(module+"reader/scan", fset, files, info); err != nil {
		t.Fatalf("type-checking scan: %v", err)
	}
	return fset, info.Uses
}
