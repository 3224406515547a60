package scan

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/internal/varianttest"
)

// scanVariantTable reads every row of a varianttest table: ids and the
// variant array's rows, in id order.
func scanVariantTable(t *testing.T, layout string, opts Options) (ids []int64, got []*extensions.VariantArray, rows []int) {
	t.Helper()
	ctx := context.Background()
	values, err := varianttest.Values()
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := varianttest.Table(ctx, filepath.Join(t.TempDir(), "t"), values, layout)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(ctx, tbl, opts)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	rr, err := s.Reader(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		if !rec.Schema().Equal(s.Schema()) {
			t.Fatalf("batch schema %s differs from the scan's %s", rec.Schema(), s.Schema())
		}
		for c, f := range rec.Schema().Fields() {
			switch f.Name {
			case "id":
				ids = append(ids, rec.Column(c).(*array.Int64).Int64Values()...)
			case "v":
				va, ok := rec.Column(c).(*extensions.VariantArray)
				if !ok {
					t.Fatalf("v is a %T (%s), want a variant array", rec.Column(c), rec.Column(c).DataType())
				}
				va.Retain()
				t.Cleanup(va.Release)
				for i := range va.Len() {
					got = append(got, va)
					rows = append(rows, i)
				}
			}
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return ids, got, rows
}

// Files pqarrow wrote, unshredded and shredded as an object, a scalar and
// an array, read back as exactly the variants written; the table's other
// column reads alongside.
func TestScanVariantWrittenByPqarrow(t *testing.T) {
	values, err := varianttest.Values()
	if err != nil {
		t.Fatal(err)
	}
	for layout := range varianttest.Shreddings() {
		for _, batch := range []int{500, 5} {
			t.Run(fmt.Sprintf("%s/batch%d", layout, batch), func(t *testing.T) {
				checkVariantScan(t, layout, batch, values)
			})
		}
	}
}

func checkVariantScan(t *testing.T, layout string, batch int, values []*variant.Value) {
	ids, got, rows := scanVariantTable(t, layout, Options{BatchSize: batch})
	if len(ids) != len(values) || len(got) != len(values) {
		t.Fatalf("%d ids and %d variants, want %d", len(ids), len(got), len(values))
	}
	for i, want := range values {
		if ids[i] != int64(i) {
			t.Fatalf("row %d: id %d", i, ids[i])
		}
		arr, r := got[i], rows[i]
		if want == nil {
			if !arr.Storage().IsNull(r) {
				t.Errorf("row %d: a null row came back present", i)
			}
			continue
		}
		if arr.Storage().IsNull(r) {
			t.Errorf("row %d: came back null, want %s", i, varianttest.Describe(*want))
			continue
		}
		if arr.IsShredded() {
			t.Fatalf("floe returned a shredded variant array")
		}
		v, err := arr.Value(r)
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		if g, w := varianttest.Describe(v), varianttest.Describe(*want); g != w {
			t.Errorf("row %d:\n got %s\nwant %s", i, g, w)
		}
		if layout == "unshredded" {
			// passed through as written, byte for byte
			meta, value := arr.Metadata().Value(r), arr.UntypedValues().Value(r)
			if !bytes.Equal(meta, want.Metadata().Bytes()) || !bytes.Equal(value, want.Bytes()) {
				t.Errorf("row %d: unshredded bytes changed", i)
			}
		}
	}
}

// The other column reads alone; the variant alone.
func TestScanVariantTableProjections(t *testing.T) {
	ids, got, _ := scanVariantTable(t, "object", Options{Columns: []string{"id"}})
	if len(ids) == 0 || len(got) != 0 {
		t.Fatalf("id only: %d ids, %d variants", len(ids), len(got))
	}
	ids, got, _ = scanVariantTable(t, "object", Options{Columns: []string{"v"}})
	if len(ids) != 0 || len(got) == 0 {
		t.Fatalf("v only: %d ids, %d variants", len(ids), len(got))
	}
}

func TestVariantArrowType(t *testing.T) {
	dt, err := arrowschema.ArrowType(varianttest.Schema().Fields[1].Type)
	if err != nil {
		t.Fatal(err)
	}
	if dt.ID() != arrow.EXTENSION || dt.(arrow.ExtensionType).ExtensionName() != "arrow.parquet.variant" {
		t.Fatalf("variant reads as %s", dt)
	}
}

// Arrays shredded by hand as the spec lays them out (typed elements,
// elements kept in value, a row that is no array) reassemble whole.
func TestScanShreddedArrays(t *testing.T) {
	ctx := context.Background()
	rec, texts, err := varianttest.ShreddedArrays()
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	tbl, err := varianttest.TableOf(ctx, filepath.Join(t.TempDir(), "t"), map[string]arrow.RecordBatch{"arrays": rec})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(ctx, tbl, Options{BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err := s.Reader(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	row := 0
	for rr.Next() {
		va := rr.RecordBatch().Column(1).(*extensions.VariantArray)
		for i := range va.Len() {
			want := texts[row]
			switch {
			case want == "":
				if !va.Storage().IsNull(i) {
					t.Errorf("row %d: want a null row", row)
				}
			default:
				v, err := va.Value(i)
				if err != nil {
					t.Fatalf("row %d: %v", row, err)
				}
				w, err := variant.ParseJSON(want, false)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := varianttest.Describe(v), varianttest.Describe(w); g != w {
					t.Errorf("row %d:\n got %s\nwant %s", row, g, w)
				}
			}
			row++
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	if row != len(texts) {
		t.Fatalf("%d rows, want %d", row, len(texts))
	}
}

// A filter on the other column reads the variants of the kept rows only
// (late materialisation), shredded or not.
func TestScanVariantWithFilterOnOtherColumn(t *testing.T) {
	values, err := varianttest.Values()
	if err != nil {
		t.Fatal(err)
	}
	for _, layout := range []string{"unshredded", "object"} {
		ids, got, rows := scanVariantTable(t, layout, Options{Filter: textFilter("id >= 20 or id = 1")})
		if len(ids) != len(values)-19 {
			t.Fatalf("%s: %d rows kept, want %d", layout, len(ids), len(values)-19)
		}
		for k, id := range ids {
			v, err := got[k].Value(rows[k])
			if err != nil {
				t.Fatal(err)
			}
			if g, w := varianttest.Describe(v), varianttest.Describe(*values[id]); g != w {
				t.Errorf("%s id %d:\n got %s\nwant %s", layout, id, g, w)
			}
		}
	}
	tbl, err := varianttest.Table(context.Background(), filepath.Join(t.TempDir(), "t"), values, "object")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(context.Background(), tbl, Options{Filter: textFilter("v is null")}); err == nil || !strings.Contains(err.Error(), "variant") {
		t.Errorf("a filter on the variant: %v, want a refusal", err)
	}
}

// Shredded decimals and uuids reassemble as the variant types the writer
// shredded: decimal4 from an INT32 column, uuid from a UUID column.
func TestShreddedTypedValuesKeepTheirVariantTypes(t *testing.T) {
	values, err := varianttest.Values()
	if err != nil {
		t.Fatal(err)
	}
	last := len(values) - 1 // {"a": 7, "d": decimal4, "t": ..., "u": uuid}
	_, got, rows := scanVariantTable(t, "object", Options{})
	v, err := got[last].Value(rows[last])
	if err != nil {
		t.Fatal(err)
	}
	obj, ok := v.Value().(variant.ObjectValue)
	if !ok {
		t.Fatalf("row %d is %s", last, varianttest.Describe(v))
	}
	for key, want := range map[string]variant.Type{"d": variant.Decimal4, "u": variant.UUID, "t": variant.TimestampMicros} {
		f, err := obj.ValueByKey(key)
		if err != nil {
			t.Fatal(err)
		}
		if f.Value.Type() != want {
			t.Errorf("field %s reassembled as variant type %d, want %d", key, f.Value.Type(), want)
		}
	}
}
