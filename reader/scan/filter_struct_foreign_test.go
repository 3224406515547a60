package scan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// Struct-field filters on files another Parquet writer made: arrow-go's
// pqarrow, with the layout Redpanda's Iceberg topics use (a redpanda
// struct of partition and offset beside a payload struct). Its statistics
// and page index of nested leaves are right, so row groups and pages
// prune by them; the rows returned are those the filter holds for.
func TestStructFieldFiltersOnArrowGoFiles(t *testing.T) {
	ctx := context.Background()
	id := func(n int) arrow.Metadata {
		return arrow.NewMetadata([]string{arrowschema.FieldIDKey}, []string{strconv.Itoa(n)})
	}
	rpType := arrow.StructOf(
		arrow.Field{Name: "partition", Type: arrow.PrimitiveTypes.Int32, Metadata: id(3)},
		arrow.Field{Name: "offset", Type: arrow.PrimitiveTypes.Int64, Metadata: id(4)},
	)
	plType := arrow.StructOf(
		arrow.Field{Name: "kind", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: id(6)},
		arrow.Field{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: id(7)},
	)
	as := arrow.NewSchema([]arrow.Field{
		{Name: "redpanda", Type: rpType, Metadata: id(2)},
		{Name: "payload", Type: plType, Nullable: true, Metadata: id(5)},
	}, nil)
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 2, Name: "redpanda", Required: true, Type: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 3, Name: "partition", Required: true, Type: iceberg.IntType{}},
			{ID: 4, Name: "offset", Required: true, Type: iceberg.LongType{}},
		}}},
		{ID: 5, Name: "payload", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 6, Name: "kind", Type: iceberg.StringType{}},
			{ID: 7, Name: "n", Type: iceberg.IntType{}},
		}}},
	})
	dir := t.TempDir()
	tbl, err := table.Create(ctx, nil, filepath.Join(dir, "events"), schema, nil, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	type event struct {
		partition int32
		offset    int64
		payload   bool // false: a null payload struct
		kind      *string
		n         int32
	}
	kinds := []string{"click", "view", "x"}
	var all []event
	var files []manifest.DataFile
	for p := int32(0); p < 3; p++ {
		var events []event
		for o := int64(0); o < 3000; o++ {
			e := event{partition: p, offset: o, payload: o%11 != 0, n: int32(o % 50)}
			if o%7 != 0 {
				k := kinds[(o/500)%3] // clustered: row groups hold one or two kinds
				e.kind = &k
			}
			events = append(events, e)
		}
		all = append(all, events...)
		b := array.NewRecordBuilder(memory.NewGoAllocator(), as)
		rp, pl := b.Field(0).(*array.StructBuilder), b.Field(1).(*array.StructBuilder)
		for _, e := range events {
			rp.Append(true)
			rp.FieldBuilder(0).(*array.Int32Builder).Append(e.partition)
			rp.FieldBuilder(1).(*array.Int64Builder).Append(e.offset)
			pl.Append(e.payload) // a null struct appends nulls to its children itself
			if !e.payload {
				continue
			}
			if e.kind != nil {
				pl.FieldBuilder(0).(*array.StringBuilder).Append(*e.kind)
			} else {
				pl.FieldBuilder(0).AppendNull()
			}
			pl.FieldBuilder(1).(*array.Int32Builder).Append(e.n)
		}
		rec := b.NewRecordBatch()
		b.Release()
		path := filepath.Join(dir, fmt.Sprintf("part-%d.parquet", p))
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(500), parquet.WithDataPageSize(512),
			parquet.WithStats(true), parquet.WithPageIndexEnabled(true), parquet.WithDictionaryDefault(false))
		w, err := pqarrow.NewFileWriter(as, out, props, pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		// No column metrics: what prunes is the files' own statistics.
		files = append(files, manifest.DataFile{Content: manifest.ContentData, FilePath: path, FileFormat: "PARQUET",
			RecordCount: int64(len(events)), FileSizeInBytes: info.Size()})
	}
	if _, err := tbl.Append(ctx, files, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tbl, err = table.Open(ctx, tbl.MetadataLocation, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	str := func(s *string) string {
		if s == nil {
			return "<nil>"
		}
		return *s
	}
	for _, c := range []struct {
		filter string
		holds  func(e event) bool
		pruned bool // row groups or pages must be skipped
	}{
		{"true", func(e event) bool { return true }, false},
		{"redpanda.partition = 0", func(e event) bool { return e.partition == 0 }, true},
		{`"redpanda"."offset" >= 2900`, func(e event) bool { return e.offset >= 2900 }, true},
		{`"redpanda.offset" < 10 and redpanda.partition = 2`, func(e event) bool { return e.offset < 10 && e.partition == 2 }, true},
		{"payload.kind = 'x'", func(e event) bool { return e.payload && e.kind != nil && *e.kind == "x" }, true},
		{"payload.kind is null", func(e event) bool { return !e.payload || e.kind == nil }, false},
		{"payload.n > 45 or payload is null", nil, false}, // refused: payload is a struct
		{"not (payload.n <= 45)", func(e event) bool { return e.payload && e.n > 45 }, false},
		{"payload.n is not null and redpanda.offset < 100", func(e event) bool { return e.payload && e.offset < 100 }, true},
	} {
		s, err := New(ctx, tbl, Options{Filter: textFilter(c.filter), Columns: []string{"redpanda.offset", "payload.kind"}})
		if c.holds == nil {
			if err == nil {
				t.Errorf("%s: accepted", c.filter)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		want := map[string]int{}
		for _, e := range all {
			if c.holds(e) {
				k := "<nil>"
				if e.payload {
					k = str(e.kind)
				}
				want[fmt.Sprint(e.offset, k)]++
			}
		}
		got := map[string]int{}
		rr, err := s.Reader(ctx, memory.NewGoAllocator())
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			off := rec.Column(0).(*array.Struct).Field(0).(*array.Int64)
			pl := rec.Column(1).(*array.Struct)
			kind := pl.Field(0).(*array.String)
			for i := 0; i < int(rec.NumRows()); i++ {
				k := "<nil>"
				if pl.IsValid(i) && kind.IsValid(i) {
					k = kind.Value(i)
				}
				got[fmt.Sprint(off.Value(i), k)]++
			}
		}
		if err := rr.Err(); err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		rr.Release()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			n := 0
			for k, v := range want {
				if got[k] != v && n < 4 {
					n++
					t.Logf("  %s: got %d want %d", k, got[k], v)
				}
			}
			t.Errorf("%s: %d distinct rows, want %d", c.filter, len(got), len(want))
		}
		m := s.Metrics()
		if c.pruned && m.RowGroupsSkipped == 0 && m.PagesSkipped == 0 {
			t.Errorf("%s: nothing pruned: %+v", c.filter, m)
		}
	}
}
