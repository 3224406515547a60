package rowstest

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// CopyFixture copies a shared fixture table into a scratch directory
// (fixtures are never changed in place) and opens its current metadata
// there, its location map pointed at the copy. A missing fixture skips
// the test.
func CopyFixture(t testing.TB, name string) *table.Table {
	t.Helper()
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Skip(err)
	}
	// A table of a fixture holding several (duckdb_equality_deletes/mytable)
	// has its location mapped onto the fixture's directory: copy that, so
	// the map points into the copy and writes land there.
	root := fx.Dir
	for _, target := range fx.LocationMap {
		if rel, err := filepath.Rel(target, root); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			root = target
		}
	}
	dir := filepath.Join(t.TempDir(), "copy")
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		return copyFile(path, filepath.Join(dir, rel))
	})
	if err != nil {
		t.Fatal(err)
	}
	locations := map[string]string{}
	for prefix, target := range fx.LocationMap {
		locations[prefix] = strings.Replace(target, root, dir, 1)
	}
	tbl, err := table.Open(context.Background(), strings.Replace(fx.Metadata, root, dir, 1), table.Options{LocationMap: locations})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
