package parquet

import (
	"bytes"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// BenchmarkOpenManyRowGroups opens a file of 100 row groups: the footer
// parse every query of such a file pays before its first row (DuckDB's
// 1 M rows in 10 k-row groups is 98 of them).
func BenchmarkOpenManyRowGroups(b *testing.B) {
	specs := []colSpec{
		optional("id", parquet.Int(64), genSeq64),
		optional("name", enc(parquet.String(), &parquet.RLEDictionary), genWord),
		optional("score", parquet.Leaf(parquet.DoubleType), genDouble),
	}
	data := writeSpecs(b, specs, 100*200, 9, parquet.MaxRowsPerRowGroup(200))
	r := bytes.NewReader(data)
	b.ReportAllocs()
	for b.Loop() {
		f, err := OpenFile(r, int64(len(data)), nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(f.RowGroups) != 100 {
			b.Fatalf("%d row groups", len(f.RowGroups))
		}
		f.Close()
	}
}
