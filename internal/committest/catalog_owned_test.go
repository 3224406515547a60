package committest

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/catalog"
	sqlcatalog "github.com/floedb/floe/catalog/sql"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/catalogtest"
	"github.com/floedb/floe/internal/rowstest"
)

// A table a SQL catalog owns, opened by its directory (as
// Table.open(dir).append or floe append DIR would), is refused a commit:
// the catalog would never see a vN.metadata.json written beside its
// NNNNN-<uuid>.metadata.json, and its next commit would fork the history.
// Nothing is committed and no file is left; the error says to commit
// through the catalog, which still works, and reading by path still does.
func TestPathCommitIntoACatalogTableIsRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cat, err := sqlcatalog.Open(ctx, "sqlite://"+filepath.Join(dir, "c.db"), map[string]string{sqlcatalog.PropWarehouse: filepath.Join(dir, "wh")}, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if err := cat.CreateNamespace(ctx, []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	id := catalog.Identifier{Namespace: []string{"db"}, Name: "a"}
	owned, err := cat.CreateTable(ctx, id, catalogtest.IDSchema, catalog.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	catalogtest.MustAppend(t, owned, [][]any{{int64(1), "catalog"}}, "")
	location := owned.Metadata.Location
	before := rowstest.FilesUnder(t, location)

	byPath, err := table.Open(ctx, location, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := catalogtest.IDs(t, byPath); !slices.Equal(got, []int64{1}) {
		t.Fatalf("read by path: %v", got)
	}
	_, err = catalogtest.Append(t, byPath, [][]any{{int64(2), "path"}}, "")
	if !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), "through its catalog") {
		t.Fatalf("append by path: %v; want an invalid-argument error saying to commit through the catalog", err)
	}
	now := int64(1) << 62
	if _, err := byPath.ExpireSnapshots(ctx, &now, nil, table.ExpireOptions{}); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("expire by path: %v; want a refusal", err)
	}
	if after := rowstest.FilesUnder(t, location); !slices.Equal(after, before) {
		t.Errorf("a refused commit left files:\n%v\nbefore:\n%v", after, before)
	}
	reloaded, err := cat.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	catalogtest.MustAppend(t, reloaded, [][]any{{int64(3), "catalog"}}, "")
	if got := catalogtest.IDs(t, reloaded); !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("through the catalog after the refusal: %v", got)
	}
}
