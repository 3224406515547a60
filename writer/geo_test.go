package writer

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/parquet"
	"github.com/floedb/floe/reader/scan"
)

// v3TypesSchema has every v3-only type floe writes beside an int: two
// geometries' worth of geospatial columns, unknown, and nanosecond
// timestamps.
func v3TypesSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.IntType{}, Required: true},
		{ID: 2, Name: "shape", Type: iceberg.GeometryType{}},
		{ID: 3, Name: "place", Type: iceberg.GeographyType{CRS: "EPSG:4326", Algorithm: iceberg.EdgeKarney}},
		{ID: 4, Name: "route", Type: iceberg.GeographyType{}},
		{ID: 5, Name: "nothing", Type: iceberg.UnknownType{}},
		{ID: 6, Name: "ts", Type: iceberg.TimestampNsType{}},
		{ID: 7, Name: "tstz", Type: iceberg.TimestamptzNsType{}},
		{ID: 8, Name: "shape3d", Type: iceberg.GeometryType{CRS: "srid:4979"}},
	})
}

func wkbOf(t testing.TB, text string) []byte {
	t.Helper()
	b, err := iceberg.WKTToWKB(text)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func v3TypesRows(t testing.TB) [][]any {
	g := func(s string) any { return wkbOf(t, s) }
	return [][]any{
		{int32(1), g("POINT (30 10)"), g("POINT (-170 10)"), g("LINESTRING (170 0, -170 0)"), nil, int64(1_700_000_000_123_456_789), int64(-1), g("POINT Z (1 2 3)")},
		{int32(2), g("LINESTRING (1 2, -5 40)"), g("POINT (175 -20)"), nil, nil, int64(0), int64(86_400_000_000_001), g("LINESTRING ZM (0 0 -7 1, 1 1 9 2)")},
		{int32(3), g("POLYGON ((0 0, 10 0, 10 -3, 0 0))"), nil, g("POINT (1 1)"), nil, nil, nil, nil},
		{int32(4), nil, g("POINT (0 89)"), nil, nil, int64(-999_999_999), int64(3), g("POINT Z (5 -6 NaN)")},
		{int32(5), g("MULTIPOINT ((7 7), (8 8))"), g("MULTIPOINT ((1 1), (2 -2))"), nil, nil, int64(42), nil, nil},
	}
}

func leDoubles(vs ...float64) []byte {
	var out []byte
	for _, v := range vs {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
	}
	return out
}

// A v3 table with geometry, geography, unknown and nanosecond timestamp
// columns is created, written by floe, committed, reopened and scanned;
// arrow-go's pqarrow reads the same data file, and the manifest bounds of
// the geo columns are the spec's points.
func TestV3TypesTableRoundTrip(t *testing.T) {
	ctx := context.Background()
	schema := v3TypesSchema()
	tbl, err := table.Create(ctx, nil, filepath.Join(t.TempDir(), "geo"), schema, nil, nil, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	rows := v3TypesRows(t)
	files := writeTableFiles(t, tbl, rows)
	if len(files) != 1 {
		t.Fatalf("%d data files", len(files))
	}
	if _, err := tbl.Append(ctx, files, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	df := files[0]

	// Bounds: the box of every coordinate of the geometry column; the
	// geography of points gets its box; the geography with a line (whose
	// arc floe does not bound) gets none.
	checkBound := func(id int, lower, upper []byte) {
		t.Helper()
		if lo := df.Metrics.Maps().LowerBounds[id]; !bytes.Equal(lo, lower) {
			t.Errorf("column %d: lower bound %x, want %x", id, lo, lower)
		}
		if hi := df.Metrics.Maps().UpperBounds[id]; !bytes.Equal(hi, upper) {
			t.Errorf("column %d: upper bound %x, want %x", id, hi, upper)
		}
	}
	checkBound(2, leDoubles(-5, -3), leDoubles(30, 40))
	checkBound(3, leDoubles(-170, -20), leDoubles(175, 89))
	checkBound(4, nil, nil)
	// z from three values (NaN skipped), m only from the ZM line string:
	// all four dimensions written.
	checkBound(8, leDoubles(0, -6, -7, 1), leDoubles(5, 2, 9, 2))
	if df.Metrics.Maps().NullValueCounts[2] != 1 || df.Metrics.Maps().ValueCounts[2] != 5 || df.Metrics.Maps().NullValueCounts[4] != 3 {
		t.Errorf("counts: values %v nulls %v", df.Metrics.Maps().ValueCounts, df.Metrics.Maps().NullValueCounts)
	}
	if _, ok := df.Metrics.Maps().ValueCounts[5]; ok {
		t.Errorf("the unknown column has metrics: %v", df.Metrics.Maps().ValueCounts)
	}

	// Reopened and scanned, every column comes back.
	got := tableRows(t, tbl.Metadata.Location, table.Options{})
	compareRows(t, "scan", schema, rows, got)

	// The scan's Arrow fields tag geo columns geoarrow.wkb with their CRS.
	reopened := reopened(t, tbl)
	s, err := scan.New(ctx, reopened, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		meta map[string]string
	}{
		{"shape", map[string]string{"crs": "OGC:CRS84"}},
		{"place", map[string]string{"crs": "EPSG:4326", "edges": "karney"}},
		{"route", map[string]string{"crs": "OGC:CRS84", "edges": "spherical"}},
	} {
		fs, _ := s.Schema().FieldsByName(c.name)
		if len(fs) != 1 {
			t.Fatalf("no field %s", c.name)
		}
		if name, _ := fs[0].Metadata.GetValue("ARROW:extension:name"); name != "geoarrow.wkb" {
			t.Errorf("%s: extension name %q", c.name, name)
		}
		raw, _ := fs[0].Metadata.GetValue("ARROW:extension:metadata")
		var meta map[string]string
		if err := json.Unmarshal([]byte(raw), &meta); err != nil || len(meta) != len(c.meta) {
			t.Errorf("%s: extension metadata %q, want %v", c.name, raw, c.meta)
		}
		for k, v := range c.meta {
			if meta[k] != v {
				t.Errorf("%s: extension metadata %q, want %v", c.name, raw, c.meta)
			}
		}
	}

	// arrow-go's pqarrow reads the file (the unknown column is not in it)
	// and sees the GEOMETRY and GEOGRAPHY annotations.
	path := strings.TrimPrefix(df.FilePath, "file://")
	var stored []iceberg.NestedField
	var storedRows [][]any
	for j, f := range schema.Fields {
		if _, unknown := f.Type.(iceberg.UnknownType); unknown {
			continue
		}
		stored = append(stored, f)
		for i := range rows {
			if j == 0 {
				storedRows = append(storedRows, nil)
			}
			storedRows[i] = append(storedRows[i], rows[i][j])
		}
	}
	storedSchema := iceberg.NewSchema(0, stored)
	compareRows(t, "pqarrow", storedSchema, storedRows, readPqarrow(t, path, storedSchema))
	pr, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	ps := pr.MetaData().Schema
	for i, want := range []string{"", "Geometry(crs=OGC:CRS84)", "Geography(crs=EPSG:4326, algorithm=karney)", "Geography(crs=OGC:CRS84, algorithm=spherical)"} {
		if want == "" {
			continue
		}
		lt := ps.Column(i).LogicalType()
		switch lt := lt.(type) {
		case pqschema.GeometryLogicalType:
			if got := "Geometry(crs=" + lt.CRS() + ")"; got != want {
				t.Errorf("column %d: %s, want %s", i, got, want)
			}
		case pqschema.GeographyLogicalType:
			if got := "Geography(crs=" + lt.CRS() + ", algorithm=" + string(lt.EdgeInterpolationAlgorithm()) + ")"; got != want {
				t.Errorf("column %d: %s, want %s", i, got, want)
			}
		default:
			t.Errorf("column %d: logical type %v, want %s", i, lt, want)
		}
	}

	// floe's reader sees the same annotations.
	fr, closeFile := openParquet(t, path)
	defer closeFile()
	for id, want := range map[int32]parquet.LogicalKind{2: parquet.LogicalGeometry, 3: parquet.LogicalGeography, 8: parquet.LogicalGeometry} {
		if n := fr.NodeByFieldID(id); n == nil || n.Logical.Kind != want {
			t.Errorf("field %d: node %+v, want logical type %v", id, n, want)
		}
	}

	// Null checks on geo columns filter; comparisons are refused.
	s, err = scan.New(ctx, reopened, scan.Options{Filter: mustFilter("shape is null"), Columns: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s); n != 1 {
		t.Errorf("shape is null: %d rows, want 1", n)
	}
	// Planning reads the geo bounds and counts without tripping on them.
	s, err = scan.New(ctx, reopened, scan.Options{Filter: mustFilter("place is not null and route is null and id > 1"), Columns: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s); n != 3 {
		t.Errorf("place is not null and route is null and id > 1: %d rows, want 3", n)
	}
	if _, err := scan.New(ctx, reopened, scan.Options{Filter: mustFilter("shape = 'POINT (30 10)'")}); !errors.Is(err, expr.ErrGeoPredicate) {
		t.Errorf("a comparison on a geometry: %v, want ErrGeoPredicate", err)
	}
}

func countRows(t testing.TB, s *scan.Scan) int {
	t.Helper()
	rr, err := s.Reader(context.Background(), memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	n := 0
	for rr.Next() {
		n += int(rr.RecordBatch().NumRows())
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// A value that is not WKB fails the write with ErrInvalidWKB rather than
// landing in a geometry column.
func TestWriteRefusesBadWKB(t *testing.T) {
	ctx := context.Background()
	schema := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "g", Type: iceberg.GeometryType{}}})
	tbl, err := table.Create(ctx, nil, filepath.Join(t.TempDir(), "geo"), schema, nil, nil, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	md := tbl.Metadata
	w, err := New(ctx, tbl.IO, DataLocation(md), md.CurrentSchema(), md.DefaultSpec(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := buildRecord(t, schema, [][]any{{[]byte("POINT (1 2)")}})
	defer rec.Release()
	err = w.Write(rec)
	if err == nil {
		_, err = w.Close()
	} else {
		_ = w.Abort()
	}
	if !errors.Is(err, iceberg.ErrInvalidWKB) {
		t.Errorf("error %v, want ErrInvalidWKB", err)
	}
}
