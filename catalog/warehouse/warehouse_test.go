package warehouse

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/catalogtest"
	"github.com/floedb/floe/internal/s3test"
)

var idSchema = catalogtest.IDSchema

// onBoth runs test on a local warehouse and on one in S3 (versitygw).
func onBoth(t *testing.T, test func(t *testing.T, root string, opts table.Options)) {
	t.Run("local", func(t *testing.T) { test(t, filepath.ToSlash(t.TempDir()), table.Options{}) })
	t.Run("s3", func(t *testing.T) {
		srv := s3test.Start(t)
		opts := srv.Options()
		test(t, srv.Location("wh"), table.Options{S3: &opts})
	})
}

func appendRows(t testing.TB, tbl *table.Table, rows [][]any) {
	t.Helper()
	catalogtest.MustAppend(t, tbl, rows, "")
}

func ids(t testing.TB, tbl *table.Table) []int64 { return catalogtest.IDs(t, tbl) }

func TestWarehouseCatalog(t *testing.T) {
	onBoth(t, func(t *testing.T, root string, opts table.Options) {
		ctx := context.Background()
		c, err := Open(ctx, root, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		// A table laid out before catalogs: no namespace marker.
		files, err := opts.FileIO(root)
		if err != nil {
			t.Fatal(err)
		}
		legacy, err := table.Create(ctx, files, root+"/old/t", idSchema, nil, nil, nil, 2)
		if err != nil {
			t.Fatal(err)
		}
		appendRows(t, legacy, [][]any{{int64(1), "old"}})
		if ok, err := c.NamespaceExists(ctx, []string{"old"}); !ok || err != nil {
			t.Fatalf("the legacy namespace: %v %v", ok, err)
		}

		if err := c.CreateNamespace(ctx, []string{"a"}, map[string]string{"owner": "floe"}); err != nil {
			t.Fatal(err)
		}
		if err := c.CreateNamespace(ctx, []string{"a", "b"}, nil); err != nil {
			t.Fatal(err)
		}
		if err := c.CreateNamespace(ctx, []string{"a"}, nil); !errors.Is(err, catalog.ErrNamespaceExists) {
			t.Fatalf("second create: %v", err)
		}
		top, err := c.ListNamespaces(ctx, nil)
		if err != nil || len(top) != 2 || top[0][0] != "a" || top[1][0] != "old" {
			t.Fatalf("top namespaces %v (%v)", top, err)
		}
		if below, err := c.ListNamespaces(ctx, []string{"a"}); err != nil || len(below) != 1 || catalog.JoinNamespace(below[0]) != "a.b" {
			t.Fatalf("below a: %v (%v)", below, err)
		}
		if err := c.UpdateNamespaceProperties(ctx, []string{"a"}, []string{"owner"}, map[string]string{"team": "x"}); err != nil {
			t.Fatal(err)
		}
		if props, err := c.NamespaceProperties(ctx, []string{"a"}); err != nil || props["team"] != "x" || len(props) != 1 {
			t.Fatalf("properties %v (%v)", props, err)
		}

		id := catalog.Identifier{Namespace: []string{"a", "b"}, Name: "t"}
		if _, err := c.CreateTable(ctx, catalog.Identifier{Namespace: []string{"nope"}, Name: "t"}, idSchema, catalog.CreateOptions{}); !errors.Is(err, catalog.ErrNoSuchNamespace) {
			t.Fatalf("create in a missing namespace: %v", err)
		}
		tbl, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if tbl.Metadata.Location != root+"/a/b/t" {
			t.Fatalf("location %s", tbl.Metadata.Location)
		}
		if _, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{}); !errors.Is(err, catalog.ErrTableExists) {
			t.Fatalf("second create: %v", err)
		}
		appendRows(t, tbl, [][]any{{int64(1), "x"}, {int64(2), "x"}})
		loaded, err := c.LoadTable(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(t, loaded); !slices.Equal(got, []int64{1, 2}) {
			t.Fatalf("rows %v", got)
		}
		if list, err := c.ListTables(ctx, []string{"a", "b"}); err != nil || len(list) != 1 || list[0].String() != "a.b.t" {
			t.Fatalf("tables %v (%v)", list, err)
		}
		if list, err := c.ListTables(ctx, []string{"old"}); err != nil || len(list) != 1 || list[0].String() != "old.t" {
			t.Fatalf("legacy tables %v (%v)", list, err)
		}
		if err := c.DropNamespace(ctx, []string{"a", "b"}); !errors.Is(err, catalog.ErrNamespaceNotEmpty) {
			t.Fatalf("drop a namespace with a table: %v", err)
		}
		if err := c.RenameTable(ctx, id, catalog.Identifier{Namespace: []string{"a"}, Name: "u"}); !errors.Is(err, errkind.Unsupported) {
			t.Fatalf("rename: %v", err)
		}

		if err := c.DropTable(ctx, id, false); err != nil {
			t.Fatal(err)
		}
		if ok, err := c.TableExists(ctx, id); ok || err != nil {
			t.Fatalf("exists after drop: %v %v", ok, err)
		}
		if _, err := c.LoadTable(ctx, id); !errors.Is(err, catalog.ErrNoSuchTable) {
			t.Fatalf("load after drop: %v", err)
		}
		if err := c.DropNamespace(ctx, []string{"a", "b"}); err != nil {
			t.Fatalf("drop the emptied namespace: %v", err)
		}
		if ok, err := c.NamespaceExists(ctx, []string{"a", "b"}); ok || err != nil {
			t.Fatalf("a.b after drop: %v %v", ok, err)
		}
		// Purge: the legacy table's files go, every metadata version too
		// (more than its metadata log keeps).
		if err := legacy.SetProperties(ctx, map[string]string{"write.metadata.previous-versions-max": "1"}, nil); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			appendRows(t, legacy, [][]any{{int64(10 + i), "old"}})
		}
		before := legacy.MetadataLocation
		if err := c.DropTable(ctx, catalog.Identifier{Namespace: []string{"old"}, Name: "t"}, true); err != nil {
			t.Fatal(err)
		}
		if ok, err := legacy.IO.Exists(ctx, before); ok || err != nil {
			t.Fatalf("metadata after purge: %v %v", ok, err)
		}
		if ok, err := c.TableExists(ctx, catalog.Identifier{Namespace: []string{"old"}, Name: "t"}); ok || err != nil {
			t.Fatalf("the purged table still exists (an older metadata version was left): %v %v", ok, err)
		}
	})
}
