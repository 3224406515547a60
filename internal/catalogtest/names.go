package catalogtest

import (
	"context"
	"errors"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/errkind"
)

// UnsafeNames are namespace levels and table names no catalog may create:
// each would be something other than one segment of a location.
var UnsafeNames = []string{"", ".", "..", "a/b", "../escape", "..\\escape", "a\\b", "a\x00b", "a\nb"}

// RefusesUnsafeNames checks that cat refuses every unsafe name, as a
// namespace level and as a table name, in CreateNamespace, CreateTable,
// RegisterTable and RenameTable (to), with an InvalidArgument error, and
// that nothing was created. ns must exist and hold the table existing.
func RefusesUnsafeNames(t *testing.T, cat catalog.Catalog, ns []string, existing string, metadataLocation string) {
	t.Helper()
	ctx := context.Background()
	invalid := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("%s: %v, want an invalid-argument error", what, err)
		}
	}
	for _, name := range UnsafeNames {
		invalid("create namespace "+quote(name), cat.CreateNamespace(ctx, []string{name}, nil))
		invalid("create namespace level "+quote(name), cat.CreateNamespace(ctx, append(append([]string(nil), ns...), name), nil))
		bad := catalog.Identifier{Namespace: ns, Name: name}
		_, err := cat.CreateTable(ctx, bad, IDSchema, catalog.CreateOptions{})
		invalid("create table "+quote(name), err)
		_, err = cat.CreateTable(ctx, catalog.Identifier{Namespace: []string{name}, Name: "t"}, IDSchema, catalog.CreateOptions{})
		invalid("create table in namespace "+quote(name), err)
		_, err = cat.RegisterTable(ctx, bad, metadataLocation)
		invalid("register table "+quote(name), err)
		invalid("rename to "+quote(name), cat.RenameTable(ctx, catalog.Identifier{Namespace: ns, Name: existing}, bad))
	}
	tables, err := cat.ListTables(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 1 || tables[0].Name != existing {
		t.Errorf("after the refused creates %v holds %v, want only %s", ns, tables, existing)
	}
}

func quote(s string) string { return "\"" + s + "\"" }
