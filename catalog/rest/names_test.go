package rest_test

import (
	"context"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/internal/catalogtest"
)

// Names that are not one location segment are refused before a request.
func TestUnsafeNamesAreRefused(t *testing.T) {
	ctx := context.Background()
	c := open(t, newServer(t), nil)
	if err := c.CreateNamespace(ctx, []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl, err := c.CreateTable(ctx, catalog.Identifier{Namespace: []string{"ns"}, Name: "t"}, idSchema, catalog.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	catalogtest.RefusesUnsafeNames(t, c, []string{"ns"}, "t", tbl.MetadataLocation)
}
