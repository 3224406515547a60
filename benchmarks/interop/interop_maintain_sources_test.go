package interop

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	goiceberg "github.com/apache/iceberg-go"
	gocatalog "github.com/apache/iceberg-go/catalog"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer"
	"github.com/floedb/floe/writer/ops"
)

// The tables maintenance is tried on: ns.t in a SQLite catalog both
// sides open, made of small files by several appends and then given row
// deletes, by floe or by iceberg-go, so each side can also write after
// the other's maintenance. want is the rows the table holds, computed
// from the rows written and the deletes' predicates in Go, never read.

// maintTable is ns.t in a shared catalog and the rows it holds.
type maintTable struct {
	cat  sharedCatalog
	want []row
	// removed are the rows written and deleted.
	removed []row
	// next is the first id not yet written (appends after maintenance
	// take new ids).
	next int64
}

// The row deletes every source applies, as Go predicates and as each
// side's filter: ids below 400 (whole files and parts of files), and i
// below -800,000 (about a tenth of every file's rows; a null i is kept).
func deletedByFirst(r row) bool  { return r.id < 400 }
func deletedBySecond(r row) bool { return r.i != nil && *r.i < -800_000 }

func floeFilter(t *testing.T, text string) expr.Expr {
	t.Helper()
	f, err := expr.ParseFilter(text)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// equalityDeleted is the rows an equality delete by id removes in the
// sources that have one: ids ≡ 3 (mod 11) from 400 on, a few in every
// partition.
func equalityDeleted(r row) bool { return r.id >= 400 && r.id%11 == 3 }

// sourceOptions shape a source table.
type sourceOptions struct {
	version int
	props   map[string]string
	order   *iceberg.SortOrder // floe-made only
	// equality adds an equality delete by id (equalityDeleted) after the
	// position deletes.
	equality bool
	// commits and perCommit: the appends (defaults 5 × 500).
	commits, perCommit int
}

func (o *sourceOptions) defaults() {
	if o.commits == 0 {
		o.commits = 5
	}
	if o.perCommit == 0 {
		o.perCommit = 500
	}
}

// floeMadeTable creates ns.t with floe through the catalog, appends
// small files with floe's ops, and deletes rows merge-on-read (position
// delete files on v2, deletion vectors on v3) in two commits.
func floeMadeTable(t *testing.T, o sourceOptions) *maintTable {
	t.Helper()
	o.defaults()
	ctx := context.Background()
	c := sqliteCatalog(t)
	cat := c.floe(t)
	if err := cat.CreateNamespace(ctx, []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	// iceberg-go deletes merge-on-read here too: its copy-on-write Delete
	// (v0.7.0, its default) rewrites a file without applying the file's
	// position deletes, so rows floe deleted would come back.
	props := map[string]string{ops.PropDeleteMode: string(ops.MergeOnRead)}
	maps.Copy(props, o.props)
	tbl, err := cat.CreateTable(ctx, catalog.Identifier{Namespace: []string{"ns"}, Name: "t"}, testSchema(),
		catalog.CreateOptions{Spec: bucketDaySpec(), SortOrder: o.order, Properties: props, FormatVersion: o.version})
	if err != nil {
		t.Fatalf("floe CreateTable v%d: %v", o.version, err)
	}
	m := &maintTable{cat: c}
	for k := range o.commits {
		rows := makeRows(uint64(300+k), m.next, o.perCommit)
		rr := rowsReader(t, rows)
		_, err := ops.Append(ctx, tbl, rr, table.CommitOptions{})
		rr.Release()
		if err != nil {
			t.Fatalf("floe append %d: %v", k, err)
		}
		m.want = append(m.want, rows...)
		m.next += int64(o.perCommit)
	}
	for _, f := range []string{"id < 400", "i < -800000"} {
		if _, err := ops.DeleteRows(ctx, tbl, floeFilter(t, f), ops.RowOptions{Mode: ops.MergeOnRead}); err != nil {
			t.Fatalf("floe delete %s: %v", f, err)
		}
	}
	m.want = without(without(m.want, deletedByFirst), deletedBySecond)
	if o.equality {
		w, err := writer.NewEqualityDeleteWriter(ctx, tbl.IO, writer.DataLocation(tbl.Metadata), tbl.Metadata.CurrentSchema(), tbl.Metadata.DefaultSpec(), []int{1}, writer.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		rec := batch(t, slices.DeleteFunc(slices.Clone(m.want), func(r row) bool { return !equalityDeleted(r) }))
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		files, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tbl.RowDelta(ctx, nil, files, table.CommitOptions{}); err != nil {
			t.Fatalf("floe equality delete: %v", err)
		}
		m.want = without(m.want, equalityDeleted)
	}
	return m
}

// goMadeTable creates ns.t with iceberg-go through the catalog
// (write.delete.mode merge-on-read), appends small files with
// iceberg-go, and deletes rows with iceberg-go's Delete in two commits:
// position delete files on v2, deletion vectors on v3.
func goMadeTable(t *testing.T, o sourceOptions) *maintTable {
	t.Helper()
	o.defaults()
	ctx := context.Background()
	c := sqliteCatalog(t)
	goCat := c.icebergGo(t)
	if err := goCat.CreateNamespace(ctx, icebergtable.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	schema, spec := icebergGoSchemaAndSpec(t)
	props := goiceberg.Properties{"format-version": fmt.Sprint(o.version), icebergtable.WriteDeleteModeKey: icebergtable.WriteModeMergeOnRead}
	for k, v := range o.props {
		props[k] = v
	}
	goTbl, err := goCat.CreateTable(ctx, icebergtable.Identifier{"ns", "t"}, schema,
		gocatalog.WithPartitionSpec(spec), gocatalog.WithProperties(props))
	if err != nil {
		t.Fatalf("iceberg-go CreateTable v%d: %v", o.version, err)
	}
	m := &maintTable{cat: c}
	for k := range o.commits {
		rows := makeRows(uint64(400+k), m.next, o.perCommit)
		goTbl = goAppendRows(t, goTbl, rows)
		m.want = append(m.want, rows...)
		m.next += int64(o.perCommit)
	}
	written := slices.Clone(m.want)
	goTbl = goDelete(t, goTbl, goiceberg.LessThan(goiceberg.Reference("id"), int64(400)))
	goTbl = goDelete(t, goTbl, goiceberg.LessThan(goiceberg.Reference("i"), int32(-800_000)))
	m.want = without(without(m.want, deletedByFirst), deletedBySecond)
	m.removed = slices.DeleteFunc(written, func(r row) bool { return !deletedByFirst(r) && !deletedBySecond(r) })
	m.agree(t, m.want)
	if o.equality {
		keys := slices.DeleteFunc(slices.Clone(m.want), func(r row) bool { return !equalityDeleted(r) })
		tx := goTbl.NewTransaction()
		if err := tx.CommitEqualityDeletes(ctx, []int{1}, oneBatch(t, keys), nil); err != nil {
			t.Fatalf("iceberg-go equality deletes: %v", err)
		}
		if _, err := tx.Commit(ctx); err != nil {
			t.Fatalf("iceberg-go commit of equality deletes: %v", err)
		}
		m.removed = append(m.removed, slices.DeleteFunc(slices.Clone(m.want), func(r row) bool { return !equalityDeleted(r) })...)
		m.want = without(m.want, equalityDeleted)
		m.agree(t, m.want)
	}
	return m
}

// agree checks floe and iceberg-go read the same rows of the table
// iceberg-go made, and takes them as its rows. They are model's rows but
// for a few: iceberg-go v0.7.0's merge-on-read Delete at times writes a
// partition's position deletes against another data file of the
// partition than the one holding the rows (seen: 2 of 2,500 rows of
// "i < -800000" kept, the positions naming a 3-row file), which both
// readers then apply alike; that is iceberg-go's write, not what floe's
// maintenance is tested on.
func (m *maintTable) agree(t *testing.T, model []row) {
	t.Helper()
	floeKeys := rowKeys(t, scanWithFloe(t, m.floe(t)))
	goKeys := rowKeys(t, icebergGoScan(t, m.goTable(t), ""))
	if !slices.Equal(floeKeys, goKeys) {
		t.Errorf("floe reads %d rows of iceberg-go's table, iceberg-go %d", len(floeKeys), len(goKeys))
		assertSameRows(t, goKeys, floeKeys)
		t.FailNow()
	}
	ids := map[string]bool{}
	for _, k := range goKeys {
		id, _, _ := strings.Cut(k, "|")
		ids[id] = true
	}
	all := append(slices.Clone(model), m.removed...)
	m.want = slices.DeleteFunc(all, func(r row) bool {
		k := fmt.Sprint(r.id)
		keep := ids[k]
		delete(ids, k) // once: a row both kept by the model and removed
		return !keep
	})
	if len(ids) != 0 {
		t.Logf("never written: %v", slices.Sorted(maps.Keys(ids)))
		t.Fatalf("iceberg-go's table holds %d rows never written", len(ids))
	}
	if len(model) != len(goKeys) {
		t.Logf("iceberg-go's deletes left %d rows where their filters leave %d", len(goKeys), len(model))
	}
}

// oneBatch is rows as the batch sequence iceberg-go's writers take.
func oneBatch(t *testing.T, rows []row) iter.Seq2[arrow.RecordBatch, error] {
	rec := batch(t, rows)
	t.Cleanup(rec.Release)
	return func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) }
}

// goAppendRows appends rows with iceberg-go in one transaction.
func goAppendRows(t *testing.T, tbl *icebergtable.Table, rows []row) *icebergtable.Table {
	t.Helper()
	ctx := context.Background()
	rec := batch(t, rows)
	data := array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec})
	rec.Release()
	defer data.Release()
	tx := tbl.NewTransaction()
	if err := tx.AppendTable(ctx, data, 1024, nil); err != nil {
		t.Fatalf("iceberg-go AppendTable: %v", err)
	}
	out, err := tx.Commit(ctx)
	if err != nil {
		t.Fatalf("iceberg-go commit of append: %v", err)
	}
	return out
}

// goDelete deletes the rows filter selects with iceberg-go, in the
// table's write.delete.mode.
func goDelete(t *testing.T, tbl *icebergtable.Table, filter goiceberg.BooleanExpression) *icebergtable.Table {
	t.Helper()
	ctx := context.Background()
	tx := tbl.NewTransaction()
	if err := tx.Delete(ctx, filter, nil); err != nil {
		t.Fatalf("iceberg-go Delete %s: %v", filter, err)
	}
	out, err := tx.Commit(ctx)
	if err != nil {
		t.Fatalf("iceberg-go commit of delete %s: %v", filter, err)
	}
	return out
}

// floe loads ns.t through the catalog.
func (m *maintTable) floe(t *testing.T) *table.Table { return m.cat.floeLoad(t) }

// goTable loads ns.t with iceberg-go through the catalog.
func (m *maintTable) goTable(t *testing.T) *icebergtable.Table {
	return goLoad(t, m.cat.icebergGo(t), "ns")
}

// assertRows checks floe and iceberg-go, each loading ns.t from the
// catalog afresh, read exactly m.want.
func (m *maintTable) assertRows(t *testing.T, stage string) {
	t.Helper()
	want := expectedKeys(m.want)
	if got := rowKeys(t, scanWithFloe(t, m.floe(t))); !slices.Equal(got, want) {
		t.Errorf("%s: floe reads %d rows, want %d", stage, len(got), len(want))
		assertSameRows(t, want, got)
	}
	if got := rowKeys(t, icebergGoScan(t, m.goTable(t), "")); !slices.Equal(got, want) {
		t.Errorf("%s: iceberg-go reads %d rows, want %d", stage, len(got), len(want))
		assertSameRows(t, want, got)
	}
}

// goWritesAfter is the reverse direction: after floe's maintenance
// iceberg-go appends new rows and deletes some old and new ones (by id,
// never null: iceberg-go v0.7.0's merge-on-read Delete of "i < 0" on a
// file whose i bounds lie below 0 drops the file's null-i rows too),
// and floe reads what iceberg-go does.
func (m *maintTable) goWritesAfter(t *testing.T) {
	t.Helper()
	goTbl := m.goTable(t)
	rows := makeRows(777, m.next, 300)
	goTbl = goAppendRows(t, goTbl, rows)
	m.want = append(m.want, rows...)
	m.next += 300
	// ids 1000..1099 (old rows, in files floe wrote) and 100 of the new.
	newest := rows[0].id
	gone := func(r row) bool { return r.id >= 1000 && r.id < 1100 || r.id >= newest+50 && r.id < newest+150 }
	for _, lo := range []int64{1000, newest + 50} {
		goTbl = goDelete(t, goTbl, goiceberg.NewAnd(
			goiceberg.GreaterThanEqual(goiceberg.Reference("id"), lo),
			goiceberg.LessThan(goiceberg.Reference("id"), lo+100)))
	}
	m.removed = append(m.removed, slices.DeleteFunc(slices.Clone(m.want), func(r row) bool { return !gone(r) })...)
	m.agree(t, without(m.want, gone))
}
