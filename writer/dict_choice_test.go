package writer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/rowstest"
)

// writeChoosing writes rows in batches of batchRows; with everyDictionary
// the writer skips its choice and dictionary-encodes every column that
// may be (the path before dict_choice.go), the plain path the choice is
// compared with.
func writeChoosing(t *testing.T, dir string, schema *iceberg.Schema, opts Options, rows [][]any, batchRows int, everyDictionary bool) manifest.DataFile {
	t.Helper()
	w, err := New(context.Background(), fileio.Local{}, filepath.Join(dir, "data"), schema, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if everyDictionary {
		w.dictDecided = true
	}
	files := rowstest.WriteRecords(t, w, schema, rows, batchRows)
	if len(files) != 1 {
		t.Fatalf("%d files", len(files))
	}
	return files[0]
}

// dictionaryColumns is, per leaf column path, whether its first row
// group's chunk has a dictionary page (as pqarrow's metadata says).
func dictionaryColumns(t *testing.T, path string) map[string]bool {
	t.Helper()
	pr, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	rg := pr.MetaData().RowGroup(0)
	out := map[string]bool{}
	for i := range rg.NumColumns() {
		cc, err := rg.ColumnChunk(i)
		if err != nil {
			t.Fatal(err)
		}
		out[cc.PathInSchema().String()] = cc.HasDictionaryPage()
	}
	return out
}

// dec is v at scale as a canonical decimal.
func dec(v int64, scale int) iceberg.Decimal {
	return iceberg.Decimal{Hi: v >> 63, Lo: uint64(v), Scale: scale}
}

func TestDictionaryChosenByCardinality(t *testing.T) {
	b := &schemaBuilder{}
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		b.field("id", iceberg.LongType{}, true),                              // distinct
		b.field("grp", iceberg.IntType{}, false),                             // 7 values
		b.field("name", iceberg.StringType{}, false),                         // 20 values, nulls
		b.field("comment", iceberg.StringType{}, false),                      // distinct
		b.field("price", iceberg.DecimalType{Precision: 15, Scale: 2}, true), // distinct
		b.field("day", iceberg.DateType{}, false),                            // a few
		b.field("rare", iceberg.StringType{}, false),                         // distinct but almost always null
		b.field("tags", b.list(iceberg.StringType{}, false), false),          // nested: not judged
		b.field("key", iceberg.DecimalType{Precision: 30, Scale: 0}, false),  // distinct, wide
		b.field("half", iceberg.LongType{}, false),                           // one value in two distinct
		b.field("tenth", iceberg.LongType{}, true),                           // just under one in ten distinct
	})
	r := rand.New(rand.NewPCG(5, 6))
	const n = 20_000
	rows := make([][]any, n)
	for i := range rows {
		var name, rare any
		if i%3 != 0 {
			name = fmt.Sprintf("name-%d", i%20)
		}
		if i%500 == 0 {
			rare = fmt.Sprintf("rare-%d", i)
		}
		rows[i] = []any{
			int64(i), int32(i % 7), name, fmt.Sprintf("comment %d %d", i, r.Int64()),
			dec(int64(i)*37+1, 2), int32(19000 + i%5), rare,
			[]any{"t" + fmt.Sprint(r.IntN(1000000))}, dec(r.Int64(), 0),
			int64(i / 2), int64(i / 11),
		}
	}
	df := writeChoosing(t, t.TempDir(), schema, DefaultOptions(), rows, 6000, false)
	got := dictionaryColumns(t, df.FilePath)
	want := map[string]bool{
		"id": false, "grp": true, "name": true, "comment": false, "price": false, "day": true,
		"rare": true, "tags.list.element": true, "key": false, "half": false, "tenth": true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("dictionary pages %v, want %v", got, want)
	}
	compareRows(t, "floe reader", schema, rows, readFloe(t, df.FilePath, schema))
	compareRows(t, "pqarrow", schema, rows, readPqarrow(t, df.FilePath, schema))
}

// TestDictionaryChoiceSameContent: files written with the choice and with
// a dictionary everywhere hold the same rows (floe's reader, pqarrow) and
// get the same metrics, on random rows of every type whose columns are
// made low-cardinality at random.
func TestDictionaryChoiceSameContent(t *testing.T) {
	schema := allTypesSchema()
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 99))
			rows := genRows(r, schema, 5000)
			for j := range schema.Fields {
				if r.IntN(2) == 0 {
					// A column of a few values.
					pool := 1 + r.IntN(50)
					for i := range rows {
						rows[i][j] = rows[i%pool][j]
					}
				}
			}
			opts := DefaultOptions()
			opts.RowGroupSize = 256 << 10
			chosen := writeChoosing(t, t.TempDir(), schema, opts, rows, 1700, false)
			every := writeChoosing(t, t.TempDir(), schema, opts, rows, 1700, true)
			dc, de := dictionaryColumns(t, chosen.FilePath), dictionaryColumns(t, every.FilePath)
			plain := 0
			for path, d := range de {
				if d && !dc[path] {
					plain++
				}
				if dc[path] && !d {
					t.Errorf("%s: a dictionary only with the choice", path)
				}
			}
			if plain == 0 {
				t.Errorf("no column written PLAIN by the choice: %v", dc)
			}
			for _, df := range []manifest.DataFile{chosen, every} {
				compareRows(t, "floe reader", schema, rows, readFloe(t, df.FilePath, schema))
				compareRows(t, "pqarrow", schema, rows, readPqarrow(t, df.FilePath, schema))
			}
			if !reflect.DeepEqual(chosen.Metrics.Maps().ValueCounts, every.Metrics.Maps().ValueCounts) || !reflect.DeepEqual(chosen.Metrics.Maps().NullValueCounts, every.Metrics.Maps().NullValueCounts) ||
				!reflect.DeepEqual(chosen.Metrics.Maps().NaNValueCounts, every.Metrics.Maps().NaNValueCounts) ||
				!reflect.DeepEqual(chosen.Metrics.Maps().LowerBounds, every.Metrics.Maps().LowerBounds) || !reflect.DeepEqual(chosen.Metrics.Maps().UpperBounds, every.Metrics.Maps().UpperBounds) {
				t.Errorf("metrics differ:\nchosen %+v\nevery  %+v", chosen, every)
			}
		})
	}
}
