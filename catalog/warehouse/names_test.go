package warehouse

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/catalogtest"
)

// In a warehouse every name is a directory: an unsafe one would make a
// table outside it. Nothing appears beside the warehouse either.
func TestUnsafeNamesAreRefused(t *testing.T) {
	ctx := context.Background()
	parent := t.TempDir()
	root := filepath.ToSlash(filepath.Join(parent, "wh"))
	c, err := Open(ctx, root, nil, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateNamespace(ctx, []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl, err := c.CreateTable(ctx, catalog.Identifier{Namespace: []string{"ns"}, Name: "t"}, idSchema, catalog.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	catalogtest.RefusesUnsafeNames(t, c, []string{"ns"}, "t", tbl.MetadataLocation)
	entries, err := os.ReadDir(parent)
	if err != nil || len(entries) != 1 || entries[0].Name() != "wh" {
		t.Errorf("beside the warehouse: %v (%v)", entries, err)
	}
}
