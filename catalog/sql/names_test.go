package sql

import (
	"context"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/internal/catalogtest"
)

func TestUnsafeNamesAreRefused(t *testing.T) {
	onBoth(t, func(t *testing.T, handle func() *Catalog, dir string) {
		ctx := context.Background()
		c := handle()
		if err := c.CreateNamespace(ctx, []string{"ns"}, nil); err != nil {
			t.Fatal(err)
		}
		tbl, err := c.CreateTable(ctx, catalog.Identifier{Namespace: []string{"ns"}, Name: "t"}, catalogtest.IDSchema, catalog.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		catalogtest.RefusesUnsafeNames(t, c, []string{"ns"}, "t", tbl.MetadataLocation)
	})
}
