package sql

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/errkind"
)

// Rows another program wrote into the catalog's tables (any namespace
// text, table name, metadata location, type and property) are read
// without a panic: listing finds them, and loading a table whose row is
// garbage is an error naming the table, never a crash or a table.
func FuzzSQLCatalogRows(f *testing.F) {
	f.Add("db", "t", "/nonexistent/metadata/v1.metadata.json", "TABLE", "owner", "x")
	f.Add("a.b", "", "", "", "exists", "true")
	f.Add(".", "..", "s3://", "VIEW", "", "")
	f.Add("db", "t", "file:///etc/passwd", "table", "k", "\x00")
	dir := f.TempDir()
	c := openURI(f, "sqlite:"+filepath.Join(dir, "catalog.db"), filepath.Join(dir, "wh"))
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, ns, name, location, kind, key, value string) {
		if _, err := c.db.ExecContext(ctx, `DELETE FROM iceberg_tables`); err != nil {
			t.Fatal(err)
		}
		if _, err := c.db.ExecContext(ctx, `DELETE FROM iceberg_namespace_properties`); err != nil {
			t.Fatal(err)
		}
		if _, err := c.db.ExecContext(ctx, `INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, iceberg_type) VALUES (?, ?, ?, ?, ?)`,
			c.name, ns, name, location, kind); err != nil {
			return // a value the database refuses
		}
		if _, err := c.db.ExecContext(ctx, `INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, property_value) VALUES (?, ?, ?, ?)`,
			c.name, ns, key, value); err != nil {
			return
		}
		if _, err := c.ListNamespaces(ctx, nil); err != nil {
			t.Fatalf("list namespaces: %v", err)
		}
		levels := catalog.SplitNamespace(ns)
		_, _ = c.ListTables(ctx, levels)
		_, _ = c.NamespaceProperties(ctx, levels)
		tbl, err := c.LoadTable(ctx, catalog.Identifier{Namespace: levels, Name: name})
		if err == nil {
			if tbl == nil || tbl.Metadata == nil {
				t.Fatal("a table loaded from a row without metadata")
			}
			return
		}
		// The error says which table, unless there is none by that name.
		id := catalog.Identifier{Namespace: levels, Name: name}
		if !errors.Is(err, catalog.ErrNoSuchTable) && !errors.Is(err, errkind.InvalidArgument) && !strings.Contains(err.Error(), id.String()) {
			t.Fatalf("loading row (%q, %q, %q): the error does not name the table: %v", ns, name, location, err)
		}
	})
}
