package catalogtest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/reader/scan"
)

// EveryAction checks that every kind of change a transaction makes
// commits through cat: schema evolution (add at depth, rename, promote,
// move, doc, delete), partition spec and sort order evolution, properties,
// branches and tags (create, rename, remove, fast-forward), rollback and
// set-current, write-audit-publish (a staged snapshot cherry-picked, a
// second publish refused), several changes in one transaction, and a
// format upgrade. After each the table is loaded afresh from cat and what
// the change made is checked there, rows read back where data moved. ns
// must exist.
func EveryAction(t *testing.T, cat catalog.Catalog, ns []string) {
	t.Helper()
	ctx := context.Background()
	id := catalog.Identifier{Namespace: ns, Name: "every_action"}
	if _, err := cat.CreateTable(ctx, id, IDSchema, catalog.CreateOptions{Properties: map[string]string{"format-version": "2"}}); err != nil {
		t.Fatal(err)
	}
	load := func() *table.Table { t.Helper(); return Load(t, cat, id) }
	apply := func(what string, actions ...action.Action) *table.Table {
		t.Helper()
		tbl := load()
		res, err := tbl.Apply(ctx, actions...)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !res.Committed {
			t.Fatalf("%s committed nothing", what)
		}
		got := load()
		if got.MetadataLocation != res.MetadataLocation {
			t.Fatalf("%s: committed %s, the catalog names %s", what, res.MetadataLocation, got.MetadataLocation)
		}
		return got
	}
	appendIDs := func(ids []int64, opts table.CommitOptions) int64 {
		t.Helper()
		tbl := load()
		tx := tbl.Transaction()
		if err := tx.Append(WriteFiles(t, tbl, rowsOf(tbl, ids)), opts); err != nil {
			t.Fatal(err)
		}
		out, err := tx.Commit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return out.SnapshotIDs[0]
	}
	wantIDs := func(what string, want ...int64) {
		t.Helper()
		tbl := load()
		at := slices.IndexFunc(tbl.Metadata.CurrentSchema().Fields, func(f iceberg.NestedField) bool { return f.Name == "id" })
		var got []int64
		for _, row := range rowstest.ScanRows(t, tbl, scan.Options{}) {
			got = append(got, row[at].(int64))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: ids %v, want %v", what, got, want)
		}
	}

	s1 := appendIDs([]int64{0, 1}, table.CommitOptions{})

	// Schema: columns added at the top and inside a new struct, a rename.
	tbl := apply("add and rename columns", new(action.UpdateSchema).
		AddColumn("score", iceberg.FloatType{}).
		AddColumn("meta", &iceberg.StructType{Fields: []iceberg.NestedField{{ID: 1, Name: "a", Type: iceberg.IntType{}}}}).
		RenameColumn("writer", "author"))
	for _, name := range []string{"score", "meta.a", "author"} {
		if _, ok := tbl.Metadata.CurrentSchema().FindFieldByName(name); !ok {
			t.Fatalf("column %s missing from %s", name, tbl.Metadata.CurrentSchema())
		}
	}
	// Promotions, a move, a doc, a nested add, a delete.
	tbl = apply("promote, move, document, delete", new(action.UpdateSchema).
		UpdateColumn("score", iceberg.DoubleType{}).
		UpdateColumn("meta.a", iceberg.LongType{}).
		MoveFirst("author").
		UpdateColumnDoc("id", "the row's id").
		AddColumn("meta.b", iceberg.StringType{}))
	if f, _ := tbl.Metadata.CurrentSchema().FindFieldByName("score"); f.Type.String() != "double" {
		t.Fatalf("score is %s", f.Type)
	}
	tbl = apply("delete a column", new(action.UpdateSchema).DeleteColumn("score"))
	s := tbl.Metadata.CurrentSchema()
	if s.Fields[0].Name != "author" {
		t.Fatalf("author not first: %s", s)
	}
	if f, _ := s.FindFieldByName("meta.a"); f.Type.String() != "long" {
		t.Fatalf("meta.a is %s", f.Type)
	}
	if _, ok := s.FindFieldByName("score"); ok {
		t.Fatalf("score not deleted: %s", s)
	}
	if _, ok := s.FindFieldByName("meta.b"); !ok {
		t.Fatalf("meta.b missing: %s", s)
	}
	if f, _ := s.FindFieldByName("id"); f.Doc != "the row's id" {
		t.Fatalf("id's doc %q", f.Doc)
	}
	wantIDs("after schema changes", 0, 1)

	// Partition spec and sort order.
	tbl = apply("add a partition field", new(action.UpdateSpec).AddField("id", iceberg.BucketTransform{N: 4}, "id_bucket"))
	if spec := tbl.Metadata.DefaultSpec(); len(spec.Fields) != 1 || spec.Fields[0].Name != "id_bucket" {
		t.Fatalf("default spec %+v", spec)
	}
	s2 := appendIDs([]int64{2, 3}, table.CommitOptions{})
	wantIDs("after the spec change", 0, 1, 2, 3)
	tbl = apply("replace the sort order", new(action.ReplaceSortOrder).Desc("id", nil, "nulls-last"))
	if o := tbl.Metadata.DefaultSortOrder(); len(o.Fields) != 1 || o.Fields[0].Direction != "desc" {
		t.Fatalf("default sort order %+v", o)
	}

	// Properties.
	tbl = apply("set properties", action.SetProperties{Set: map[string]string{"owner": "etl", "tmp": "x"}})
	tbl = apply("remove a property", action.SetProperties{Remove: []string{"tmp"}})
	if p := tbl.Metadata.Properties; p["owner"] != "etl" || p["tmp"] != "" {
		t.Fatalf("properties %v", p)
	}

	// Branches and tags.
	tbl = apply("create a tag and a branch", new(action.ManageSnapshots).
		CreateTag("first", s1).
		CreateBranch("audit", s2).
		SetMaxRefAgeMs("first", 7*24*3600_000))
	if r := tbl.Metadata.Refs["first"]; r.SnapshotID != s1 || r.Type != "tag" || r.MaxRefAgeMs == nil {
		t.Fatalf("tag first: %+v", r)
	}
	s3 := appendIDs([]int64{4}, table.CommitOptions{Branch: "audit"})
	wantIDs("main, while audit moved on", 0, 1, 2, 3)
	tbl = apply("fast-forward main to audit", new(action.ManageSnapshots).FastForwardBranch("main", "audit"))
	if *tbl.Metadata.CurrentSnapshotID != s3 {
		t.Fatalf("main at %d after fast-forward, want %d", *tbl.Metadata.CurrentSnapshotID, s3)
	}
	wantIDs("after fast-forward", 0, 1, 2, 3, 4)
	tbl = apply("rename a branch, drop a tag", new(action.ManageSnapshots).RenameBranch("audit", "reviewed").RemoveTag("first"))
	if _, ok := tbl.Metadata.Refs["audit"]; ok || tbl.Metadata.Refs["reviewed"].SnapshotID != s3 {
		t.Fatalf("refs %v", tbl.Metadata.Refs)
	}
	if _, ok := tbl.Metadata.Refs["first"]; ok {
		t.Fatalf("tag first still there: %v", tbl.Metadata.Refs)
	}

	// Rollback and set-current.
	apply("roll back", new(action.ManageSnapshots).RollbackTo(s2))
	wantIDs("after rollback", 0, 1, 2, 3)
	apply("set the current snapshot", new(action.ManageSnapshots).SetCurrentSnapshot(s3))
	wantIDs("after set-current", 0, 1, 2, 3, 4)

	// Write-audit-publish.
	apply("enable wap", action.SetProperties{Set: map[string]string{table.PropWAPEnabled: "true"}})
	staged := appendIDs([]int64{5}, table.CommitOptions{WapID: "audit-1"})
	wantIDs("with a staged snapshot", 0, 1, 2, 3, 4)
	tbl = load()
	if tbl.Metadata.SnapshotByID(staged) == nil {
		t.Fatalf("staged snapshot %d is not in the table", staged)
	}
	if _, err := tbl.CherryPick(ctx, staged, table.CommitOptions{}); err != nil {
		t.Fatalf("publish: %v", err)
	}
	wantIDs("after publishing", 0, 1, 2, 3, 4, 5)
	again := appendIDs([]int64{6}, table.CommitOptions{WapID: "audit-1"})
	before := load().MetadataLocation
	if _, err := load().CherryPick(ctx, again, table.CommitOptions{}); !errors.Is(err, table.ErrPublished) {
		t.Fatalf("a second publish of one wap id: %v", err)
	}
	if load().MetadataLocation != before {
		t.Fatal("a refused publish committed")
	}

	// Several changes in one transaction: one new version.
	tbl = load()
	logBefore := len(tbl.Metadata.MetadataLog)
	tx := tbl.Transaction()
	tx.Add(new(action.UpdateSpec).RemoveField("id_bucket"), new(action.UpdateSchema).AddColumn("late", iceberg.StringType{}))
	tx.SetProperties(map[string]string{table.PropWAPEnabled: "false"}, nil)
	if err := tx.Append(WriteFiles(t, tbl, rowsOf(tbl, []int64{7})), table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	tbl = load()
	if _, ok := tbl.Metadata.CurrentSchema().FindFieldByName("late"); !ok || len(tbl.Metadata.DefaultSpec().Fields) != 0 {
		t.Fatalf("schema %s, spec %+v", tbl.Metadata.CurrentSchema(), tbl.Metadata.DefaultSpec())
	}
	if n := len(tbl.Metadata.MetadataLog); n > 0 && logBefore > 0 && n != logBefore+1 {
		t.Fatalf("one transaction added %d metadata log entries", n-logBefore)
	}
	wantIDs("after the transaction", 0, 1, 2, 3, 4, 5, 7)

	// Format upgrade.
	tbl = apply("upgrade to v3", action.UpgradeFormatVersion{FormatVersion: 3})
	if tbl.Metadata.FormatVersion != 3 {
		t.Fatalf("format version %d", tbl.Metadata.FormatVersion)
	}
	appendIDs([]int64{8}, table.CommitOptions{})
	wantIDs("after the upgrade", 0, 1, 2, 3, 4, 5, 7, 8)
	if raw, err := json.Marshal(load().Metadata.CurrentSchema()); err != nil || len(raw) == 0 {
		t.Fatalf("schema JSON: %v", err)
	}
}

// rowsOf gives rows of tbl's current schema holding ids, every other
// column null (all are optional but id).
func rowsOf(tbl *table.Table, ids []int64) [][]any {
	s := tbl.Metadata.CurrentSchema()
	rows := make([][]any, len(ids))
	for i, id := range ids {
		row := make([]any, len(s.Fields))
		for j, f := range s.Fields {
			if f.Name == "id" {
				row[j] = id
			}
		}
		rows[i] = row
	}
	return rows
}
