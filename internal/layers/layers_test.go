// Package layers holds the test that keeps the package dependencies
// pointing one way, as docs/ARCHITECTURE.md draws them.
package layers

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/internal/fixtures"
)

const module = "github.com/floedb/floe/"

// forbidden lists, for a package path prefix, the floe packages it must
// not depend on (directly or not).
var forbidden = map[string][]string{
	"kernels":  {"iceberg", "reader", "writer", "capi", "cmd", "internal"},
	"iceberg":  {"reader", "writer", "capi", "cmd"},
	"reader":   {"writer", "capi", "cmd"},
	"writer":   {"capi", "cmd"},
	"capi":     {"cmd"},
	"internal": {"capi", "cmd"},
}

func TestDependenciesPointOneWay(t *testing.T) {
	root, err := fixtures.Root()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Deps ","}}|{{len .CgoFiles}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "|", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[0], module) {
			continue
		}
		pkg := strings.TrimPrefix(parts[0], module)
		checked++
		if parts[2] != "0" && pkg != "capi" {
			t.Errorf("%s uses cgo; only capi may", pkg)
		}
		top := strings.SplitN(pkg, "/", 2)[0]
		for _, dep := range strings.Split(parts[1], ",") {
			if !strings.HasPrefix(dep, module) {
				continue
			}
			d := strings.TrimPrefix(dep, module)
			for _, bad := range forbidden[top] {
				if d == bad || strings.HasPrefix(d, bad+"/") {
					t.Errorf("%s depends on %s", pkg, d)
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("go list in %s named only %d floe packages", filepath.Clean(root), checked)
	}
}
