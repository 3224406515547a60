package interop

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	icebergio "github.com/apache/iceberg-go/io"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/weedtest"
	"github.com/floedb/floe/writer/ops"
)

// readView is what a read of one ref must return: its rows under the
// columns of the schema it reads with, and the Arrow types of the
// evolving columns.
type readView struct {
	rows    []evRow
	columns []string
	types   map[string]arrow.DataType
}

func preView(rows []evRow) readView     { return readView{rows, preColumns, preTypes} }
func evolvedView(rows []evRow) readView { return readView{rows, evolvedColumns, evolvedTypes} }

// floePlace is where floe keeps the table iceberg-go then reads: a
// metadata directory (iceberg-go reads the metadata file floe committed,
// as a static table) or a SQLite catalog (iceberg-go loads it through its
// own SQL catalog). create returns the table and how iceberg-go loads its
// latest version (floe's commits update the *table.Table in place).
type floePlace struct {
	name   string
	create func(t *testing.T, schema *iceberg.Schema, spec *iceberg.PartitionSpec, formatVersion int) (*table.Table, func(*testing.T) *icebergtable.Table)
}

var directoryPlace = floePlace{
	name: "directory",
	create: func(t *testing.T, schema *iceberg.Schema, spec *iceberg.PartitionSpec, formatVersion int) (*table.Table, func(*testing.T) *icebergtable.Table) {
		tbl, err := table.Create(context.Background(), fileio.Local{}, t.TempDir(), schema, spec, nil, nil, formatVersion)
		if err != nil {
			t.Fatalf("floe Create: %v", err)
		}
		return tbl, func(t *testing.T) *icebergtable.Table {
			t.Helper()
			loc := tbl.MetadataLocation
			goTbl, err := icebergtable.NewFromLocation(context.Background(), icebergtable.Identifier{"interop", "t"}, loc, icebergio.LoadFSFunc(nil, loc), nil)
			if err != nil {
				t.Fatalf("iceberg-go load of %s: %v", loc, err)
			}
			return goTbl
		}
	},
}

var floePlaces = []floePlace{
	directoryPlace,
	{
		name: "sqlite",
		create: func(t *testing.T, schema *iceberg.Schema, spec *iceberg.PartitionSpec, formatVersion int) (*table.Table, func(*testing.T) *icebergtable.Table) {
			ctx := context.Background()
			c := sqliteCatalog(t)
			floeCat := c.floe(t)
			if err := floeCat.CreateNamespace(ctx, []string{"ns"}, nil); err != nil {
				t.Fatal(err)
			}
			tbl, err := floeCat.CreateTable(ctx, catalog.Identifier{Namespace: []string{"ns"}, Name: "t"}, schema,
				catalog.CreateOptions{Spec: spec, FormatVersion: formatVersion})
			if err != nil {
				t.Fatalf("floe CreateTable: %v", err)
			}
			goCat := c.icebergGo(t)
			return tbl, func(t *testing.T) *icebergtable.Table { return goLoad(t, goCat, "ns") }
		},
	},
	{
		// SeaweedFS's REST catalog (weed mini) applies floe's updates
		// itself: a third reading of what floe's actions send.
		name: "rest",
		create: func(t *testing.T, schema *iceberg.Schema, spec *iceberg.PartitionSpec, formatVersion int) (*table.Table, func(*testing.T) *icebergtable.Table) {
			ctx := context.Background()
			w := weedtest.Shared(t)
			ns := w.Namespace("evolve")
			floeCat := floeREST(t, w)
			if err := floeCat.CreateNamespace(ctx, []string{ns}, nil); err != nil {
				t.Fatal(err)
			}
			tbl, err := floeCat.CreateTable(ctx, catalog.Identifier{Namespace: []string{ns}, Name: "t"}, schema,
				catalog.CreateOptions{Spec: spec, FormatVersion: formatVersion})
			if err != nil {
				t.Fatalf("floe CreateTable: %v", err)
			}
			goCat := icebergGoREST(t, w)
			return tbl, func(t *testing.T) *icebergtable.Table { return goLoad(t, goCat, ns) }
		},
	},
}

// floeEvolution drives a table floe changes and checks, after each
// change, that iceberg-go reads what floe reads and what was written.
type floeEvolution struct {
	t      *testing.T
	tbl    *table.Table
	goLoad func(*testing.T) *icebergtable.Table
	expect map[string]readView // by ref name
}

// verify loads the table with iceberg-go and checks it reads the metadata
// version floe committed, the same schemas, specs, sort orders, snapshots
// and refs, and for every ref the expected rows, as floe does.
func (e *floeEvolution) verify(stage string) {
	e.t.Helper()
	ok := e.t.Run(stage, func(t *testing.T) {
		goTbl := e.goLoad(t)
		if got := goTbl.MetadataLocation(); got != e.tbl.MetadataLocation {
			t.Fatalf("iceberg-go loads %s, floe committed %s", got, e.tbl.MetadataLocation)
		}
		view := assertSameMetadata(t, e.tbl.Metadata, goTbl.Metadata())
		if refs := slices.Sorted(maps.Keys(view.Refs)); !slices.Equal(refs, slices.Sorted(maps.Keys(e.expect))) {
			t.Fatalf("refs %v, want %v", refs, slices.Sorted(maps.Keys(e.expect)))
		}
		for _, ref := range slices.Sorted(maps.Keys(e.expect)) {
			want := e.expect[ref]
			assertRead(t, "floe "+ref, floeScan(t, e.tbl, ref), want.rows, want.columns, want.types)
			assertRead(t, "iceberg-go "+ref, icebergGoScan(t, goTbl, ref), want.rows, want.columns, want.types)
		}
	})
	if !ok {
		e.t.FailNow()
	}
}

func (e *floeEvolution) apply(what string, actions ...action.Action) {
	e.t.Helper()
	res, err := e.tbl.Apply(context.Background(), actions...)
	if err != nil || !res.Committed {
		e.t.Fatalf("floe %s: committed %v, %v", what, res.Committed, err)
	}
}

func (e *floeEvolution) append(rows []evRow, opts table.CommitOptions) int64 {
	e.t.Helper()
	res, err := ops.Append(context.Background(), e.tbl, evReader(rows, true), opts)
	if err != nil || !res.Committed {
		e.t.Fatalf("floe append (%+v): committed %v, %v", opts, res.Committed, err)
	}
	return res.SnapshotID
}

// preSchema is the evolving table's schema before evolution, as floe
// creates it (the iceberg-go tests create the same with iceberg-go's types).
func preSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "n", Type: iceberg.IntType{}},
		{ID: 3, Name: "x", Type: iceberg.FloatType{}},
		{ID: 4, Name: "s", Type: iceberg.StringType{}},
		{ID: 5, Name: "ts", Type: iceberg.TimestampType{}},
		{ID: 6, Name: "dec", Type: iceberg.DecimalType{Precision: 9, Scale: evScale}},
		{ID: 7, Name: "gone", Type: iceberg.IntType{}},
	})
}

// bucketIDSpec partitions by bucket(4, id), the evolving table's first spec.
func bucketIDSpec() *iceberg.PartitionSpec {
	return &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
		{SourceID: 1, FieldID: 1000, Name: "id_bucket", Transform: iceberg.BucketTransform{N: 4}},
	}}
}

// floeEvolve runs every kind of change floe's transactions make on a
// table in place, iceberg-go reading it after each.
func floeEvolve(t *testing.T, place floePlace, formatVersion int) {
	ctx := context.Background()
	tbl, goLoad := place.create(t, preSchema(), bucketIDSpec(), formatVersion)
	e := &floeEvolution{t: t, tbl: tbl, goLoad: goLoad, expect: map[string]readView{}}

	pre := makeEvRows(1, 0, 60, false)
	if _, err := ops.Append(ctx, e.tbl, evReader(pre, false), table.CommitOptions{}); err != nil {
		t.Fatalf("floe append: %v", err)
	}
	first := *e.tbl.Metadata.CurrentSnapshotID
	e.expect["main"] = preView(pre)
	e.verify("created")

	e.apply("schema change", new(action.UpdateSchema).
		AddColumn("note", iceberg.StringType{}, action.ColumnOptions{Doc: "added by floe"}).
		MoveAfter("note", "id").
		RenameColumn("s", "label").
		UpdateColumn("n", iceberg.LongType{}).
		UpdateColumn("x", iceberg.DoubleType{}).
		UpdateColumn("dec", iceberg.DecimalType{Precision: 12, Scale: evScale}).
		DeleteColumn("gone"))
	e.expect["main"] = evolvedView(pre)
	e.verify("schema evolved")

	mid := makeEvRows(2, 1000, 60, true)
	e.append(mid, table.CommitOptions{})
	e.expect["main"] = evolvedView(concatRows(pre, mid))
	e.verify("appended after schema change")

	// The spec and the sort order in one transaction: one metadata version.
	tx := e.tbl.Transaction().Add(
		new(action.UpdateSpec).AddField("ts", iceberg.DayTransform{}, "ts_day"),
		new(action.ReplaceSortOrder).Desc("ts", iceberg.DayTransform{}, action.NullsLast).Asc("id", iceberg.IdentityTransform{}, action.NullsFirst))
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatalf("floe spec and sort order: %v", err)
	}
	if md := e.tbl.Metadata; md.DefaultSpecID != 1 || md.DefaultSortOrderID != 1 || len(md.DefaultSortOrder().Fields) != 2 {
		t.Fatalf("floe committed spec %d, sort order %v", md.DefaultSpecID, md.DefaultSortOrder())
	}
	post := makeEvRows(3, 2000, 60, true)
	postSnap := e.append(post, table.CommitOptions{})
	main := concatRows(pre, mid, post)
	e.expect["main"] = evolvedView(main)
	e.verify("spec and sort order replaced")

	e.apply("tag and branch", new(action.ManageSnapshots).CreateTag("pre_evolution", first).CreateBranch("audit", 0))
	e.expect["pre_evolution"] = preView(pre) // a tag reads with its snapshot's schema
	e.expect["audit"] = evolvedView(main)
	e.verify("tag and branch created")

	onBranch, extra := makeEvRows(4, 3000, 30, true), makeEvRows(5, 4000, 20, true)
	e.append(onBranch, table.CommitOptions{Branch: "audit"})
	e.append(extra, table.CommitOptions{})
	audit := concatRows(main, onBranch)
	main = concatRows(main, extra)
	e.expect["audit"], e.expect["main"] = evolvedView(audit), evolvedView(main)
	e.verify("branch and main appended")

	// Write-audit-publish: a staged snapshot iceberg-go reads by id, then
	// published by cherry-pick after main moved on, so the pick writes a
	// new snapshot (not a fast-forward) that iceberg-go must read.
	e.apply("enable WAP", action.SetProperties{Set: map[string]string{"write.wap.enabled": "true"}})
	staged := makeEvRows(6, 5000, 20, true)
	stagedID := e.append(staged, table.CommitOptions{WapID: "w1"})
	if *e.tbl.Metadata.CurrentSnapshotID == stagedID {
		t.Fatalf("the WAP append moved main to %d", stagedID)
	}
	e.verify("WAP snapshot staged")
	withStaged := concatRows(main, staged)
	assertRead(t, "floe staged", floeScanSnapshot(t, e.tbl, stagedID), withStaged, evolvedColumns, evolvedTypes)
	assertRead(t, "iceberg-go staged", icebergGoScanSnapshot(t, goLoad(t), stagedID), withStaged, evolvedColumns, evolvedTypes)
	late := makeEvRows(8, 6000, 10, true)
	e.append(late, table.CommitOptions{})
	picked, err := e.tbl.CherryPick(ctx, stagedID, table.CommitOptions{})
	if err != nil || picked.FastForward || picked.PublishedWapID != "w1" {
		t.Fatalf("floe cherry-pick of %d: %+v, %v; want a new snapshot publishing w1", stagedID, picked, err)
	}
	main = concatRows(main, late, staged)
	e.expect["main"] = evolvedView(main)
	e.verify("WAP snapshot published")

	// Rollback (tagging main first) and fast-forward move main back and
	// forth; both write the snapshot log iceberg-go checks for order.
	e.apply("tag and rollback", new(action.ManageSnapshots).CreateTag("before_rollback", 0).RollbackTo(postSnap))
	e.expect["before_rollback"] = evolvedView(main)
	e.expect["main"] = evolvedView(concatRows(pre, mid, post))
	e.verify("rolled back")

	e.apply("fast-forward", new(action.ManageSnapshots).FastForwardBranch("main", "audit"))
	e.expect["main"] = evolvedView(audit)
	e.verify("fast-forwarded to audit")

	e.apply("rename and remove refs", new(action.ManageSnapshots).RenameBranch("audit", "audited").RemoveTag("before_rollback"))
	delete(e.expect, "before_rollback")
	delete(e.expect, "audit")
	e.expect["audited"] = evolvedView(audit)
	e.verify("branch renamed, tag removed")

	if n := len(e.tbl.Metadata.Schemas); n != 2 {
		t.Fatalf("floe left %d schemas, want 2", n)
	}
}

// floe evolves a table (schema: add, move, rename, promote int, float and
// decimal, drop; spec: add day(ts); sort order: replace; tags and branches
// created, renamed, removed; appends to main and to a branch; a WAP
// snapshot staged and cherry-picked; rollback; fast-forward), in a
// metadata directory and in a SQLite catalog; after each change iceberg-go
// loads the table, reads the same metadata and, for every ref, the rows
// written, as floe reads them.
func TestFloeEvolvedReadByIcebergGo(t *testing.T) {
	for _, place := range floePlaces {
		for _, version := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/v%d", place.name, version), func(t *testing.T) { floeEvolve(t, place, version) })
		}
	}
}

// On a v3 table floe adds a column with an initial default; iceberg-go
// reads the rows written before with the default, as floe does.
func TestFloeColumnDefaultReadByIcebergGo(t *testing.T) {
	tbl, goLoad := directoryPlace.create(t, preSchema(), nil, 3)
	e := &floeEvolution{t: t, tbl: tbl, goLoad: goLoad, expect: map[string]readView{}}
	pre := makeEvRows(7, 0, 40, false)
	if _, err := ops.Append(context.Background(), tbl, evReader(pre, false), table.CommitOptions{}); err != nil {
		t.Fatalf("floe append: %v", err)
	}
	e.apply("add a column with a default", new(action.UpdateSchema).AddColumn("tier", iceberg.IntType{}, action.ColumnOptions{InitialDefault: int32(7)}))
	withDefault := slices.Clone(pre)
	for k := range withDefault {
		withDefault[k].tier = ptr(int32(7))
	}
	e.expect["main"] = readView{withDefault, append(slices.Clone(preColumns), "tier"), map[string]arrow.DataType{"tier": arrow.PrimitiveTypes.Int32}}
	e.verify("column with initial default")
}

// On a v1 table floe adds a partition field and removes one, which v1
// keeps as a void transform; iceberg-go reads the same specs and every
// row, written under three specs.
func TestFloeV1SpecEvolutionReadByIcebergGo(t *testing.T) {
	ctx := context.Background()
	tbl, goLoad := directoryPlace.create(t, preSchema(), bucketIDSpec(), 1)
	e := &floeEvolution{t: t, tbl: tbl, goLoad: goLoad, expect: map[string]readView{}}
	var rows []evRow
	appendPre := func(seed uint64, firstID int64) {
		more := makeEvRows(seed, firstID, 40, false)
		if _, err := ops.Append(ctx, tbl, evReader(more, false), table.CommitOptions{}); err != nil {
			t.Fatalf("floe append: %v", err)
		}
		rows = append(rows, more...)
		e.expect["main"] = preView(rows)
	}
	appendPre(1, 0)
	e.verify("v1 created")
	e.apply("add ts_day", new(action.UpdateSpec).AddField("ts", iceberg.DayTransform{}, "ts_day"))
	appendPre(2, 1000)
	e.verify("v1 field added")
	e.apply("remove id_bucket", new(action.UpdateSpec).RemoveField("id_bucket"))
	appendPre(3, 2000)
	e.verify("v1 field removed")
	fields := tbl.Metadata.DefaultSpec().Fields
	if len(tbl.Metadata.PartitionSpecs) != 3 || len(fields) != 2 || fields[0].Transform.String() != "void" {
		t.Fatalf("v1 specs %v: want the removed field kept as void", tbl.Metadata.PartitionSpecs)
	}
}
