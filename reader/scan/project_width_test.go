package scan

import (
	"bytes"
	"testing"

	"github.com/floedb/floe/internal/parquettest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/reader/parquet"
	pq "github.com/parquet-go/parquet-go"
)

// TestFileWidthOfUnsigned32AsLong reads a Parquet UINT_32 column (what
// parquet-mr writes for a Hive uint) the way a scan reads it as an Iceberg
// long: values from 2^31 up must come back positive, not sign-extended.
func TestFileWidthOfUnsigned32AsLong(t *testing.T) {
	type row struct {
		U uint32 `parquet:"u"`
		S int32  `parquet:"s"`
	}
	rows := []row{{0, 0}, {1, -1}, {1<<31 - 1, 1<<31 - 1}, {1 << 31, -1 << 31}, {1<<32 - 1, -2}}
	var buf bytes.Buffer
	if err := pq.Write(&buf, rows); err != nil {
		t.Fatal(err)
	}
	f := parquettest.OpenBytes(t, buf.Bytes())
	for _, tc := range []struct {
		col  string
		want []int64
	}{
		{"u", []int64{0, 1, 1<<31 - 1, 1 << 31, 1<<32 - 1}},
		{"s", []int64{0, -1, 1<<31 - 1, -1 << 31, -2}},
	} {
		n := f.Lookup(tc.col)
		if n == nil {
			t.Fatalf("no column %s", tc.col)
		}
		typ := fileWidth(n, arrow.PrimitiveTypes.Int64)
		br, err := f.NewBatchReader(parquet.ReadRequest{Columns: []parquet.Column{{Node: n, Type: typ}}, Allocator: memory.DefaultAllocator})
		if err != nil {
			t.Fatal(err)
		}
		b, err := br.Next()
		if err != nil {
			t.Fatal(err)
		}
		plan := &columnPlan{field: iceberg.NestedField{ID: 1, Name: tc.col, Type: iceberg.LongType{}}, target: arrow.PrimitiveTypes.Int64}
		widened, err := plan.build(b.Columns[0], memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		got := widened.(*array.Int64).Int64Values()
		for i, w := range tc.want {
			if got[i] != w {
				t.Errorf("column %s (decoded as %s) row %d = %d, want %d", tc.col, typ, i, got[i], w)
			}
		}
		widened.Release()
		b.Release()
		br.Close()
	}
}
