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

// forbidden lists, for a package and the packages below it, the floe
// packages it must not depend on (directly or not); the longest key that
// names a package decides. The Parquet core knows nothing of Iceberg,
// pruning or scans; pruning knows Parquet and expressions but not tables,
// manifests or storage; the table format knows no file format and no
// catalog; a transaction's metadata actions (iceberg/action) know
// metadata, not manifests, storage or the tables that run them; catalogs know tables and storage, not file formats or scans;
// writer writes files, and reading tables and committing are writer/ops's;
// maintain (table maintenance actions) uses all of those and only the
// interfaces (and internal/maintenance, their shared options) use it;
// the Parquet file writer under it, like the Parquet reader, knows no
// Iceberg.
var forbidden = map[string][]string{
	"errkind":            {"iceberg", "reader", "writer", "kernels", "catalog", "capi", "cmd", "internal"},
	"kernels":            {"iceberg", "reader", "writer", "capi", "cmd", "internal"},
	"reader/parquet":     {"iceberg", "reader/prune", "reader/scan", "writer", "catalog", "capi", "cmd", "internal"},
	"reader/prune":       {"iceberg/table", "iceberg/manifest", "iceberg/metadata", "iceberg/fileio", "reader/scan", "writer", "capi", "cmd", "internal"},
	"reader/scan":        {"writer", "catalog", "capi", "cmd", "maintain"},
	"reader/inspect":     {"writer", "catalog", "capi", "cmd", "maintain"},
	"iceberg":            {"reader", "writer", "catalog", "capi", "cmd", "maintain"},
	"iceberg/action":     {"iceberg/table", "iceberg/manifest", "iceberg/fileio", "iceberg/puffin", "reader", "writer", "catalog", "capi", "cmd", "internal"},
	"catalog":            {"reader", "writer", "capi", "cmd", "maintain"},
	"writer":             {"reader/scan", "iceberg/table", "catalog", "capi", "cmd"},
	"writer/ops":         {"capi", "cmd", "maintain"},
	"maintain":           {"capi", "cmd"},
	"writer/parquetfile": {"iceberg", "reader", "kernels", "catalog", "capi", "cmd", "internal", "errkind", "writer/ops"},
	"capi":               {"cmd"},
	"internal":           {"capi", "cmd", "maintain"},
	// The interfaces' shared form of the maintenance actions.
	"internal/maintenance": {"capi", "cmd"},
}

// rulesFor is the forbidden list of the most specific key covering pkg.
func rulesFor(pkg string) []string {
	best := ""
	for key := range forbidden {
		if (pkg == key || strings.HasPrefix(pkg, key+"/")) && len(key) > len(best) {
			best = key
		}
	}
	return forbidden[best]
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
		for _, dep := range strings.Split(parts[1], ",") {
			if !strings.HasPrefix(dep, module) {
				continue
			}
			d := strings.TrimPrefix(dep, module)
			for _, bad := range rulesFor(pkg) {
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
