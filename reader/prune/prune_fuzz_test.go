package prune

import (
	"bytes"
	"os"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/expr/bounds"
	"github.com/floedb/floe/reader/parquet"
	pq "github.com/parquet-go/parquet-go"
)

// Fuzz targets for the structures pruning parses: column indexes, bloom
// filter headers, and whole files pruned with every mechanism.

// pruneSeedFiles are small files with page indexes, dictionaries and bloom
// filters: the fixtures and generated tables.
func pruneSeedFiles(f *testing.F) [][]byte {
	var out [][]byte
	for _, path := range fixtureParquetFiles(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) <= 8<<10 {
			out = append(out, data)
		}
	}
	cols := pruneCols()
	blooms := []string{"wide_as_long", "text", "dec_flba", "uuid", "dbl"}
	for i := 0; i < len(cols); i += 5 {
		tbl := writePruneTable(f, cols[i:min(i+5, len(cols))], 200, uint64(i), blooms, pq.PageBufferSize(128))
		out = append(out, tbl.data)
	}
	return out
}

// structureSeeds collects the raw bytes of each chunk's column index and
// bloom filter in the seed files.
func structureSeeds(f *testing.F) (columnIndexes, blooms [][]byte) {
	for _, data := range pruneSeedFiles(f) {
		file, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			f.Fatal(err)
		}
		for _, rg := range file.RowGroups {
			for _, c := range rg.Columns {
				if c.ColumnIndexLength > 0 {
					columnIndexes = append(columnIndexes, data[c.ColumnIndexOffset:c.ColumnIndexOffset+int64(c.ColumnIndexLength)])
				}
				if c.BloomFilterLength > 0 {
					end := c.BloomFilterOffset + int64(min(c.BloomFilterLength, 4096))
					blooms = append(blooms, data[c.BloomFilterOffset:end])
				}
			}
		}
	}
	if len(columnIndexes) == 0 || len(blooms) == 0 {
		f.Fatalf("seeds hold %d column indexes and %d bloom filters", len(columnIndexes), len(blooms))
	}
	return columnIndexes, blooms
}

// fuzzPageColumns are the column shapes a fuzzed column index is read as.
var fuzzPageColumns = []struct {
	node *parquet.Node
	typ  iceberg.Type
	lit  any
}{
	{&parquet.Node{Physical: parquet.Int64, DefLevel: 1}, iceberg.LongType{}, int64(7)},
	{&parquet.Node{Physical: parquet.Int32, DefLevel: 1}, iceberg.LongType{}, int64(-7)},
	{&parquet.Node{Physical: parquet.Double, DefLevel: 1}, iceberg.DoubleType{}, 0.5},
	{&parquet.Node{Physical: parquet.ByteArray, Logical: parquet.LogicalType{Kind: parquet.LogicalString}, DefLevel: 1}, iceberg.StringType{}, "m"},
	{&parquet.Node{Physical: parquet.FixedLenByteArray, TypeLength: 9, Logical: parquet.LogicalType{Kind: parquet.LogicalDecimal, Precision: 20, Scale: 3}}, iceberg.DecimalType{Precision: 20, Scale: 3}, iceberg.DecimalFromInt64(5, 3)},
}

func FuzzColumnIndex(f *testing.F) {
	seeds, _ := structureSeeds(f)
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ci, err := parquet.ParseColumnIndex(data)
		if err != nil {
			return
		}
		if len(ci.MinValues) != len(ci.NullPages) || len(ci.MaxValues) != len(ci.NullPages) || ci.NullCounts != nil && len(ci.NullCounts) != len(ci.NullPages) {
			t.Fatalf("inconsistent column index accepted: %+v", ci)
		}
		locs := make([]parquet.PageLocation, len(ci.NullPages))
		for i := range locs {
			locs[i].FirstRowIndex = int64(i) * 10
		}
		pp := &pruneColumnPages{ci: ci, locs: locs}
		rows := int64(len(locs)) * 10
		for _, fc := range fuzzPageColumns {
			col := &pruneColumn{fileColumn: &fileColumn{node: fc.node}}
			col.dec, col.usable = newValueDecoder(fc.node, fc.typ)
			field := iceberg.NestedField{ID: 1, Name: "c", Type: fc.typ}
			for _, op := range []expr.Op{expr.OpEq, expr.OpNotEq, expr.OpLt, expr.OpGtEq, expr.OpIsNull, expr.OpIsNaN, expr.OpStartsWith, expr.OpNotStartsWith} {
				bp := &expr.BoundPredicate{Op: op, FieldID: 1, Name: "c", Field: field}
				if !op.IsUnary() {
					bp.Values = []any{fc.lit}
				}
				leaf := bounds.NewLeaf(bp)
				for i := range locs {
					s := col.pageSummary(pp, i, pp.pageRows(i, rows).End-pp.pageRows(i, rows).Start)
					leaf.MightMatch(&s)
				}
			}
		}
	})
}

func FuzzBloomFilterHeader(f *testing.F) {
	_, seeds := structureSeeds(f)
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, n, err := parquet.ParseBloomFilterHeader(data)
		if err != nil {
			return
		}
		if n <= 0 || n > len(data) {
			t.Fatalf("header length %d of %d bytes", n, len(data))
		}
		if !h.Usable() || int64(n)+int64(h.NumBytes) > int64(len(data)) {
			return
		}
		b := &parquet.SplitBlockBloom{Blocks: data[n : n+int(h.NumBytes)]}
		for _, hash := range []uint64{0, 1, 1 << 63, ^uint64(0), 0x9e3779b97f4a7c15} {
			b.MayContain(hash)
		}
	})
}

// fuzzLiteral is a literal of each type, to prune fuzzed files with.
func fuzzLiteral(t iceberg.Type) any {
	switch t := t.(type) {
	case iceberg.BooleanType:
		return true
	case iceberg.IntType, iceberg.DateType:
		return int32(3)
	case iceberg.LongType, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		return int64(3000)
	case iceberg.FloatType:
		return float32(0)
	case iceberg.DoubleType:
		return 0.0
	case iceberg.DecimalType:
		return iceberg.DecimalFromInt64(3, t.Scale)
	case iceberg.StringType:
		return "k"
	case iceberg.UUIDType:
		return [16]byte{1}
	case iceberg.FixedType:
		return make([]byte, t.Length)
	case iceberg.BinaryType:
		return []byte{0}
	}
	return nil
}

func FuzzPruneRowGroup(f *testing.F) {
	for _, s := range pruneSeedFiles(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			return
		}
		columns := map[int]*parquet.Node{}
		var filter expr.Expr = expr.AlwaysFalse{}
		for i, n := range file.Root.Children {
			typ := fixtureIcebergType(n)
			lit := fuzzLiteral(typ)
			if typ == nil || lit == nil {
				continue
			}
			columns[i] = n
			field := iceberg.NestedField{ID: i, Name: n.Name, Type: typ}
			op := []expr.Op{expr.OpEq, expr.OpIn, expr.OpLt, expr.OpNotEq, expr.OpIsNull}[i%5]
			var p expr.Expr = &expr.BoundPredicate{Op: op, FieldID: i, Name: n.Name, Field: field, Values: []any{lit}}
			if op == expr.OpIsNull {
				p.(*expr.BoundPredicate).Values = nil
			}
			if i%3 == 2 {
				p = &expr.Not{Child: p}
			}
			filter = &expr.Or{Left: filter, Right: p}
		}
		for g := range file.RowGroups {
			res, err := RowGroup(file, g, filter, columns, allPruning)
			failOnRecoveredPanic(t, err)
			if err == nil {
				checkRangesWellFormed(t, res.Ranges, file.RowGroups[g].NumRows)
			}
		}
	})
}
