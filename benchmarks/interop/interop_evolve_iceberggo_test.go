package interop

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	goiceberg "github.com/apache/iceberg-go"
	gocatalog "github.com/apache/iceberg-go/catalog"
	gosql "github.com/apache/iceberg-go/catalog/sql"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/catalog/open"
	sqlcatalog "github.com/floedb/floe/catalog/sql"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/weedtest"
	"github.com/floedb/floe/writer/ops"
)

// sqliteCatalog is a SQLite catalog file in a temp directory, for both
// sides.
func sqliteCatalog(t *testing.T) sharedCatalog {
	dir := t.TempDir()
	path := filepath.Join(dir, "catalog.db")
	return sharedCatalog{floeURI: "sqlite:" + path, driver: "sqlite", dsn: "file:" + path + "?_pragma=busy_timeout(30000)",
		dialect: gosql.SQLite, warehouse: filepath.Join(dir, "warehouse")}
}

// floeLoad loads ns.t as the CLI does: catalog/open on the catalog's URI.
func (c sharedCatalog) floeLoad(t *testing.T) *table.Table {
	t.Helper()
	ctx := context.Background()
	cat, err := open.Existing(ctx, c.floeURI, map[string]string{sqlcatalog.PropName: catalogName, sqlcatalog.PropWarehouse: c.warehouse}, table.Options{})
	if err != nil {
		t.Fatalf("floe: open %s: %v", c.floeURI, err)
	}
	t.Cleanup(func() { cat.Close() })
	tbl, err := cat.LoadTable(ctx, catalog.Identifier{Namespace: []string{"ns"}, Name: "t"})
	if err != nil {
		t.Fatalf("floe LoadTable: %v", err)
	}
	return tbl
}

// goLoad loads ns.t with iceberg-go.
func goLoad(t *testing.T, cat gocatalog.Catalog, ns string) *icebergtable.Table {
	t.Helper()
	tbl, err := cat.LoadTable(context.Background(), icebergtable.Identifier{ns, "t"})
	if err != nil {
		t.Fatalf("iceberg-go LoadTable: %v", err)
	}
	return tbl
}

// goAppend appends rows with iceberg-go in one transaction on branch
// ("" for main).
func goAppend(t *testing.T, tbl *icebergtable.Table, branch string, rows []evRow, evolved bool) *icebergtable.Table {
	t.Helper()
	ctx := context.Background()
	tx := tbl.NewTransaction()
	if branch != "" {
		tx = tbl.NewTransactionOnBranch(branch)
	}
	data := evTable(rows, evolved)
	defer data.Release()
	if err := tx.AppendTable(ctx, data, 1024, nil); err != nil {
		t.Fatalf("iceberg-go AppendTable on %q: %v", branch, err)
	}
	out, err := tx.Commit(ctx)
	if err != nil {
		t.Fatalf("iceberg-go commit of append on %q: %v", branch, err)
	}
	return out
}

func goOpt[T any](v T) goiceberg.Optional[T] { return goiceberg.Optional[T]{Val: v, Valid: true} }

// icebergGoEvolve builds the evolving table with iceberg-go in the SQL
// catalog, every change by its own API: append (schema 0, bucket spec);
// evolve the schema (add, rename, three promotions, drop, move); append;
// add a day(ts) partition field and replace the sort order in one
// transaction; append; tag the first snapshot (iceberg-go has no tag API:
// its set-snapshot-ref update, committed through its catalog); append to
// a new branch "audit" (its first write creates it from main). It returns
// the rows of each append.
func icebergGoEvolve(t *testing.T, goCat gocatalog.Catalog, ns string, formatVersion int) (pre, mid, post, branch []evRow) {
	t.Helper()
	ctx := context.Background()
	if err := goCat.CreateNamespace(ctx, icebergtable.Identifier{ns}, nil); err != nil {
		t.Fatalf("iceberg-go CreateNamespace: %v", err)
	}
	schema := goiceberg.NewSchema(0,
		goiceberg.NestedField{ID: 1, Name: "id", Type: goiceberg.PrimitiveTypes.Int64, Required: true},
		goiceberg.NestedField{ID: 2, Name: "n", Type: goiceberg.PrimitiveTypes.Int32},
		goiceberg.NestedField{ID: 3, Name: "x", Type: goiceberg.PrimitiveTypes.Float32},
		goiceberg.NestedField{ID: 4, Name: "s", Type: goiceberg.PrimitiveTypes.String},
		goiceberg.NestedField{ID: 5, Name: "ts", Type: goiceberg.PrimitiveTypes.Timestamp},
		goiceberg.NestedField{ID: 6, Name: "dec", Type: goiceberg.DecimalTypeOf(9, evScale)},
		goiceberg.NestedField{ID: 7, Name: "gone", Type: goiceberg.PrimitiveTypes.Int32},
	)
	spec := goiceberg.NewPartitionSpec(goiceberg.PartitionField{SourceIDs: []int{1}, FieldID: 1000, Name: "id_bucket", Transform: goiceberg.BucketTransform{NumBuckets: 4}})
	tbl, err := goCat.CreateTable(ctx, icebergtable.Identifier{ns, "t"}, schema, gocatalog.WithPartitionSpec(&spec),
		gocatalog.WithProperties(goiceberg.Properties{"format-version": fmt.Sprint(formatVersion)}))
	if err != nil {
		t.Fatalf("iceberg-go CreateTable: %v", err)
	}

	pre = makeEvRows(1, 0, 60, false)
	tbl = goAppend(t, tbl, "", pre, false)

	tx := tbl.NewTransaction()
	err = tx.UpdateSchema(true, false).
		AddColumn([]string{"note"}, goiceberg.PrimitiveTypes.String, "added by iceberg-go", false, nil).
		MoveAfter([]string{"note"}, []string{"id"}).
		RenameColumn([]string{"s"}, "label").
		UpdateColumn([]string{"n"}, icebergtable.ColumnUpdate{FieldType: goOpt[goiceberg.Type](goiceberg.PrimitiveTypes.Int64)}).
		UpdateColumn([]string{"x"}, icebergtable.ColumnUpdate{FieldType: goOpt[goiceberg.Type](goiceberg.PrimitiveTypes.Float64)}).
		UpdateColumn([]string{"dec"}, icebergtable.ColumnUpdate{FieldType: goOpt[goiceberg.Type](goiceberg.DecimalTypeOf(12, evScale))}).
		DeleteColumn([]string{"gone"}).
		Commit()
	if err != nil {
		t.Fatalf("iceberg-go UpdateSchema: %v", err)
	}
	if tbl, err = tx.Commit(ctx); err != nil {
		t.Fatalf("iceberg-go commit of the schema change: %v", err)
	}

	mid = makeEvRows(2, 1000, 60, true)
	tbl = goAppend(t, tbl, "", mid, true)

	tx = tbl.NewTransaction()
	if err := tx.UpdateSpec(true).AddField("ts", goiceberg.DayTransform{}, "ts_day").Commit(); err != nil {
		t.Fatalf("iceberg-go UpdateSpec: %v", err)
	}
	order, err := icebergtable.NewSortOrder(1, []icebergtable.SortField{
		{SourceIDs: []int{5}, Transform: goiceberg.DayTransform{}, Direction: icebergtable.SortDESC, NullOrder: icebergtable.NullsLast},
		{SourceIDs: []int{1}, Transform: goiceberg.IdentityTransform{}, Direction: icebergtable.SortASC, NullOrder: icebergtable.NullsFirst},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.ReplaceSortOrder(order); err != nil {
		t.Fatalf("iceberg-go ReplaceSortOrder: %v", err)
	}
	if tbl, err = tx.Commit(ctx); err != nil {
		t.Fatalf("iceberg-go commit of the spec and sort order: %v", err)
	}

	post = makeEvRows(3, 2000, 60, true)
	tbl = goAppend(t, tbl, "", post, true)

	first := tbl.Metadata().Snapshots()[0].SnapshotID
	tag := icebergtable.NewSetSnapshotRefUpdate("pre_evolution", first, icebergtable.TagRef, 0, 0, 0)
	if _, _, err := goCat.CommitTable(ctx, tbl.Identifier(), nil, []icebergtable.Update{tag}); err != nil {
		t.Fatalf("iceberg-go tag commit: %v", err)
	}
	tbl = goLoad(t, goCat, ns)

	branch = makeEvRows(4, 3000, 30, true)
	goAppend(t, tbl, "audit", branch, true)
	return pre, mid, post, branch
}

// assertIcebergGoEvolved checks the metadata both sides read is the
// evolution iceberg-go was asked for, so the tests compare evolved
// tables, not two readings of an unchanged one.
func assertIcebergGoEvolved(t *testing.T, md *metadata.Metadata) {
	t.Helper()
	var names []string
	for _, f := range md.CurrentSchema().Fields {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, evolvedColumns) || len(md.Schemas) != 2 {
		t.Fatalf("current schema has columns %v of %d schemas, want %v of 2", names, len(md.Schemas), evolvedColumns)
	}
	if spec := md.DefaultSpec(); len(md.PartitionSpecs) != 2 || len(spec.Fields) != 2 || spec.Fields[1].Name != "ts_day" {
		t.Fatalf("specs %v, default %v: want a second spec adding ts_day", md.PartitionSpecs, spec)
	}
	if order := md.DefaultSortOrder(); order == nil || len(order.Fields) != 2 || order.Fields[0].Direction != "desc" {
		t.Fatalf("default sort order %v, want day(ts) desc, id asc", order)
	}
	if tag, branch := md.Refs["pre_evolution"], md.Refs["audit"]; tag.Type != metadata.RefTag || branch.Type != metadata.RefBranch ||
		tag.SnapshotID != md.Snapshots[0].SnapshotID || branch.SnapshotID == *md.CurrentSnapshotID {
		t.Fatalf("refs %v: want tag pre_evolution at the first snapshot and branch audit ahead of main", md.Refs)
	}
}

// iceberg-go evolves a table in a SQLite catalog, and in SeaweedFS's REST
// catalog when weed is there (schema: add, move, rename, promote
// int/float/decimal, drop; spec: add day(ts); sort order: replace; a tag
// and a branch), appending between; floe loads it through the same
// catalog (SQLite: catalog/open on the same URI, as the CLI), reads the same metadata and the same
// rows of main, the branch and the tag (the tag with the schema it was
// written with) as iceberg-go; then floe appends through writer/ops to
// main and to the branch, and iceberg-go reads every row back, floe's
// files partitioned by the evolved spec. Last floe changes the schema,
// spec and sort order and tags main in one transaction, and iceberg-go
// appends under floe's spec; both read every ref alike.
func TestIcebergGoEvolvedReadAndWrittenByFloe(t *testing.T) {
	for _, version := range []int{2, 3} {
		t.Run(fmt.Sprintf("sqlite/v%d", version), func(t *testing.T) {
			c := sqliteCatalog(t)
			icebergGoEvolvedByFloe(t, c.icebergGo(t), "ns", c.floeLoad, version)
		})
		// SeaweedFS's REST catalog (weed mini) between them, applying
		// iceberg-go's updates and floe's.
		t.Run(fmt.Sprintf("rest/v%d", version), func(t *testing.T) {
			w := weedtest.Shared(t)
			ns := w.Namespace("goevolve")
			floeCat := floeREST(t, w)
			floeLoad := func(t *testing.T) *table.Table {
				return loadFloe(t, floeCat, catalog.Identifier{Namespace: []string{ns}, Name: "t"})
			}
			icebergGoEvolvedByFloe(t, icebergGoREST(t, w), ns, floeLoad, version)
		})
	}
}

func icebergGoEvolvedByFloe(t *testing.T, goCat gocatalog.Catalog, ns string, floeLoad func(*testing.T) *table.Table, version int) {
	ctx := context.Background()
	pre, mid, post, branch := icebergGoEvolve(t, goCat, ns, version)

	goTbl := goLoad(t, goCat, ns)
	floeTbl := floeLoad(t)
	assertSameMetadata(t, floeTbl.Metadata, goTbl.Metadata())
	assertIcebergGoEvolved(t, floeTbl.Metadata)

	main := concatRows(pre, mid, post)
	audit := concatRows(main, branch)
	checkReads := func(floeTbl *table.Table, goTbl *icebergtable.Table, main, audit []evRow) {
		t.Helper()
		for _, ref := range []struct {
			name string
			rows []evRow
		}{{"main", main}, {"audit", audit}} {
			assertRead(t, "floe "+ref.name, floeScan(t, floeTbl, ref.name), ref.rows, evolvedColumns, evolvedTypes)
			assertRead(t, "iceberg-go "+ref.name, icebergGoScan(t, goTbl, ref.name), ref.rows, evolvedColumns, evolvedTypes)
		}
		// A tag reads with the schema its snapshot was written with.
		assertRead(t, "floe tag", floeScan(t, floeTbl, "pre_evolution"), pre, preColumns, preTypes)
		assertRead(t, "iceberg-go tag", icebergGoScan(t, goTbl, "pre_evolution"), pre, preColumns, preTypes)
	}
	checkReads(floeTbl, goTbl, main, audit)

	// floe writes the evolved table as the CLI's append does.
	ours, oursOnBranch := makeEvRows(5, 4000, 50, true), makeEvRows(6, 5000, 20, true)
	res, err := ops.Append(ctx, floeTbl, evReader(ours, true), table.CommitOptions{})
	if err != nil {
		t.Fatalf("floe append to main: %v", err)
	}
	if _, err := ops.Append(ctx, floeTbl, evReader(oursOnBranch, true), table.CommitOptions{Branch: "audit"}); err != nil {
		t.Fatalf("floe append to audit: %v", err)
	}
	goTbl = goLoad(t, goCat, ns)
	assertSameMetadata(t, floeTbl.Metadata, goTbl.Metadata())
	assertSameMetadata(t, floeLoad(t).Metadata, goTbl.Metadata())
	checkReads(floeLoad(t), goTbl, concatRows(main, ours), concatRows(audit, oursOnBranch))

	// iceberg-go sees floe's files under the evolved spec (spec 1,
	// with a ts_day value; ts is null in some rows, so not all).
	tasks, err := goTbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatalf("iceberg-go PlanFiles: %v", err)
	}
	floeFiles := map[string]bool{}
	for _, f := range res.Files {
		floeFiles[f.FilePath] = true
	}
	daySpecID, dayField := floeTbl.Metadata.DefaultSpecID, floeTbl.Metadata.DefaultSpec().Fields[1].FieldID
	seen, withDay := 0, 0
	for _, task := range tasks {
		if !floeFiles[task.File.FilePath()] {
			continue
		}
		seen++
		if int(task.File.SpecID()) != daySpecID {
			t.Errorf("iceberg-go reads floe's file %s with spec %d, want %d", task.File.FilePath(), task.File.SpecID(), daySpecID)
		}
		if task.File.Partition()[dayField] != nil {
			withDay++
		}
	}
	if seen != len(res.Files) || withDay == 0 {
		t.Fatalf("iceberg-go plans %d of floe's %d files, %d with a ts_day value", seen, len(res.Files), withDay)
	}

	// floe evolves the table further in one transaction (schema,
	// spec, sort order, a tag) and iceberg-go writes on top of it.
	_, err = floeTbl.Apply(ctx,
		new(action.UpdateSchema).MakeColumnOptional("id").UpdateColumnDoc("label", "renamed from s by iceberg-go"),
		new(action.UpdateSpec).RemoveField("id_bucket"),
		new(action.ReplaceSortOrder).Asc("label", iceberg.IdentityTransform{}, action.NullsLast),
		new(action.ManageSnapshots).CreateTag("floe_tag", 0))
	if err != nil {
		t.Fatalf("floe transaction on iceberg-go's table: %v", err)
	}
	tagged := concatRows(main, ours)
	goTbl = goLoad(t, goCat, ns)
	assertSameMetadata(t, floeTbl.Metadata, goTbl.Metadata())
	floeSpec := floeTbl.Metadata.DefaultSpec()
	if len(floeTbl.Metadata.Schemas) != 3 || len(floeSpec.Fields) != 1 || floeSpec.Fields[0].Name != "ts_day" {
		t.Fatalf("after floe's transaction: %d schemas, default spec %v", len(floeTbl.Metadata.Schemas), floeSpec)
	}
	more := makeEvRows(7, 6000, 40, true)
	goTbl = goAppend(t, goTbl, "", more, true)
	floeTbl = floeLoad(t)
	assertSameMetadata(t, floeTbl.Metadata, goTbl.Metadata())
	checkReads(floeTbl, goTbl, concatRows(tagged, more), concatRows(audit, oursOnBranch))
	assertRead(t, "floe floe_tag", floeScan(t, floeTbl, "floe_tag"), tagged, evolvedColumns, evolvedTypes)
	assertRead(t, "iceberg-go floe_tag", icebergGoScan(t, goTbl, "floe_tag"), tagged, evolvedColumns, evolvedTypes)
	// iceberg-go wrote its rows under floe's spec.
	if tasks, err = goTbl.Scan().PlanFiles(ctx); err != nil {
		t.Fatalf("iceberg-go PlanFiles: %v", err)
	}
	var underFloeSpec int64
	for _, task := range tasks {
		if int(task.File.SpecID()) == floeSpec.ID {
			underFloeSpec += task.File.Count()
		}
	}
	if underFloeSpec != int64(len(more)) {
		t.Fatalf("iceberg-go wrote %d rows under floe's spec %d, want %d", underFloeSpec, floeSpec.ID, len(more))
	}
}
