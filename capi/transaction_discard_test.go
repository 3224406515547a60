package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/catalog/open"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/catalogtest"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/writer"
	"github.com/floedb/floe/writer/ops"
)

// discardFixture is a SQLite catalog with tables a and b of the catalogs'
// test schema, each with a data file written (not committed): its local
// path and floe_write_files' bytes.
type discardFixture struct {
	cat     *catalogHandle
	handles []*tableHandle
	ids     []uintptr
	paths   []string
	files   [][]byte
}

func newDiscardFixture(t *testing.T) *discardFixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	cat, err := open.Catalog(ctx, "sqlite:"+filepath.Join(dir, "c.db"), map[string]string{"warehouse": filepath.Join(dir, "wh")}, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	if err := cat.CreateNamespace(ctx, []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	f := &discardFixture{cat: &catalogHandle{cat: cat, refs: 1}}
	for _, name := range []string{"a", "b"} {
		tbl, err := cat.CreateTable(ctx, catalog.Identifier{Namespace: []string{"db"}, Name: name}, catalogtest.IDSchema, catalog.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), [][]any{{int64(1), name}})
		files, err := ops.WriteFiles(ctx, tbl, rr)
		rr.Release()
		if err != nil {
			t.Fatal(err)
		}
		enc, err := writer.EncodeDataFiles(files)
		if err != nil {
			t.Fatal(err)
		}
		th := &tableHandle{table: tbl}
		f.handles = append(f.handles, th)
		f.ids = append(f.ids, newHandle(th))
		f.paths = append(f.paths, strings.TrimPrefix(tbl.Locations.Apply(files[0].FilePath), "file://"))
		f.files = append(f.files, enc)
	}
	return f
}

func (f *discardFixture) left(t *testing.T) []string {
	var out []string
	for _, p := range f.paths {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// A list refused as it is read (a misspelt action after an append) with
// discard_refused: nothing commits and the append's file goes.
func TestTransactionParseRefusalDiscardsFiles(t *testing.T) {
	f := newDiscardFixture(t)
	list, _ := json.Marshal([]any{
		map[string]any{"action": "append-files", "files": f.files[0]},
		map[string]any{"action": "set-propertys", "updates": map[string]string{"k": "v"}},
	})
	before := f.handles[0].current().MetadataLocation
	if _, st, err := tableTransaction(f.handles[0], list, []byte(`{"discard_refused": true}`)); err == nil || st != statusInvalidArgument || !strings.Contains(err.Error(), "set-propertys") {
		t.Fatalf("a misspelt action: %v %v", st, err)
	}
	if got := f.handles[0].current().MetadataLocation; got != before {
		t.Fatalf("a refused list committed %s", got)
	}
	if left := f.left(t); len(left) != 1 || left[0] != f.paths[1] {
		t.Fatalf("files left: %v (only table b's, not in the list, should be)", left)
	}
}

// In a multi-table list, every table's files go with discard_refused,
// whichever list was refused, as read or as added.
func TestCatalogTransactionRefusalDiscardsEveryTablesFiles(t *testing.T) {
	for name, first := range map[string]any{
		"read":  map[string]any{"action": "no-such-action"},
		"added": map[string]any{"action": "cherry-pick", "snapshot-id": 42},
	} {
		t.Run(name, func(t *testing.T) {
			f := newDiscardFixture(t)
			list, _ := json.Marshal([]any{
				map[string]any{"actions": []any{map[string]any{"action": "append-files", "files": f.files[0]}, first}},
				map[string]any{"actions": []any{map[string]any{"action": "append-files", "files": f.files[1]}}},
			})
			if _, _, err := catalogTransaction(f.cat, f.ids, f.handles, list, []byte(`{"discard_refused": true}`)); err == nil {
				t.Fatal("committed")
			}
			if left := f.left(t); len(left) != 0 {
				t.Fatalf("discard_refused left %v", left)
			}
		})
	}
}
