package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestWriteSection runs the write section on a few rows: both writers
// write both codecs at both thread counts, floe's files pass DuckDB's
// row-by-row comparison with the source (measureWrites checks that before
// measuring), and the profile and the JSON are written.
func TestWriteSection(t *testing.T) {
	const rows = 30_000
	dir := t.TempDir()
	cfg := writeConfig{
		Rows: rows, Dir: dir, JSON: filepath.Join(dir, "writes.json"),
		Profile: filepath.Join(dir, "prof"), ZstdLevel: 3, Repeat: 1,
	}
	results, err := measureWrites(cfg, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 6 {
		t.Fatalf("%d results, want zstd at level 3 and at the default, snappy, × 2 thread counts", len(results))
	}
	for _, r := range results {
		if r.Rows != rows || r.FloeFiles != 1 || r.FloeBytes <= 0 || r.DuckBytes <= 0 || r.FloeCPU <= 0 || r.DuckWall <= 0 {
			t.Errorf("%s %d threads: %+v", r.Codec, r.Threads, r)
		}
		if r.Codec != "zstd" && r.ZstdLevel != 0 {
			t.Errorf("%s written at zstd level %d", r.Codec, r.ZstdLevel)
		}
	}
	for _, p := range []string{cfg.JSON, cfg.Profile + "-zstd.prof", cfg.Profile + "-snappy.prof"} {
		if info, err := os.Stat(p); err != nil || info.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	printWrites(results, t.Logf)
}

// TestWriteCheckCatchesADifference: the check that guards the measurement
// fails when one value of the source differs from what floe wrote.
func TestWriteCheckCatchesADifference(t *testing.T) {
	dir := t.TempDir()
	src, err := loadWriteSource(dir, 5_000)
	if err != nil {
		t.Fatal(err)
	}
	defer src.release()
	if err := checkFloeWrite(src, dir, "snappy", 0); err != nil {
		t.Fatalf("unchanged source: %v", err)
	}
	if _, err := src.duck.Exec("UPDATE t SET l_comment = l_comment || 'x' WHERE l_orderkey = 700"); err != nil {
		t.Fatal(err)
	}
	if err := checkFloeWrite(src, dir, "snappy", 0); err == nil {
		t.Fatal("a changed comment went unnoticed")
	}
}

// TestWriteSectionFilesReadByPqarrow: the files the section measures,
// both codecs, read by arrow-go's pqarrow hold the source's values column
// by column.
func TestWriteSectionFilesReadByPqarrow(t *testing.T) {
	dir := t.TempDir()
	src, err := loadWriteSource(dir, 20_000)
	if err != nil {
		t.Fatal(err)
	}
	defer src.release()
	for _, codec := range []string{"zstd", "snappy"} {
		files, err := floeWriteKeep(src, dir, codec, 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 {
			t.Fatalf("%s: %d files", codec, len(files))
		}
		pr, err := file.OpenParquetFile(files[0].path, false)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := fr.ReadTable(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for j := range int(tbl.NumCols()) {
			var want []arrow.Array
			for _, b := range src.batches {
				want = append(want, b.Column(j))
			}
			wantCol, err := array.Concatenate(want, memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			gotCol, err := array.Concatenate(tbl.Column(j).Data().Chunks(), memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			if !array.Equal(wantCol, gotCol) {
				t.Errorf("%s: pqarrow reads column %s (%s) differently from the source (%s)", codec, tbl.Schema().Field(j).Name, gotCol.DataType(), wantCol.DataType())
			}
			wantCol.Release()
			gotCol.Release()
		}
		tbl.Release()
		pr.Close()
	}
}
