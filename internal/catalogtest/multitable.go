package catalogtest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/writer/ops"
)

// WriteFiles writes rows of tbl's current schema as data files under its
// data location, committing nothing (ops.WriteFiles).
func WriteFiles(t testing.TB, tbl *table.Table, rows [][]any) []manifest.DataFile {
	t.Helper()
	rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), rows)
	defer rr.Release()
	files, err := ops.WriteFiles(context.Background(), tbl, rr)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// AddColumn is a schema change for tests: an optional string column
// added at the end (a new schema made current), so its updates imply the
// requirements a schema change has (current schema id, last column id).
type AddColumn struct{ Column string }

func (a AddColumn) Name() string { return "add-column" }

func (a AddColumn) Build(md *metadata.Metadata) ([]metadata.Update, error) {
	cur := md.CurrentSchema()
	if _, ok := cur.FindFieldByName(a.Column); ok {
		return nil, errkind.Errorf(errkind.InvalidArgument, "column %q exists", a.Column)
	}
	id := 0
	for _, s := range md.Schemas {
		id = max(id, s.ID+1)
	}
	fields := append(slices.Clone(cur.Fields), iceberg.NestedField{ID: md.LastColumnID + 1, Name: a.Column, Type: iceberg.StringType{}})
	return []metadata.Update{
		metadata.AddSchema{Schema: iceberg.NewSchema(id, fields, cur.IdentifierFieldIDs...)},
		metadata.SetCurrentSchema{SchemaID: -1},
	}, nil
}

// MultiTable checks catalog.CommitTransaction on cat: two tables changed
// together (a property, a schema change and an append on one, an append
// on the other) move together; a transaction built on a stale version
// retries when nothing it depended on changed; and when one table's
// transaction conflicts, neither table changes and the files written for
// both are deleted. The tables are made in namespace ns, which must not
// exist; reopen opens another handle on the same catalog (nil: use cat).
func MultiTable(t *testing.T, cat catalog.Catalog, ns []string, reopen func() catalog.Catalog) {
	t.Helper()
	ctx := context.Background()
	if reopen == nil {
		reopen = func() catalog.Catalog { return cat }
	}
	if err := cat.CreateNamespace(ctx, ns, nil); err != nil {
		t.Fatal(err)
	}
	idA := catalog.Identifier{Namespace: ns, Name: "orders"}
	idB := catalog.Identifier{Namespace: ns, Name: "totals"}
	for _, id := range []catalog.Identifier{idA, idB} {
		tbl, err := cat.CreateTable(ctx, id, IDSchema, catalog.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		MustAppend(t, tbl, [][]any{{int64(1), "base"}}, "")
	}
	load := func(c catalog.Catalog, id catalog.Identifier) *table.Table { t.Helper(); return Load(t, c, id) }

	t.Run("together", func(t *testing.T) {
		a, b := load(cat, idA), load(cat, idB)
		logA := len(a.Metadata.MetadataLog)
		txA := a.Transaction()
		txA.SetProperties(map[string]string{"batch": "7"}, nil)
		txA.Add(AddColumn{Column: "note"})
		if err := txA.Append(WriteFiles(t, a, [][]any{{int64(2), "tx"}}), table.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		txB := b.Transaction()
		if err := txB.Append(WriteFiles(t, b, [][]any{{int64(20), "tx"}, {int64(21), "tx"}}), table.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		res, err := catalog.CommitTransaction(ctx, cat, txA, txB)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 2 || !res[0].Committed || !res[1].Committed || len(res[0].SnapshotIDs) != 1 || len(res[1].SnapshotIDs) != 1 {
			t.Fatalf("results %+v", res)
		}
		other := reopen()
		la, lb := load(other, idA), load(other, idB)
		if la.MetadataLocation != res[0].MetadataLocation || lb.MetadataLocation != res[1].MetadataLocation {
			t.Fatalf("the catalog points at %s and %s, the results say %s and %s", la.MetadataLocation, lb.MetadataLocation, res[0].MetadataLocation, res[1].MetadataLocation)
		}
		if a.MetadataLocation != la.MetadataLocation || b.MetadataLocation != lb.MetadataLocation {
			t.Errorf("the committed tables were not moved to their new versions")
		}
		if la.Metadata.Properties["batch"] != "7" {
			t.Errorf("properties %v", la.Metadata.Properties)
		}
		if _, ok := la.Metadata.CurrentSchema().FindFieldByName("note"); !ok {
			t.Errorf("the schema change is missing: %v", la.Metadata.CurrentSchema())
		}
		if got := IDs(t, la); !slices.Equal(got, []int64{1, 2}) {
			t.Errorf("orders rows %v", got)
		}
		if got := IDs(t, lb); !slices.Equal(got, []int64{1, 20, 21}) {
			t.Errorf("totals rows %v", got)
		}
		// One metadata version each: the property, the schema and the
		// snapshot arrived together.
		if got := len(la.Metadata.MetadataLog); got != logA+1 {
			t.Errorf("orders' metadata log grew from %d to %d entries, want one version more", logA, got)
		}
		if snap := la.Metadata.CurrentSnapshot(); snap == nil || snap.SnapshotID != res[0].SnapshotIDs[0] {
			t.Errorf("orders' current snapshot is not the transaction's")
		}
	})

	// From here orders has a third column, note.
	t.Run("retry", func(t *testing.T) {
		// Built on stale versions of both: another writer appended to
		// each since. Nothing the transactions depend on changed, so they
		// are built again on the new versions and land.
		a, b := load(cat, idA), load(cat, idB)
		before := IDs(t, a)
		MustAppend(t, load(reopen(), idA), [][]any{{int64(100), "other", nil}}, "")
		MustAppend(t, load(reopen(), idB), [][]any{{int64(200), "other"}}, "")
		txA := a.Transaction()
		txA.SetProperties(map[string]string{"batch": "8"}, nil)
		if err := txA.Append(WriteFiles(t, a, [][]any{{int64(3), "tx", nil}}), table.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		txB := b.Transaction()
		if err := txB.Append(WriteFiles(t, b, [][]any{{int64(30), "tx"}}), table.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := catalog.CommitTransaction(ctx, cat, txA, txB); err != nil {
			t.Fatal(err)
		}
		if got, want := IDs(t, load(reopen(), idA)), append(slices.Clone(before), 3, 100); !slices.Equal(got, sorted(want)) {
			t.Errorf("orders rows %v, want %v", got, sorted(want))
		}
		if got := IDs(t, load(reopen(), idB)); !slices.Contains(got, 30) || !slices.Contains(got, 200) {
			t.Errorf("totals rows %v", got)
		}
	})

	t.Run("conflict", func(t *testing.T) {
		// orders' transaction changes the schema from the version it was
		// built on; another writer changed the schema first. The retry
		// finds the requirement broken: neither table changes.
		a, b := load(cat, idA), load(cat, idB)
		beforeA, beforeB := a.MetadataLocation, b.MetadataLocation
		txA := a.Transaction().Add(AddColumn{Column: "mine"})
		if err := txA.Append(WriteFiles(t, a, [][]any{{int64(4), "tx", nil}}), table.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		txB := b.Transaction()
		if err := txB.Append(WriteFiles(t, b, [][]any{{int64(40), "tx"}}), table.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		rival := load(reopen(), idA)
		if _, err := rival.Apply(ctx, AddColumn{Column: "theirs"}); err != nil {
			t.Fatal(err)
		}
		metaA, metaB := listMetadata(t, a), listMetadata(t, b)
		_, err := catalog.CommitTransaction(ctx, cat, txA, txB)
		if !errors.Is(err, table.ErrConflict) {
			t.Fatalf("a transaction whose schema changed under it: %v, want a conflict", err)
		}
		la, lb := load(reopen(), idA), load(reopen(), idB)
		if la.MetadataLocation != rival.MetadataLocation || lb.MetadataLocation != beforeB {
			t.Fatalf("after the conflict orders is at %s (rival %s, before %s), totals at %s (before %s)", la.MetadataLocation, rival.MetadataLocation, beforeA, lb.MetadataLocation, beforeB)
		}
		if slices.Contains(IDs(t, lb), 40) || slices.Contains(IDs(t, la), 4) {
			t.Fatal("a conflicting transaction's rows are in a table")
		}
		// The manifests, lists and metadata files written for both
		// tables are gone; the data files are the caller's.
		if got := listMetadata(t, a); !slices.Equal(got, metaA) {
			t.Errorf("orders' metadata directory holds %v after the refused commit, %v before", got, metaA)
		}
		if got := listMetadata(t, b); !slices.Equal(got, metaB) {
			t.Errorf("totals' metadata directory holds %v after the refused commit, %v before", got, metaB)
		}
	})

	t.Run("all or none", func(t *testing.T) {
		// The catalog itself, given orders on its current version and
		// totals on one another writer has since moved past: it publishes
		// neither, though orders alone could have moved.
		mc, ok := cat.(catalog.MultiTableCommitter)
		if !ok {
			t.Fatalf("%T commits no multi-table transactions", cat)
		}
		a, stale := load(cat, idA), load(cat, idB)
		MustAppend(t, load(reopen(), idB), [][]any{{int64(300), "other"}}, "")
		moved := load(reopen(), idB)
		ca := metadata.Edit(a.Metadata)
		cb := metadata.Edit(stale.Metadata)
		if err := ca.Apply(metadata.SetProperties{Updates: map[string]string{"all-or-none": "a"}}); err != nil {
			t.Fatal(err)
		}
		if err := cb.Apply(metadata.SetProperties{Updates: map[string]string{"all-or-none": "b"}}); err != nil {
			t.Fatal(err)
		}
		head := stale.Metadata.CurrentSnapshotID
		cb.Require(metadata.AssertRefSnapshotID{Ref: metadata.MainBranch, SnapshotID: head})
		metaA := listMetadata(t, a)
		_, err := mc.PublishTables(ctx, []*table.Table{a, stale}, []*metadata.Changes{ca, cb})
		if !errors.Is(err, table.ErrStale) {
			t.Fatalf("publishing on a stale base: %v, want ErrStale", err)
		}
		la, lb := load(reopen(), idA), load(reopen(), idB)
		if la.MetadataLocation != a.MetadataLocation || la.Metadata.Properties["all-or-none"] != "" {
			t.Errorf("orders moved to %s though totals could not", la.MetadataLocation)
		}
		if lb.MetadataLocation != moved.MetadataLocation {
			t.Errorf("totals is at %s, want the other writer's %s", lb.MetadataLocation, moved.MetadataLocation)
		}
		if got := listMetadata(t, a); !slices.Equal(got, metaA) {
			t.Errorf("orders' metadata directory holds %v after the refused publish, %v before", got, metaA)
		}
	})

	t.Run("refused", func(t *testing.T) {
		a := load(cat, idA)
		tx1, tx2 := a.Transaction(), load(cat, idA).Transaction()
		tx1.SetProperties(map[string]string{"x": "1"}, nil)
		tx2.SetProperties(map[string]string{"x": "2"}, nil)
		if _, err := catalog.CommitTransaction(ctx, cat, tx1, tx2); !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("one table in two transactions: %v", err)
		}
		if _, err := catalog.CommitTransaction(ctx, cat); !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("no transaction: %v", err)
		}
		if got := load(reopen(), idA).Metadata.Properties["x"]; got != "" {
			t.Errorf("a refused transaction set x=%s", got)
		}
	})
}

// listMetadata lists the files of tbl's metadata directory.
func listMetadata(t testing.TB, tbl *table.Table) []string {
	t.Helper()
	infos, err := tbl.IO.List(context.Background(), tbl.Metadata.Location+"/metadata")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fi := range infos {
		out = append(out, fi.Path)
	}
	return out
}

func sorted(s []int64) []int64 {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
