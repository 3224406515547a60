package interop

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/writer"
)

// Bloom filters floe's writer writes (table properties
// write.parquet.bloom-filter-*), used by DuckDB: parquet_metadata shows
// them on the chosen columns only, and parquet_bloom_probe excludes the
// row groups of a value never written (ids and names are even numbers in
// random order, so every group's bounds span the whole range and only the
// filter can tell) and keeps the group that holds a written one.
func TestWriterBloomFiltersUsedByDuckDB(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "name", Type: iceberg.StringType{}},
		{ID: 3, Name: "other", Type: iceberg.LongType{}},
	})
	opts, err := writer.OptionsFromProperties(map[string]string{
		writer.PropBloomColumnPrefix + "id": "true", writer.PropBloomColumnPrefix + "name": "true",
		writer.PropRowGroupSize: "65536",
	}, schema)
	if err != nil {
		t.Fatal(err)
	}
	const n = 40_000
	perm := rand.New(rand.NewPCG(5, 5)).Perm(n)
	dir := t.TempDir()
	w, err := writer.New(context.Background(), fileio.Local{}, filepath.ToSlash(dir), schema, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	as := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "other", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	for start := 0; start < n; start += 5000 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, as)
		for _, k := range perm[start : start+5000] {
			b.Field(0).(*array.Int64Builder).Append(int64(2 * k))
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("name-%08d", 2*k))
			b.Field(2).(*array.Int64Builder).Append(int64(k))
		}
		rec := b.NewRecordBatch()
		b.Release()
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	files, err := w.Close()
	if err != nil || len(files) != 1 {
		t.Fatalf("%d files, %v", len(files), err)
	}
	path := strings.TrimPrefix(files[0].FilePath, "file://")

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var groups int
	if err := db.QueryRow(`SELECT count(*) FROM parquet_metadata(?) WHERE path_in_schema = 'id'`, path).Scan(&groups); err != nil || groups < 4 {
		t.Fatalf("%d row groups, %v; want several", groups, err)
	}
	rows, err := db.Query(`SELECT path_in_schema, bool_and(coalesce(bloom_filter_offset > 0 AND bloom_filter_length > 0, false)), bool_or(coalesce(bloom_filter_offset > 0, false))
		FROM parquet_metadata(?) GROUP BY ALL ORDER BY 1`, path)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var col string
		var all, any bool
		if err := rows.Scan(&col, &all, &any); err != nil {
			t.Fatal(err)
		}
		if want := col != "other"; all != want || any != want {
			t.Errorf("column %s: bloom filters in all row groups %v, in any %v; want %v", col, all, any, want)
		}
	}
	rows.Close()

	// excluded counts the row groups DuckDB's probe rules value out of.
	excluded := func(col string, value any) int {
		var k int
		err := db.QueryRow(`SELECT count(*) FILTER (WHERE bloom_filter_excludes) FROM parquet_bloom_probe(?, ?, ?)`, path, col, value).Scan(&k)
		if err != nil {
			t.Fatalf("probe %s = %v: %v", col, value, err)
		}
		return k
	}
	absent, total := 0, 0
	for k := range 50 {
		absent += excluded("id", int64(2*k*797+1)) + excluded("name", fmt.Sprintf("name-%08d", 2*k*797+1))
		total += 2 * groups
	}
	if absent < total*97/100 {
		t.Errorf("DuckDB excluded %d of %d row groups for values never written", absent, total)
	}
	for _, k := range []int{0, 1234, 39_999} {
		// All but its own, give or take a false positive.
		if got := excluded("id", int64(2*k)); got > groups-1 || got < groups-2 {
			t.Errorf("id %d: %d of %d row groups excluded, want all but its own", 2*k, got, groups)
		}
		if got := excluded("name", fmt.Sprintf("name-%08d", 2*k)); got > groups-1 || got < groups-2 {
			t.Errorf("name %d: %d of %d row groups excluded, want all but its own", 2*k, got, groups)
		}
	}
	// DuckDB's own scan agrees on the rows.
	var c int
	if err := db.QueryRow(`SELECT count(*) FROM read_parquet(?) WHERE id = 2468 OR name = 'name-00002469'`, path).Scan(&c); err != nil || c != 1 {
		t.Errorf("DuckDB count %d, %v; want 1", c, err)
	}
}
