package writer

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/parquet"
)

// The page index and chunk statistics agree with the pages: over a table
// with fields at the top level and inside structs (optional and
// required, under optional and required structs), doubles and floats
// holding NaN among them, small row groups and pages, each page's
// column-index [min, max] holds every value decoded from the page's rows
// and its null count is the nulls among them, and each chunk's statistics
// hold every value of the row group. Every leaf of every row group of
// every file is checked; the values come from floe's reader, the bounds
// from the footer and page index as written.
func TestPageBoundsMatchPages(t *testing.T) {
	ctx := context.Background()
	b := &schemaBuilder{}
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		b.field("id", iceberg.LongType{}, true),
		b.field("st", &iceberg.StructType{Fields: []iceberg.NestedField{
			b.field("a", iceberg.IntType{}, false),
			b.field("k", iceberg.StringType{}, false),
			b.field("ts", iceberg.TimestampType{}, false),
			b.field("f", iceberg.FloatType{}, false),
		}}, false),
		b.field("rs", &iceberg.StructType{Fields: []iceberg.NestedField{
			b.field("x", iceberg.LongType{}, true),
			b.field("y", iceberg.DoubleType{}, false),
		}}, true),
		b.field("v", iceberg.IntType{}, false),
		b.field("d", iceberg.DoubleType{}, false),
		b.field("s", iceberg.StringType{}, false),
	})
	tsID := schema.Fields[1].Type.(*iceberg.StructType).Fields[2].ID
	spec := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: tsID, FieldID: 1000, Name: "ts_hour", Transform: iceberg.HourTransform{}}}}
	r := rand.New(rand.NewPCG(7, 11))
	// a quarter-step value, NaN or null, one in twenty each
	float := func() any {
		switch r.IntN(20) {
		case 0:
			return math.NaN()
		case 1:
			return nil
		}
		return float64(r.IntN(200)) / 4
	}
	// strings longer than parquet-go's 16-byte column-index bounds, so
	// that truncated bounds are checked too
	text := func() any {
		if r.IntN(20) == 0 {
			return nil
		}
		b := make([]rune, r.IntN(40))
		for i := range b {
			b[i] = []rune("abyzÿ")[r.IntN(5)]
		}
		return string(b)
	}
	rows := structFilterRows(r, 2400)
	for i, row := range rows {
		if st, ok := row[1].([]any); ok {
			f := float()
			if f != nil {
				f = float32(f.(float64))
			}
			row[1] = append(st, f)
		}
		rows[i] = append(row, float(), text())
	}
	for _, c := range []struct {
		name string
		spec *iceberg.PartitionSpec
	}{{"partitioned", spec}, {"unpartitioned", nil}} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "tbl")
			tbl, err := table.Create(ctx, nil, dir, schema, c.spec, nil,
				map[string]string{PropRowGroupSize: "4096", PropPageRowLimit: "40"}, 2)
			if err != nil {
				t.Fatal(err)
			}
			appendInBatches(t, tbl, rows, 600, 150)
			var files []string
			err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err == nil && strings.HasSuffix(path, ".parquet") {
					files = append(files, path)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(files) == 0 {
				t.Fatal("no data files")
			}
			var rowGroups, pages int
			for _, path := range files {
				g, p := checkPageBounds(t, path)
				rowGroups += g
				pages += p
			}
			// The bounds are checked on many pages, not on one per chunk.
			if pages < 2*rowGroups*len(structLeaves(schema)) {
				t.Errorf("%d pages in %d row groups: too few to test the page index", pages, rowGroups)
			}
		})
	}
}

// checkPageBounds checks every leaf chunk of the file and returns how many
// row groups and pages it saw.
func checkPageBounds(t *testing.T, path string) (rowGroups, pages int) {
	t.Helper()
	pf, closeFile := openParquet(t, path)
	defer closeFile()
	for rg := range pf.RowGroups {
		for li, leaf := range pf.Leaves {
			if leaf.RepLevel > 0 {
				continue // one value per row is what this check assumes
			}
			chunk := &pf.RowGroups[rg].Columns[li]
			name := strings.Join(leaf.Path, ".")
			vals := leafValues(t, pf, leaf, rg)
			if int64(len(vals)) != pf.RowGroups[rg].NumRows {
				t.Fatalf("%s rg %d %s: %d values for %d rows", path, rg, name, len(vals), pf.RowGroups[rg].NumRows)
			}
			locs, err := pf.OffsetIndex(chunk)
			if err != nil {
				t.Fatal(err)
			}
			ci, err := pf.ColumnIndex(chunk)
			if err != nil {
				t.Fatal(err)
			}
			if locs == nil || ci == nil {
				t.Fatalf("%s rg %d %s: no page index", path, rg, name)
			}
			if len(ci.MinValues) != len(locs) || len(ci.MaxValues) != len(locs) || len(ci.NullPages) != len(locs) || len(ci.NullCounts) != len(locs) {
				t.Fatalf("%s rg %d %s: column index of %d/%d/%d/%d entries for %d pages", path, rg, name,
					len(ci.MinValues), len(ci.MaxValues), len(ci.NullPages), len(ci.NullCounts), len(locs))
			}
			for p, loc := range locs {
				end := int64(len(vals))
				if p+1 < len(locs) {
					end = locs[p+1].FirstRowIndex
				}
				what := func() string {
					return fmt.Sprintf("%s rg %d %s page %d rows [%d,%d)", filepath.Base(path), rg, name, p, loc.FirstRowIndex, end)
				}
				nulls := 0
				for _, v := range vals[loc.FirstRowIndex:end] {
					if v == nil {
						nulls++
					}
				}
				if int64(nulls) != ci.NullCounts[p] {
					t.Errorf("%s: null count %d, the rows hold %d nulls", what(), ci.NullCounts[p], nulls)
				}
				if ci.NullPages[p] != (nulls == int(end-loc.FirstRowIndex)) {
					t.Errorf("%s: null page %v with %d nulls in %d rows", what(), ci.NullPages[p], nulls, end-loc.FirstRowIndex)
				}
				if ci.NullPages[p] {
					continue
				}
				lo, hi := plainValue(t, leaf.Physical, ci.MinValues[p]), plainValue(t, leaf.Physical, ci.MaxValues[p])
				for r := loc.FirstRowIndex; r < end; r++ {
					if v := vals[r]; !inBounds(v, lo, hi) {
						t.Errorf("%s: row %d holds %v outside the page bounds [%v, %v]", what(), r, v, lo, hi)
					}
				}
			}
			pages += len(locs)
			st := chunk.Statistics
			if st == nil || !st.HasNullCount {
				t.Fatalf("%s rg %d %s: no chunk statistics", path, rg, name)
			}
			nulls := 0
			for _, v := range vals {
				if v == nil {
					nulls++
				}
			}
			if st.NullCount != int64(nulls) {
				t.Errorf("%s rg %d %s: chunk null count %d, the row group holds %d", path, rg, name, st.NullCount, nulls)
			}
			if nulls == len(vals) {
				continue
			}
			if !st.HasMin || !st.HasMax {
				t.Errorf("%s rg %d %s: no chunk min/max", path, rg, name)
				continue
			}
			lo, hi := plainValue(t, leaf.Physical, st.Min), plainValue(t, leaf.Physical, st.Max)
			for r, v := range vals {
				if !inBounds(v, lo, hi) {
					t.Errorf("%s rg %d %s: row %d holds %v outside the chunk bounds [%v, %v]", path, rg, name, r, v, lo, hi)
				}
			}
		}
		rowGroups++
	}
	return rowGroups, pages
}

// leafValues reads one leaf of a row group alone: one value per row, nil
// where it or a struct above it is null, in the forms plainValue gives.
func leafValues(t *testing.T, pf *parquet.File, leaf *parquet.Node, rg int) []any {
	t.Helper()
	br, err := pf.NewBatchReader(parquet.ReadRequest{Columns: []parquet.Column{{Node: leaf}}, RowGroup: rg})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	var out []any
	for {
		b, err := br.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		a := b.Columns[0]
		for i := 0; i < b.NumRows; i++ {
			out = append(out, arrowValue(t, a, i))
		}
		b.Release()
	}
}

func arrowValue(t *testing.T, a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Timestamp:
		return int64(a.Value(i))
	case *array.Date32:
		return int64(a.Value(i))
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return string(a.Value(i))
	}
	t.Fatalf("leaf read as %s: not handled", a.DataType())
	return nil
}

// plainValue decodes a PLAIN-encoded bound in the forms arrowValue gives.
func plainValue(t *testing.T, phys parquet.PhysicalType, b []byte) any {
	switch {
	case phys == parquet.Int32 && len(b) == 4:
		return int64(int32(binary.LittleEndian.Uint32(b)))
	case phys == parquet.Int64 && len(b) == 8:
		return int64(binary.LittleEndian.Uint64(b))
	case phys == parquet.Float && len(b) == 4:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case phys == parquet.Double && len(b) == 8:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	case phys == parquet.ByteArray:
		return string(b)
	}
	t.Fatalf("bound %x of physical type %d: not handled", b, phys)
	return nil
}

// inBounds: v is null or NaN (neither bounded by min/max), or lo <= v <= hi.
func inBounds(v, lo, hi any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case int64:
		return cmp.Compare(lo.(int64), v) <= 0 && cmp.Compare(v, hi.(int64)) <= 0
	case float64:
		return math.IsNaN(v) || (lo.(float64) <= v && v <= hi.(float64))
	case string:
		return lo.(string) <= v && v <= hi.(string)
	}
	return false
}
