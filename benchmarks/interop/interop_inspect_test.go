package interop

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	goiceberg "github.com/apache/iceberg-go"
	gocatalog "github.com/apache/iceberg-go/catalog"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/inspect"
)

// inspectGoTable builds, with iceberg-go through the SQLite SQL catalog, a
// v2 bucket/day partitioned table with merge-on-read deletes: three
// appends, a delete of some rows (a position delete file) and an
// overwrite by filter (copy-on-write: data files deleted and added). Every
// metadata table then has rows of each kind: added/existing/deleted
// entries, data and delete files, several snapshots, manifests and
// metadata log entries.
func inspectGoTable(t *testing.T) (sharedCatalog, *icebergtable.Table) {
	t.Helper()
	ctx := context.Background()
	c := sqliteCatalog(t)
	goCat := c.icebergGo(t)
	if err := goCat.CreateNamespace(ctx, icebergtable.Identifier{"ns"}, nil); err != nil {
		t.Fatalf("iceberg-go CreateNamespace: %v", err)
	}
	schema, spec := icebergGoSchemaAndSpec(t)
	tbl, err := goCat.CreateTable(ctx, icebergtable.Identifier{"ns", "t"}, schema,
		gocatalog.WithPartitionSpec(spec),
		gocatalog.WithProperties(goiceberg.Properties{"format-version": "2",
			icebergtable.WriteDeleteModeKey: icebergtable.WriteModeMergeOnRead}))
	if err != nil {
		t.Fatalf("iceberg-go CreateTable: %v", err)
	}
	commit := func(what string, do func(tx *icebergtable.Transaction) error) {
		tx := tbl.NewTransaction()
		if err := do(tx); err != nil {
			t.Fatalf("iceberg-go %s: %v", what, err)
		}
		if tbl, err = tx.Commit(ctx); err != nil {
			t.Fatalf("iceberg-go commit of %s: %v", what, err)
		}
	}
	rowsTable := func(rows []row) arrow.Table {
		rec := batch(t, rows)
		defer rec.Release()
		return array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec})
	}
	for k := range 3 {
		data := rowsTable(makeRows(uint64(40+k), int64(k*1000), 60))
		commit("append", func(tx *icebergtable.Transaction) error { return tx.AppendTable(ctx, data, 1024, nil) })
		data.Release()
	}
	commit("delete", func(tx *icebergtable.Transaction) error {
		return tx.Delete(ctx, goiceberg.LessThan(goiceberg.Reference("id"), int64(deletedBelow)), nil)
	})
	over := rowsTable(makeRows(50, 2000, 10))
	commit("overwrite", func(tx *icebergtable.Transaction) error {
		return tx.OverwriteTable(ctx, over, 1024, nil,
			icebergtable.WithOverwriteFilter(goiceberg.GreaterThanEqual(goiceberg.Reference("id"), int64(2000))))
	})
	over.Release()
	return c, tbl
}

// TestInspectMatchesIcebergGo reads every metadata table of a table
// iceberg-go wrote with floe's reader/inspect and with iceberg-go's own
// Inspect API (v0.7.0 has all fifteen of floe's kinds), and compares the
// rows column by column where both have the column. The rows of each side
// are normalised (normCell) and compared as sorted multisets, since
// neither side promises an order across manifests.
func TestInspectMatchesIcebergGo(t *testing.T) {
	ctx := context.Background()
	c, goTbl := inspectGoTable(t)
	floeTbl := c.floeLoad(t)
	gi := goTbl.Inspect()
	theirs := map[inspect.Kind]func(context.Context) (array.RecordReader, error){
		inspect.Snapshots:          gi.Snapshots,
		inspect.History:            gi.History,
		inspect.MetadataLogEntries: gi.MetadataLogEntries,
		inspect.Refs:               gi.Refs,
		inspect.Manifests:          gi.Manifests,
		inspect.AllManifests:       gi.AllManifests,
		inspect.Entries:            gi.Entries,
		inspect.AllEntries:         gi.AllEntries,
		inspect.Files:              gi.Files,
		inspect.DataFiles:          gi.DataFiles,
		inspect.DeleteFiles:        gi.DeleteFiles,
		inspect.AllFiles:           gi.AllFiles,
		inspect.AllDataFiles:       gi.AllDataFiles,
		inspect.AllDeleteFiles:     gi.AllDeleteFiles,
		inspect.Partitions:         gi.Partitions,
		// position_deletes by name: its floe file is newer than this test.
		inspect.Kind("position_deletes"): gi.PositionDeletes,
	}
	// Every kind floe registers is compared: a new kind without an
	// iceberg-go counterpart fails here until it is given one (or a
	// comparison against iceberg-go's metadata objects).
	registered := inspect.Kinds()
	for k := range theirs {
		if k != "position_deletes" && !slices.Contains(registered, k) {
			t.Errorf("floe has no %s metadata table", k)
		}
	}
	slices.Sort(registered)
	for _, kind := range registered {
		if theirs[kind] == nil {
			t.Errorf("floe kind %s has no iceberg-go comparison", kind)
			continue
		}
		t.Run(string(kind), func(t *testing.T) {
			goRdr, err := theirs[kind](ctx)
			if err != nil {
				t.Fatalf("iceberg-go inspect %s: %v", kind, err)
			}
			goBatches := drain(t, goRdr)
			floeRdr, err := inspect.Open(ctx, floeTbl, kind, inspect.Options{}, memory.DefaultAllocator)
			if err != nil {
				t.Fatalf("floe inspect %s: %v", kind, err)
			}
			floeBatches := drain(t, floeRdr)
			shape, only := commonShape(floeRdr.Schema(), goRdr.Schema())
			if len(shape.fields) == 0 {
				t.Fatalf("no common columns: floe %v, iceberg-go %v", floeRdr.Schema(), goRdr.Schema())
			}
			if len(only) > 0 {
				t.Logf("not compared (one side only): %v", only)
			}
			floeRows, goRows := normRows(floeBatches, shape, nil), normRows(goBatches, shape, goFixup[kind])
			// The table is built so that every metadata table has rows:
			// an empty-against-empty comparison proves nothing.
			if len(goRows) == 0 {
				t.Fatalf("iceberg-go %s has no rows", kind)
			}
			assertSameNormRows(t, floeRows, goRows)
			if kind == "position_deletes" {
				assertDeletedPositions(t, "floe", floeBatches)
				assertDeletedPositions(t, "iceberg-go", goBatches)
			}
		})
	}
	// Each metadata table compared above must agree with iceberg-go's
	// own metadata objects too, so that a bug both readers share in a
	// count is still caught: the snapshot list and the current
	// snapshot's manifests read through iceberg-go's API.
	md := goTbl.Metadata()
	if got := countRows(t, floeTbl, inspect.Snapshots); got != len(md.Snapshots()) {
		t.Errorf("floe snapshots: %d rows, iceberg-go metadata has %d snapshots", got, len(md.Snapshots()))
	}
	fs, err := goTbl.FS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	manifests, err := goTbl.CurrentSnapshot().Manifests(fs)
	if err != nil {
		t.Fatal(err)
	}
	if got := countRows(t, floeTbl, inspect.Manifests); got != len(manifests) {
		t.Errorf("floe manifests: %d rows, iceberg-go's manifest list has %d", got, len(manifests))
	}
	live := map[string]goiceberg.DataFile{}
	for _, m := range manifests {
		entries, err := m.FetchEntries(fs, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			live[e.DataFile().FilePath()] = e.DataFile()
		}
	}
	if got := countRows(t, floeTbl, inspect.Files); got != len(live) {
		t.Errorf("floe files: %d rows, iceberg-go's manifests hold %d live entries", got, len(live))
	}
	assertReadableMetrics(t, floeTbl, live)
}

// assertReadableMetrics compares floe's readable_metrics column of the
// files table, which iceberg-go's files table lacks, with the metrics of
// iceberg-go's own manifest entries (its DataFile maps by field id): the
// four counts of every column, and the bounds of id (long) and s
// (string), whose decoded form needs no normalisation.
func assertReadableMetrics(t *testing.T, tbl *table.Table, live map[string]goiceberg.DataFile) {
	t.Helper()
	rdr, err := inspect.Open(context.Background(), tbl, inspect.Files,
		inspect.Options{Columns: []string{"file_path", "readable_metrics"}}, memory.DefaultAllocator)
	if err != nil {
		t.Fatalf("floe inspect files: %v", err)
	}
	ids := map[string]int{"id": 1, "i": 2, "d": 3, "s": 4, "dt": 5, "ts": 6, "dec": 7, "b": 8}
	counts := []struct {
		name string
		of   func(goiceberg.DataFile) map[int]int64
	}{
		{"column_size", goiceberg.DataFile.ColumnSizes},
		{"value_count", goiceberg.DataFile.ValueCounts},
		{"null_value_count", goiceberg.DataFile.NullValueCounts},
		{"nan_value_count", goiceberg.DataFile.NaNValueCounts},
	}
	checked := 0
	for _, b := range drain(t, rdr) {
		paths := b.Column(0).(*array.String)
		metrics := b.Column(1).(*array.Struct)
		mt := metrics.DataType().(*arrow.StructType)
		for r := 0; r < int(b.NumRows()); r++ {
			df := live[paths.Value(r)]
			if df == nil {
				t.Errorf("floe files names %s, not live in iceberg-go's manifests", paths.Value(r))
				continue
			}
			for name, id := range ids {
				i, ok := mt.FieldIdx(name)
				if !ok {
					t.Fatalf("readable_metrics has no %s: %s", name, mt)
				}
				col := metrics.Field(i).(*array.Struct)
				ct := col.DataType().(*arrow.StructType)
				field := func(n string) arrow.Array { k, _ := ct.FieldIdx(n); return col.Field(k) }
				for _, c := range counts {
					got := normCell(field(c.name), r, shape{})
					var want any
					if v, ok := c.of(df)[id]; ok {
						want = strconv.FormatInt(v, 10)
					}
					if got != want {
						t.Errorf("%s readable_metrics.%s.%s = %v, iceberg-go's manifest has %v", df.FilePath(), name, c.name, got, want)
					}
					checked++
				}
				if name != "id" && name != "s" {
					continue
				}
				for _, bound := range []struct {
					name string
					raw  map[int][]byte
				}{{"lower_bound", df.LowerBoundValues()}, {"upper_bound", df.UpperBoundValues()}} {
					got := normCell(field(bound.name), r, shape{})
					var want any
					if raw, ok := bound.raw[id]; ok {
						if name == "id" && len(raw) != 8 {
							t.Fatalf("%s: id bound %x is not a long", df.FilePath(), raw)
						} else if name == "id" {
							want = strconv.FormatInt(int64(binary.LittleEndian.Uint64(raw)), 10)
						} else {
							want = string(raw)
						}
					}
					if got != want {
						t.Errorf("%s readable_metrics.%s.%s = %v, iceberg-go's manifest has %v", df.FilePath(), name, bound.name, got, want)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no readable_metrics checked")
	}
}

func countRows(t *testing.T, tbl *table.Table, kind inspect.Kind) int {
	t.Helper()
	rdr, err := inspect.Open(context.Background(), tbl, kind, inspect.Options{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatalf("floe inspect %s: %v", kind, err)
	}
	n := 0
	for _, b := range drain(t, rdr) {
		n += int(b.NumRows())
	}
	return n
}

func drain(t *testing.T, rdr array.RecordReader) []arrow.RecordBatch {
	t.Helper()
	t.Cleanup(rdr.Release)
	var out []arrow.RecordBatch
	for rdr.Next() {
		rec := rdr.RecordBatch()
		rec.Retain()
		t.Cleanup(rec.Release)
		out = append(out, rec)
	}
	if err := rdr.Err(); err != nil {
		t.Fatalf("reading metadata table: %v", err)
	}
	return out
}

// shape is the part of two Arrow types both sides have: struct fields
// matched by name (recursively), list elements, map keys and values.
// Leaves are compared by normalised value whatever their Arrow types.
type shape struct {
	fields []shapeField // struct (or the record's columns)
	elem   *shape       // list
	key    *shape       // map
	item   *shape       // map
}

type shapeField struct {
	name  string
	child shape
}

func commonShape(floe, goS *arrow.Schema) (shape, []string) {
	return commonFields("", floe.Fields(), goS.Fields())
}

func commonFields(prefix string, floe, goF []arrow.Field) (shape, []string) {
	var s shape
	var only []string
	goByName := map[string]int{}
	for i, f := range goF {
		goByName[f.Name] = i
	}
	seen := map[string]bool{}
	for _, f := range floe {
		j, ok := goByName[f.Name]
		if !ok {
			only = append(only, "floe:"+prefix+f.Name)
			continue
		}
		seen[f.Name] = true
		child, o := commonType(prefix+f.Name+".", f.Type, goF[j].Type)
		only = append(only, o...)
		s.fields = append(s.fields, shapeField{name: f.Name, child: child})
	}
	for _, f := range goF {
		if !seen[f.Name] {
			only = append(only, "iceberg-go:"+prefix+f.Name)
		}
	}
	return s, only
}

func commonType(prefix string, a, b arrow.DataType) (shape, []string) {
	switch at := a.(type) {
	case *arrow.StructType:
		if bt, ok := b.(*arrow.StructType); ok {
			return commonFields(prefix, at.Fields(), bt.Fields())
		}
	case *arrow.MapType:
		if bt, ok := b.(*arrow.MapType); ok {
			k, o1 := commonType(prefix+"key.", at.KeyType(), bt.KeyType())
			v, o2 := commonType(prefix+"value.", at.ItemType(), bt.ItemType())
			return shape{key: &k, item: &v}, append(o1, o2...)
		}
	case arrow.ListLikeType:
		if bt, ok := b.(arrow.ListLikeType); ok {
			e, o := commonType(prefix+"element.", at.Elem(), bt.Elem())
			return shape{elem: &e}, o
		}
	}
	return shape{}, nil
}

// normRows turns each row into the JSON text of its normalised common
// columns, sorted.
func normRows(batches []arrow.RecordBatch, s shape, fixup func(map[string]any)) []string {
	var out []string
	for _, b := range batches {
		for r := 0; r < int(b.NumRows()); r++ {
			obj := map[string]any{}
			for _, f := range s.fields {
				obj[f.name] = normCell(b.Column(sideIdx(b, f)), r, f.child)
			}
			if fixup != nil {
				fixup(obj)
			}
			text, _ := json.Marshal(obj)
			out = append(out, string(text))
		}
	}
	sort.Strings(out)
	return out
}

// sideIdx finds a common column in a batch by name: each side's batches
// carry their own column order.
func sideIdx(b arrow.RecordBatch, f shapeField) int {
	for i, fld := range b.Schema().Fields() {
		if fld.Name == f.name {
			return i
		}
	}
	panic("column " + f.name + " missing")
}

// goFixup holds the differences of iceberg-go's rows from Java's that are
// not floe's to copy, applied to iceberg-go's normalised rows only:
//   - snapshots.summary: iceberg-go keeps an "operation" entry in the
//     summary map; Java's SnapshotParser takes "operation" out of the
//     summary (it is the operation column), and floe follows Java.
var goFixup = map[inspect.Kind]func(map[string]any){
	inspect.Snapshots: func(row map[string]any) {
		if pairs, ok := row["summary"].([][2]any); ok {
			row["summary"] = slices.DeleteFunc(pairs, func(p [2]any) bool { return p[0] == "operation" })
		}
	},
}

// normCell is the one place where the two sides' Arrow encodings are made
// comparable. Today floe and iceberg-go v0.7.0 give every common column
// the same Arrow type (only a map's item nullability differs, which values
// do not show), so these rules keep the comparison about values should
// either side change an encoding the Iceberg type allows; each says why:
//   - integers of any width become decimal text: iceberg-go and floe may
//     pick int32 and int64 differently for the same Iceberg int field
//     (e.g. counts), and the value, not the width, is the contract;
//   - timestamps become microseconds since the epoch, whatever the Arrow
//     unit: Java's metadata tables type committed_at, made_current_at,
//     timestamp… as timestamptz (µs); a side using milliseconds holds
//     the same instant;
//   - floats become their shortest decimal text; binary becomes hex, so
//     JSON holds it exactly;
//   - maps become lists of [key, value] sorted by key: Iceberg maps are
//     unordered, and each side writes the entries of a column_sizes map
//     in its own order;
//   - structs keep only the fields both sides have (commonShape).
func normCell(col arrow.Array, r int, s shape) any {
	if col.IsNull(r) {
		return nil
	}
	switch a := col.(type) {
	case *array.Int8:
		return strconv.FormatInt(int64(a.Value(r)), 10)
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(r)), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(r)), 10)
	case *array.Int64:
		return strconv.FormatInt(a.Value(r), 10)
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		v := int64(a.Value(r))
		switch unit {
		case arrow.Second:
			v *= 1_000_000
		case arrow.Millisecond:
			v *= 1_000
		case arrow.Nanosecond:
			v /= 1_000
		}
		return "ts:" + strconv.FormatInt(v, 10)
	case *array.Float32:
		return strconv.FormatFloat(float64(a.Value(r)), 'g', -1, 32)
	case *array.Float64:
		return strconv.FormatFloat(a.Value(r), 'g', -1, 64)
	case *array.Binary:
		return "0x" + hex.EncodeToString(a.Value(r))
	case *array.LargeBinary:
		return "0x" + hex.EncodeToString(a.Value(r))
	case *array.Struct:
		obj := map[string]any{}
		st := a.DataType().(*arrow.StructType)
		for _, f := range s.fields {
			i, _ := st.FieldIdx(f.name)
			obj[f.name] = normCell(a.Field(i), r, f.child)
		}
		return obj
	case *array.Map:
		start, end := a.ValueOffsets(r)
		keys, items := a.Keys(), a.Items()
		var pairs [][2]any
		for i := int(start); i < int(end); i++ {
			pairs = append(pairs, [2]any{normCell(keys, i, deref(s.key, shape{})), normCell(items, i, deref(s.item, shape{}))})
		}
		sort.Slice(pairs, func(i, j int) bool { return fmt.Sprint(pairs[i][0]) < fmt.Sprint(pairs[j][0]) })
		return pairs
	case array.ListLike:
		start, end := a.ValueOffsets(r)
		out := []any{}
		for i := int(start); i < int(end); i++ {
			out = append(out, normCell(a.ListValues(), i, deref(s.elem, shape{})))
		}
		return out
	}
	// Strings, booleans, dates: Arrow's own text of the value.
	return col.ValueStr(r)
}

func assertSameNormRows(t *testing.T, floe, goRows []string) {
	t.Helper()
	if slices.Equal(floe, goRows) {
		return
	}
	onlyIn := func(a, b []string) []string {
		count := map[string]int{}
		for _, x := range b {
			count[x]++
		}
		var out []string
		for _, x := range a {
			if count[x] > 0 {
				count[x]--
				continue
			}
			out = append(out, x)
		}
		return out
	}
	t.Errorf("floe has %d rows, iceberg-go %d", len(floe), len(goRows))
	for _, x := range onlyIn(floe, goRows) {
		t.Errorf("only floe:       %s", x)
	}
	for _, x := range onlyIn(goRows, floe) {
		t.Errorf("only iceberg-go: %s", x)
	}
}

// deletedBelow is the id bound of the table's delete: every position a
// position delete names holds a row with id < deletedBelow.
const deletedBelow = 20

// assertDeletedPositions checks position_deletes rows against the data
// files themselves, read by parquet-go: each (file_path, pos) must name a
// row the delete removed, and every removed row of a named file must be
// named. This decides which side is right when floe and iceberg-go
// differ.
func assertDeletedPositions(t *testing.T, who string, batches []arrow.RecordBatch) {
	t.Helper()
	named := map[string]map[int64]bool{}
	for _, b := range batches {
		paths := b.Column(sideIdx(b, shapeField{name: "file_path"})).(*array.String)
		pos := b.Column(sideIdx(b, shapeField{name: "pos"})).(*array.Int64)
		for r := 0; r < int(b.NumRows()); r++ {
			if named[paths.Value(r)] == nil {
				named[paths.Value(r)] = map[int64]bool{}
			}
			named[paths.Value(r)][pos.Value(r)] = true
		}
	}
	if len(named) == 0 {
		t.Fatalf("%s: no position deletes", who)
	}
	for path, positions := range named {
		for p, id := range idsInFile(t, path) {
			if deleted := id < deletedBelow; deleted != positions[int64(p)] {
				t.Errorf("%s: %s position %d holds id %d; named by a position delete: %v", who, path, p, id, positions[int64(p)])
			}
		}
	}
}
