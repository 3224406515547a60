package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/catalog/open"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/catalogtest"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/maintain"
	"github.com/floedb/floe/writer"
	"github.com/floedb/floe/writer/ops"
)

// Tables a catalog owns keep their statistics current on commit as
// path-opened ones do: after floe_catalog_commit_transaction appends to a
// table with write.statistics.on-commit=true and to one without, the
// first's new snapshot has a statistics file and the second's none; a
// floe_table_transaction on the catalog's table does the same.
func TestStatisticsOnCommitThroughCatalog(t *testing.T) {
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
	ch := &catalogHandle{cat: cat, refs: 1}
	names := []string{"kept", "plain"}
	var handles []*tableHandle
	var ids []uintptr
	for i, name := range names {
		props := map[string]string{}
		if i == 0 {
			props[maintain.PropStatisticsOnCommit] = "true"
		}
		tbl, err := cat.CreateTable(ctx, catalog.Identifier{Namespace: []string{"db"}, Name: name}, catalogtest.IDSchema, catalog.CreateOptions{Properties: props})
		if err != nil {
			t.Fatal(err)
		}
		th := &tableHandle{table: tbl}
		handles = append(handles, th)
		ids = append(ids, newHandle(th))
	}
	appendList := func(th *tableHandle, id int64) []any {
		rr := rowstest.Reader(t, th.current().Metadata.CurrentSchema(), [][]any{{id, "x"}, {id + 1, "y"}})
		files, err := ops.WriteFiles(ctx, th.current(), rr)
		rr.Release()
		if err != nil {
			t.Fatal(err)
		}
		enc, err := writer.EncodeDataFiles(files)
		if err != nil {
			t.Fatal(err)
		}
		return []any{map[string]any{"action": "append-files", "files": enc}}
	}
	// statsCurrent loads the table from the catalog afresh.
	statsCurrent := func(name string) bool {
		tbl, err := cat.LoadTable(ctx, catalog.Identifier{Namespace: []string{"db"}, Name: name})
		if err != nil {
			t.Fatal(err)
		}
		md := tbl.Metadata
		for _, f := range md.Statistics {
			if md.CurrentSnapshotID != nil && f.SnapshotID == *md.CurrentSnapshotID {
				return true
			}
		}
		return false
	}

	list, _ := json.Marshal([]any{
		map[string]any{"actions": appendList(handles[0], 1)},
		map[string]any{"actions": appendList(handles[1], 1)},
	})
	if _, _, err := catalogTransaction(ch, ids, handles, list, nil); err != nil {
		t.Fatal(err)
	}
	if !statsCurrent("kept") || statsCurrent("plain") {
		t.Fatalf("after the catalog transaction: statistics current %v (on commit) and %v (not kept)", statsCurrent("kept"), statsCurrent("plain"))
	}

	one, _ := json.Marshal(appendList(handles[0], 10))
	if _, _, err := tableTransaction(handles[0], one, nil); err != nil {
		t.Fatal(err)
	}
	if !statsCurrent("kept") {
		t.Fatal("after a table transaction on the catalog's table: no statistics for its snapshot")
	}
	// The handle holds the version with the statistics: the next commit
	// through it does not conflict with the one the statistics made.
	if _, _, err := tableTransaction(handles[0], mustJSON(t, appendList(handles[0], 20)), nil); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
