package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
)

// isolateConfig gives the test an empty home and working directory and
// no configuration variables, so that only what it writes configures.
func isolateConfig(t *testing.T) (home, cwd string) {
	t.Helper()
	home, cwd = t.TempDir(), t.TempDir()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(strings.ToUpper(k), "PYICEBERG_") {
			t.Setenv(k, "")
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("FLOE_CATALOG", "")
	t.Chdir(cwd)
	return home, cwd
}

// --catalog NAME over the shared fixture resolves every named case as
// catalog/config's own test and Python's test_config.py do.
func TestCatalogNameOverSharedFixture(t *testing.T) {
	fixture, err := filepath.Abs(filepath.Join("..", "..", "testdata", "pyiceberg-config"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(fixture, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Secrets []string
		Cases   []struct {
			What, Name    string
			Env, Explicit map[string]string
			Want          struct {
				Error, Type, URI string
				Props            map[string]string
			}
		}
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]errkind.Kind{"NOT_FOUND": errkind.NotFound, "INVALID_ARGUMENT": errkind.InvalidArgument, "UNSUPPORTED": errkind.Unsupported}
	ran := 0
	for _, c := range f.Cases {
		if c.Name == "" {
			continue // the CLI has no default catalog but $FLOE_CATALOG
		}
		t.Run(c.What, func(t *testing.T) {
			isolateConfig(t)
			t.Setenv("PYICEBERG_HOME", fixture)
			for k, v := range c.Env {
				t.Setenv(k, v)
			}
			uri, props, err := catalogTarget(c.Name, true, c.Explicit)
			if c.Want.Error != "" {
				if !errors.Is(err, kinds[c.Want.Error]) {
					t.Fatalf("got %q %v, %v; want %s", uri, props, err, c.Want.Error)
				}
				for _, s := range f.Secrets {
					if strings.Contains(err.Error(), s) {
						t.Errorf("message shows a secret: %v", err)
					}
				}
				return
			}
			if err != nil || uri != c.Want.URI || !reflect.DeepEqual(props, c.Want.Props) {
				t.Errorf("got %q %v, %v; want %q %v", uri, props, err, c.Want.URI, c.Want.Props)
			}
		})
		ran++
	}
	if ran < 15 {
		t.Fatalf("only %d cases", ran)
	}
}

// Commands open catalogs by name: a SQLite catalog from ~/.pyiceberg.yaml,
// the variables over the file, --catalog-prop over the variables,
// $FLOE_CATALOG naming one, a warehouse from the working directory's
// file; a misspelt name is not found and makes no directory, and a bare
// directory still opens as a warehouse.
func TestCatalogByName(t *testing.T) {
	home, cwd := isolateConfig(t)
	dir := t.TempDir()
	rows := filepath.Join(dir, "rows.jsonl")
	writeTestFile(t, rows, `{"id": 1}`+"\n")
	a, b := "sqlite:"+filepath.Join(dir, "a.db"), "sqlite:"+filepath.Join(dir, "b.db")
	for _, uri := range []string{a, b} {
		mustRun(t, "catalog", "create-namespace", strings.TrimSuffix(filepath.Base(uri), ".db"), "--catalog", uri,
			"--catalog-prop", "name=local", "--catalog-prop", "warehouse="+filepath.Join(dir, "wh"))
	}
	writeTestFile(t, filepath.Join(home, ".pyiceberg.yaml"), "catalog:\n  LOCAL:\n    uri: "+a+"\n    warehouse: "+filepath.Join(dir, "wh")+"\n")
	namespaces := func(args ...string) string {
		t.Helper()
		return mustRun(t, append([]string{"catalog", "namespaces"}, args...)...)
	}
	if out := namespaces("--catalog", "local"); out != "a\n" {
		t.Errorf("from the file: %q", out)
	}
	mustRun(t, "append", "a.events", rows, "--catalog", "local")
	if out := mustRun(t, "catalog", "tables", "a", "--catalog", "local"); out != "a.events\n" {
		t.Errorf("tables: %q", out)
	}
	t.Setenv("PYICEBERG_CATALOG__LOCAL__URI", b)
	if out := namespaces("--catalog", "local"); out != "b\n" {
		t.Errorf("the variable over the file: %q", out)
	}
	if out := namespaces("--catalog", "local", "--catalog-prop", "uri="+a); out != "a\n" {
		t.Errorf("--catalog-prop over the variable: %q", out)
	}
	t.Setenv("FLOE_CATALOG", "local")
	if out := namespaces(); out != "b\n" {
		t.Errorf("$FLOE_CATALOG naming a catalog: %q", out)
	}
	t.Setenv("FLOE_CATALOG", "")

	// The home file wins over the working directory's: the lake is only
	// there, so it is not configured until the home file goes.
	wh := filepath.Join(dir, "lake")
	writeTestFile(t, filepath.Join(cwd, ".pyiceberg.yaml"), "catalog:\n  lake:\n    type: warehouse\n    warehouse: "+wh+"\n")
	status, _, errOut := runCLI(t, "catalog", "create-namespace", "db", "--catalog", "lake")
	if status == 0 || !strings.Contains(errOut, `catalog "lake" is not configured`) || !strings.Contains(errOut, filepath.Join(home, ".pyiceberg.yaml")) {
		t.Errorf("a catalog only the second file has: %d %s", status, errOut)
	}
	if err := os.Remove(filepath.Join(home, ".pyiceberg.yaml")); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "append", "db.events", rows, "--catalog", "lake", "--create-namespace")
	if _, err := os.Stat(filepath.Join(wh, "db", "events", "metadata")); err != nil {
		t.Errorf("the warehouse catalog's table: %v", err)
	}

	status, _, errOut = runCLI(t, "catalog", "create-namespace", "db", "--catalog", "lkae")
	if status == 0 || !strings.Contains(errOut, `"lkae" is not configured`) || !strings.Contains(errOut, "lake") {
		t.Errorf("a misspelt name: %d %s", status, errOut)
	}
	if _, err := os.Stat(filepath.Join(cwd, "lkae")); !os.IsNotExist(err) {
		t.Errorf("a misspelt name made a directory: %v", err)
	}
	if err := os.Mkdir(filepath.Join(cwd, "plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "catalog", "create-namespace", "ns", "--catalog", "plain")
	if _, err := os.Stat(filepath.Join(cwd, "plain", "ns")); err != nil {
		t.Errorf("a bare directory as a warehouse: %v", err)
	}
}

// A malformed file is refused naming it, without its values.
func TestCatalogNameMalformedFile(t *testing.T) {
	home, _ := isolateConfig(t)
	writeTestFile(t, filepath.Join(home, ".pyiceberg.yaml"), "catalog:\n  local:\n    token: \"topsecret\n")
	status, _, errOut := runCLI(t, "catalog", "namespaces", "--catalog", "local")
	if status == 0 || !strings.Contains(errOut, filepath.Join(home, ".pyiceberg.yaml")) || strings.Contains(errOut, "topsecret") {
		t.Errorf("%d %s", status, errOut)
	}
	// A URI does not read the configuration at all.
	mustRun(t, "catalog", "namespaces", "--catalog", filepath.Join(home))
}
