package prune

import (
	"bytes"
	"errors"
	"io"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/floedb/floe/internal/parquettest"

	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/reader/parquet"

	"github.com/floedb/floe/iceberg"
	pq "github.com/parquet-go/parquet-go"
)

// The pruning property on the fixture files (parquet-mr 1.10-1.16, through
// Spark, Hive and Impala): their statistics carry both min_value and the
// deprecated min, their column and offset indexes are parquet-mr's, and
// their dictionaries are listed in encoding stats. Row values come from
// parquet-go, not from our decoder.

// fixtureIcebergType is the Iceberg type a top-level column of the file
// reads as, or nil for the columns the test leaves out (INT96 has no usable
// statistics; unsigned 64-bit values have no Iceberg type).
func fixtureIcebergType(n *parquet.Node) iceberg.Type {
	l := n.Logical
	switch n.Physical {
	case parquet.Boolean:
		return iceberg.BooleanType{}
	case parquet.Int32:
		switch l.Kind {
		case parquet.LogicalDate:
			return iceberg.DateType{}
		case parquet.LogicalDecimal:
			return iceberg.DecimalType{Precision: int(l.Precision), Scale: int(l.Scale)}
		case parquet.LogicalTime:
			return iceberg.TimeType{}
		case parquet.LogicalInteger:
			if !l.Signed && l.BitWidth == 32 {
				return iceberg.LongType{}
			}
		}
		return iceberg.IntType{}
	case parquet.Int64:
		switch l.Kind {
		case parquet.LogicalTimestamp:
			switch {
			case l.Unit == parquet.Nanos && l.AdjustedToUTC:
				return iceberg.TimestamptzNsType{}
			case l.Unit == parquet.Nanos:
				return iceberg.TimestampNsType{}
			case l.AdjustedToUTC:
				return iceberg.TimestamptzType{}
			}
			return iceberg.TimestampType{}
		case parquet.LogicalDecimal:
			return iceberg.DecimalType{Precision: int(l.Precision), Scale: int(l.Scale)}
		case parquet.LogicalTime:
			return iceberg.TimeType{}
		case parquet.LogicalInteger:
			if !l.Signed {
				return nil
			}
		}
		return iceberg.LongType{}
	case parquet.Float:
		return iceberg.FloatType{}
	case parquet.Double:
		return iceberg.DoubleType{}
	case parquet.ByteArray:
		switch l.Kind {
		case parquet.LogicalString, parquet.LogicalEnum, parquet.LogicalJSON:
			return iceberg.StringType{}
		case parquet.LogicalDecimal:
			return iceberg.DecimalType{Precision: int(l.Precision), Scale: int(l.Scale)}
		}
		return iceberg.BinaryType{}
	case parquet.FixedLenByteArray:
		switch l.Kind {
		case parquet.LogicalUUID:
			return iceberg.UUIDType{}
		case parquet.LogicalDecimal:
			return iceberg.DecimalType{Precision: int(l.Precision), Scale: int(l.Scale)}
		}
		return iceberg.FixedType{Length: n.TypeLength}
	}
	return nil
}

// fixtureValue converts a parquet-go value to the canonical form of t.
func fixtureValue(t testing.TB, n *parquet.Node, typ iceberg.Type, v pq.Value) any {
	if v.IsNull() {
		return nil
	}
	unit := func(x int64) int64 {
		switch n.Logical.Unit {
		case parquet.Millis:
			return x * 1000
		case parquet.Nanos:
			if _, ns := typ.(iceberg.TimestampNsType); ns {
				return x
			}
			if _, ns := typ.(iceberg.TimestamptzNsType); ns {
				return x
			}
			return floorDivTest(x, 1000)
		}
		return x
	}
	switch typ := typ.(type) {
	case iceberg.BooleanType:
		return v.Boolean()
	case iceberg.IntType, iceberg.DateType:
		return v.Int32()
	case iceberg.LongType:
		if n.Physical == parquet.Int32 {
			return int64(uint32(v.Int32()))
		}
		return v.Int64()
	case iceberg.TimeType:
		if n.Physical == parquet.Int32 {
			return int64(v.Int32()) * 1000
		}
		return unit(v.Int64())
	case iceberg.TimestampType, iceberg.TimestamptzType, iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		return unit(v.Int64())
	case iceberg.FloatType:
		return v.Float()
	case iceberg.DoubleType:
		return v.Double()
	case iceberg.DecimalType:
		var u *big.Int
		switch n.Physical {
		case parquet.Int32:
			u = big.NewInt(int64(v.Int32()))
		case parquet.Int64:
			u = big.NewInt(v.Int64())
		default:
			b := v.ByteArray()
			u = new(big.Int).SetBytes(b)
			if len(b) > 0 && b[0]&0x80 != 0 {
				u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
			}
		}
		d, err := iceberg.DecimalFromBigInt(u, typ.Scale)
		if err != nil {
			t.Fatal(err)
		}
		return d
	case iceberg.StringType:
		return string(v.ByteArray())
	case iceberg.UUIDType:
		return [16]byte(v.ByteArray())
	case iceberg.BinaryType, iceberg.FixedType:
		return slices.Clone(v.ByteArray())
	}
	t.Fatalf("no conversion to %s", typ)
	return nil
}

// fixtureTable reads the top-level primitive columns of a fixture file with
// parquet-go.
func fixtureTable(t *testing.T, path string) *pruneTable {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := parquettest.OpenBytes(t, data)
	pf, err := pq.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	tbl := &pruneTable{data: data, file: f}
	var fields []iceberg.NestedField
	for _, n := range f.Root.Children {
		typ := fixtureIcebergType(n)
		if !n.IsLeaf() || n.RepLevel > 0 || typ == nil || n.Physical == parquet.Int96 {
			continue
		}
		tbl.cols = append(tbl.cols, pruneCol{name: n.Name, typ: typ})
		fields = append(fields, iceberg.NestedField{ID: len(fields) + 1, Name: n.Name, Type: typ})
		var values []any
		for _, rg := range pf.RowGroups() {
			pages := rg.ColumnChunks()[n.Leaf].Pages()
			for {
				p, err := pages.ReadPage()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("%s column %s: %v", path, n.Name, err)
				}
				vals := make([]pq.Value, p.NumValues())
				if k, err := p.Values().ReadValues(vals); k != len(vals) && !errors.Is(err, io.EOF) {
					t.Fatalf("%s column %s: read %d of %d values: %v", path, n.Name, k, len(vals), err)
				}
				for _, v := range vals {
					values = append(values, fixtureValue(t, n, typ, v))
				}
			}
			pages.Close()
		}
		if int64(len(values)) != f.NumRows {
			t.Fatalf("%s column %s: %d values for %d rows", path, n.Name, len(values), f.NumRows)
		}
		tbl.rows = append(tbl.rows, values)
	}
	tbl.schema = iceberg.NewSchema(0, fields)
	start := int64(0)
	for _, rg := range f.RowGroups {
		tbl.rowGroupStart = append(tbl.rowGroupStart, start)
		start += rg.NumRows
	}
	return tbl
}

func TestPruneFixtures(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	tally := &pruneTally{reasons: map[string]int{}}
	files, columns := 0, 0
	for _, path := range fixtureParquetFiles(t) {
		tbl := fixtureTable(t, path)
		if len(tbl.cols) == 0 || tbl.file.NumRows == 0 {
			continue
		}
		files++
		columns += len(tbl.cols)
		name, _ := filepath.Rel(fixtures.Path(), path)
		t.Run(name, func(t *testing.T) {
			for range 150 {
				filter := tbl.randomFilter(r, 2)
				for _, opts := range pruneOptionSets {
					tbl.checkPruneProperty(t, filter, opts, tally)
				}
			}
		})
	}
	t.Logf("%d files, %d columns: reasons %v; rows kept %d of %d", files, columns, tally.reasons, tally.rowsKept, tally.rowsTotal)
	if files < 20 {
		t.Errorf("only %d fixture files with primitive columns", files)
	}
	for _, reason := range []string{ReasonStatistics, ReasonDictionary, ReasonPageIndex} {
		if tally.reasons[reason] == 0 {
			t.Errorf("no fixture row group was pruned by %s", reason)
		}
	}
}
