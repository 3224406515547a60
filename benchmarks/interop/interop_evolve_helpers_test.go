package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// metaView is what issue 28's changes touch in table metadata, as both
// sides parse it: each schema, spec and sort order in the spec's JSON form
// (decoded, so key order and spacing do not matter), the current ids, every
// snapshot's lineage and schema, and every ref. Two readers of one metadata
// file must build equal views.
type metaView struct {
	FormatVersion      int
	CurrentSchemaID    int
	Schemas            map[int]any
	DefaultSpecID      int
	Specs              map[int]any
	DefaultSortOrderID int
	SortOrders         map[int]any
	CurrentSnapshotID  int64
	Snapshots          map[int64]snapView
	Refs               map[string]refView
}

type snapView struct {
	Parent    int64 // -1 for none
	SchemaID  int   // -1 for none
	Operation string
}

type refView struct {
	Type       string
	SnapshotID int64
}

// jsonValue is v marshalled by its own MarshalJSON and decoded into plain
// Go values.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return out
}

// schemaJSON is a schema's JSON value; iceberg-go writes an empty
// identifier-field-ids list where floe leaves the optional key out, which
// the spec reads alike, so an empty list is dropped.
func schemaJSON(t *testing.T, schema any) any {
	t.Helper()
	v := jsonValue(t, schema)
	if m, ok := v.(map[string]any); ok {
		if ids, ok := m["identifier-field-ids"].([]any); ok && len(ids) == 0 {
			delete(m, "identifier-field-ids")
		}
	}
	return v
}

func deref[T any](p *T, none T) T {
	if p == nil {
		return none
	}
	return *p
}

func floeMetaView(t *testing.T, md *metadata.Metadata) metaView {
	t.Helper()
	v := metaView{FormatVersion: md.FormatVersion, CurrentSchemaID: md.CurrentSchemaID, DefaultSpecID: md.DefaultSpecID,
		DefaultSortOrderID: md.DefaultSortOrderID, CurrentSnapshotID: deref(md.CurrentSnapshotID, -1),
		Schemas: map[int]any{}, Specs: map[int]any{}, SortOrders: map[int]any{}, Snapshots: map[int64]snapView{}, Refs: map[string]refView{}}
	for _, s := range md.Schemas {
		v.Schemas[s.ID] = schemaJSON(t, s)
	}
	for _, s := range md.PartitionSpecs {
		v.Specs[s.ID] = jsonValue(t, s)
	}
	for _, o := range md.SortOrders {
		v.SortOrders[o.OrderID] = jsonValue(t, o)
	}
	for _, s := range md.Snapshots {
		v.Snapshots[s.SnapshotID] = snapView{Parent: deref(s.ParentSnapshotID, -1), SchemaID: deref(s.SchemaID, -1), Operation: s.Summary["operation"]}
	}
	for name, r := range md.Refs {
		v.Refs[name] = refView{Type: r.Type, SnapshotID: r.SnapshotID}
	}
	return v
}

func icebergGoMetaView(t *testing.T, md icebergtable.Metadata) metaView {
	t.Helper()
	v := metaView{FormatVersion: md.Version(), CurrentSchemaID: md.CurrentSchema().ID, DefaultSpecID: md.DefaultPartitionSpec(),
		DefaultSortOrderID: md.DefaultSortOrder(), CurrentSnapshotID: -1,
		Schemas: map[int]any{}, Specs: map[int]any{}, SortOrders: map[int]any{}, Snapshots: map[int64]snapView{}, Refs: map[string]refView{}}
	if cur := md.CurrentSnapshot(); cur != nil {
		v.CurrentSnapshotID = cur.SnapshotID
	}
	for _, s := range md.Schemas() {
		v.Schemas[s.ID] = schemaJSON(t, s)
	}
	for _, s := range md.PartitionSpecs() {
		v.Specs[s.ID()] = jsonValue(t, s)
	}
	for _, o := range md.SortOrders() {
		v.SortOrders[o.OrderID()] = jsonValue(t, o)
	}
	for _, s := range md.Snapshots() {
		op := ""
		if s.Summary != nil {
			op = string(s.Summary.Operation)
		}
		v.Snapshots[s.SnapshotID] = snapView{Parent: deref(s.ParentSnapshotID, -1), SchemaID: deref(s.SchemaID, -1), Operation: op}
	}
	for name, r := range md.Refs() {
		v.Refs[name] = refView{Type: string(r.SnapshotRefType), SnapshotID: r.SnapshotID}
	}
	return v
}

// assertSameMetadata fails when floe and iceberg-go, each reading the
// table's metadata, do not describe the same schemas, specs, sort orders,
// snapshots and refs.
func assertSameMetadata(t *testing.T, floeMD *metadata.Metadata, goMD icebergtable.Metadata) metaView {
	t.Helper()
	f, g := floeMetaView(t, floeMD), icebergGoMetaView(t, goMD)
	fv, gv := reflect.ValueOf(f), reflect.ValueOf(g)
	for i := range fv.NumField() {
		name := fv.Type().Field(i).Name
		fe, ge := fv.Field(i), gv.Field(i)
		if fe.Kind() != reflect.Map {
			if !reflect.DeepEqual(fe.Interface(), ge.Interface()) {
				t.Errorf("%s: floe reads %v, iceberg-go %v", name, fe.Interface(), ge.Interface())
			}
			continue
		}
		keys := map[string]reflect.Value{}
		for _, m := range []reflect.Value{fe, ge} {
			for _, k := range m.MapKeys() {
				keys[fmt.Sprint(k.Interface())] = k
			}
		}
		for ks, k := range keys {
			fx, gx := fe.MapIndex(k), ge.MapIndex(k)
			if !fx.IsValid() || !gx.IsValid() {
				t.Errorf("%s %s: floe has it %v, iceberg-go %v", name, ks, fx.IsValid(), gx.IsValid())
				continue
			}
			if !reflect.DeepEqual(fx.Interface(), gx.Interface()) {
				fj, _ := json.Marshal(fx.Interface())
				gj, _ := json.Marshal(gx.Interface())
				t.Errorf("%s %s:\nfloe       %s\niceberg-go %s", name, ks, fj, gj)
			}
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	return f
}

// namedKeys renders every row of batches as the cells of columns, in that
// order, so rows of any schema compare as text; a column missing from the
// batches fails the test.
func namedKeys(t *testing.T, batches []arrow.RecordBatch, columns []string) []string {
	t.Helper()
	var keys []string
	for _, rec := range batches {
		if got := rec.Schema().NumFields(); got != len(columns) {
			t.Fatalf("read batch has %d columns, want %d (%v): %v", got, len(columns), columns, rec.Schema())
		}
		cols := make([]arrow.Array, len(columns))
		for c, name := range columns {
			idx := rec.Schema().FieldIndices(name)
			if len(idx) != 1 {
				t.Fatalf("read batch has %d columns named %q: %v", len(idx), name, rec.Schema())
			}
			cols[c] = rec.Column(idx[0])
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			parts := make([]string, len(cols))
			for c, col := range cols {
				parts[c] = anyCellString(t, col, r)
			}
			keys = append(keys, strings.Join(parts, "|"))
		}
	}
	slices.Sort(keys)
	return keys
}

// anyCellString is cellString plus the float type, written as the float64
// it widens to so a float promoted to double reads as the same text.
func anyCellString(t *testing.T, col arrow.Array, r int) string {
	if a, ok := col.(*array.Float32); ok && !a.IsNull(r) {
		return fmt.Sprint(float64(a.Value(r)))
	}
	return cellString(t, col, r)
}

// assertColumnTypes fails unless each named column of every batch has the
// Arrow type given (a promoted column must read as its new type from the
// files written before the promotion too).
func assertColumnTypes(t *testing.T, who string, batches []arrow.RecordBatch, want map[string]arrow.DataType) {
	t.Helper()
	if len(batches) == 0 {
		t.Fatalf("%s read no batch", who)
	}
	for _, rec := range batches {
		for name, typ := range want {
			idx := rec.Schema().FieldIndices(name)
			if len(idx) != 1 {
				t.Fatalf("%s: no column %q in %v", who, name, rec.Schema())
			}
			if got := rec.Schema().Field(idx[0]).Type; !arrow.TypeEqual(got, typ) {
				t.Fatalf("%s reads column %q as %s, want %s", who, name, got, typ)
			}
		}
	}
}

// icebergGoScan reads the table with iceberg-go: ref "" is main, else the
// branch or tag of that name.
func icebergGoScan(t *testing.T, tbl *icebergtable.Table, ref string) []arrow.RecordBatch {
	t.Helper()
	sc := tbl.Scan()
	if ref != "" {
		var err error
		if sc, err = sc.UseRef(ref); err != nil {
			t.Fatalf("iceberg-go UseRef(%q): %v", ref, err)
		}
	}
	return icebergGoRead(t, sc, ref)
}

// icebergGoScanSnapshot reads one snapshot of the table with iceberg-go.
func icebergGoScanSnapshot(t *testing.T, tbl *icebergtable.Table, id int64) []arrow.RecordBatch {
	t.Helper()
	return icebergGoRead(t, tbl.Scan(icebergtable.WithSnapshotID(id)), fmt.Sprint("snapshot ", id))
}

func icebergGoRead(t *testing.T, sc *icebergtable.Scan, what string) []arrow.RecordBatch {
	t.Helper()
	ctx := context.Background()
	_, records, err := sc.ToArrowRecords(ctx)
	if err != nil {
		t.Fatalf("iceberg-go scan of %q: %v", what, err)
	}
	var out []arrow.RecordBatch
	for rec, err := range records {
		if err != nil {
			t.Fatalf("iceberg-go scan of %q: %v", what, err)
		}
		t.Cleanup(rec.Release)
		out = append(out, rec)
	}
	return out
}

// floeScan reads the table with floe's reader: ref "" is main, else the
// branch or tag of that name.
func floeScan(t *testing.T, tbl *table.Table, ref string) []arrow.RecordBatch {
	t.Helper()
	return floeRead(t, tbl, scan.Options{Ref: ref}, ref)
}

// floeScanSnapshot reads one snapshot of the table with floe's reader.
func floeScanSnapshot(t *testing.T, tbl *table.Table, id int64) []arrow.RecordBatch {
	t.Helper()
	return floeRead(t, tbl, scan.Options{SnapshotID: &id}, fmt.Sprint("snapshot ", id))
}

func floeRead(t *testing.T, tbl *table.Table, opts scan.Options, what string) []arrow.RecordBatch {
	t.Helper()
	ctx := context.Background()
	sc, err := scan.New(ctx, tbl, opts)
	if err != nil {
		t.Fatalf("floe scan of %q: %v", what, err)
	}
	rr, err := sc.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatalf("floe reader of %q: %v", what, err)
	}
	defer rr.Release()
	var out []arrow.RecordBatch
	for rr.Next() {
		rec := rr.RecordBatch()
		rec.Retain()
		t.Cleanup(rec.Release)
		out = append(out, rec)
	}
	if err := rr.Err(); err != nil {
		t.Fatalf("floe read of %q: %v", what, err)
	}
	return out
}

// microsText is a timestamp without zone as rowKeys renders it.
func microsText(us int64) string { return time.UnixMicro(us).UTC().Format(time.RFC3339Nano) }
