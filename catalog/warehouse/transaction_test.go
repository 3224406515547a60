package warehouse

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
)

// A warehouse's tables are metadata directories, each its own: a
// multi-table transaction is refused as UNSUPPORTED, naming the catalogs
// that can, and neither table changes.
func TestMultiTableTransactionRefused(t *testing.T) {
	ctx := context.Background()
	c, err := Open(ctx, filepath.ToSlash(t.TempDir()), nil, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateNamespace(ctx, []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	var txs []*table.Transaction
	var before []string
	for _, name := range []string{"a", "b"} {
		tbl, err := c.CreateTable(ctx, catalog.Identifier{Namespace: []string{"ns"}, Name: name}, idSchema, catalog.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		before = append(before, tbl.MetadataLocation)
		txs = append(txs, tbl.Transaction().SetProperties(map[string]string{"k": name}, nil))
	}
	_, err = catalog.CommitTransaction(ctx, c, txs...)
	if !errors.Is(err, errkind.Unsupported) || !strings.Contains(err.Error(), "SQL") {
		t.Fatalf("a warehouse multi-table transaction: %v, want UNSUPPORTED naming the catalogs that can", err)
	}
	for i, name := range []string{"a", "b"} {
		tbl, err := c.LoadTable(ctx, catalog.Identifier{Namespace: []string{"ns"}, Name: name})
		if err != nil {
			t.Fatal(err)
		}
		if tbl.MetadataLocation != before[i] {
			t.Errorf("table %s moved", name)
		}
	}
}
