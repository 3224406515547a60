package interop

import (
	"context"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer"
)

// bucketDaySpec partitions by bucket(4, id) and day(ts): a hash transform
// and a time transform, with nulls in ts, so partition values of both
// kinds and null partitions are read by the peer.
func bucketDaySpec() *iceberg.PartitionSpec {
	return &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
		{SourceID: 1, FieldID: 1000, Name: "id_bucket", Transform: iceberg.BucketTransform{N: 4}},
		{SourceID: 6, FieldID: 1001, Name: "ts_day", Transform: iceberg.DayTransform{}},
	}}
}

// writeFloe writes rows with floe's writer into tbl and returns the files,
// uncommitted.
func writeFloe(t *testing.T, tbl *table.Table, spec *iceberg.PartitionSpec, rows []row) []manifest.DataFile {
	t.Helper()
	ctx := context.Background()
	w, err := writer.New(ctx, tbl.IO, fileio.JoinPath(tbl.Metadata.Location, "data"), testSchema(), spec, writer.DefaultOptions())
	if err != nil {
		t.Fatalf("writer.New: %v", err)
	}
	rec := batch(t, rows)
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatalf("Write: %v", err)
	}
	files, err := w.Close()
	if err != nil {
		t.Fatalf("Close: %v", err)
	}
	return files
}

// createFloeTable creates a table in a temp directory and appends rows in
// two commits, returning the table and every row written.
func createFloeTable(t *testing.T, formatVersion int) (*table.Table, []row) {
	t.Helper()
	ctx := context.Background()
	spec := bucketDaySpec()
	tbl, err := table.Create(ctx, fileio.Local{}, t.TempDir(), testSchema(), spec, nil, nil, formatVersion)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	first, second := makeRows(1, 0, 3000), makeRows(2, 3000, 2000)
	for _, rows := range [][]row{first, second} {
		if _, err := tbl.Append(ctx, writeFloe(t, tbl, spec, rows), table.CommitOptions{}); err != nil {
			t.Fatalf("Append: %v", err)
		}
	}
	// Reopen: what iceberg-go gets is the latest metadata file on disk.
	tbl, err = table.Open(ctx, tbl.Metadata.Location, table.Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if n := len(tbl.Metadata.Snapshots); n != 2 {
		t.Fatalf("table has %d snapshots, want 2", n)
	}
	return tbl, append(first, second...)
}

func TestFloeV2ReadByIcebergGo(t *testing.T) {
	tbl, rows := createFloeTable(t, 2)
	got, err := readWithIcebergGo(t, tbl.MetadataLocation)
	if err != nil {
		t.Fatalf("iceberg-go read of floe v2 table: %v", err)
	}
	assertSameRows(t, expectedKeys(rows), rowKeys(t, got))
}

func TestFloeV3ReadByIcebergGo(t *testing.T) {
	tbl, rows := createFloeTable(t, 3)
	if tbl.Metadata.FormatVersion != 3 {
		t.Fatalf("format version %d, want 3", tbl.Metadata.FormatVersion)
	}
	got, err := readWithIcebergGo(t, tbl.MetadataLocation)
	if err != nil {
		t.Fatalf("iceberg-go read of floe v3 table: %v", err)
	}
	assertSameRows(t, expectedKeys(rows), rowKeys(t, got))
}
