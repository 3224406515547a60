package interop

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/parquet-go/parquet-go"
)

// Reserved field ids of a position delete file's columns (Iceberg spec).
const (
	fieldIDDeleteFilePath = 2147483546
	fieldIDDeletePos      = 2147483545
)

// idsInFile reads the id column of a data file with parquet-go, not floe,
// so which rows a position names is known independently of floe's reader.
func idsInFile(t *testing.T, path string) []int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.Read[struct {
		ID int64 `parquet:"id"`
	}](bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("parquet-go read %s: %v", path, err)
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids
}

// writePositionDeletes writes a v2 position delete file for one data file,
// deleting the given (ascending) positions, and returns its manifest entry
// in the data file's spec and partition.
func writePositionDeletes(t *testing.T, path string, data manifest.DataFile, positions []int64) manifest.DataFile {
	t.Helper()
	schema := parquet.NewSchema("position_deletes", parquet.Group{
		"file_path": parquet.FieldID(parquet.Required(parquet.String()), fieldIDDeleteFilePath),
		"pos":       parquet.FieldID(parquet.Required(parquet.Int(64)), fieldIDDeletePos),
	})
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, schema)
	for _, p := range positions {
		// Columns are in the schema's (sorted) order: file_path, pos.
		row := parquet.Row{
			parquet.ByteArrayValue([]byte(data.FilePath)).Level(0, 0, 0),
			parquet.Int64Value(p).Level(0, 0, 1),
		}
		if _, err := w.WriteRows([]parquet.Row{row}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return manifest.DataFile{
		Content: manifest.ContentPositionDeletes, FilePath: path, FileFormat: "PARQUET",
		Partition: data.Partition, SpecID: data.SpecID,
		RecordCount: int64(len(positions)), FileSizeInBytes: int64(buf.Len()),
		ReferencedDataFile: data.FilePath,
		Metrics: manifest.MetricsOf(manifest.MetricMaps{
			LowerBounds: map[int][]byte{fieldIDDeleteFilePath: []byte(data.FilePath)},
			UpperBounds: map[int][]byte{fieldIDDeleteFilePath: []byte(data.FilePath)},
		}),
	}
}

// TestFloeV2PositionDeletesReadByIcebergGo commits position deletes with
// floe's RowDelta and checks iceberg-go and floe both drop exactly the
// deleted rows.
func TestFloeV2PositionDeletesReadByIcebergGo(t *testing.T) {
	ctx := context.Background()
	spec := bucketDaySpec()
	tbl, err := table.Create(ctx, fileio.Local{}, t.TempDir(), testSchema(), spec, nil, nil, 2)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	rows := makeRows(3, 0, 4000)
	files := writeFloe(t, tbl, spec, rows)
	if _, err := tbl.Append(ctx, files, table.CommitOptions{}); err != nil {
		t.Fatalf("Append: %v", err)
	}
	if len(files) < 3 {
		t.Fatalf("writer made %d files, want several partitions", len(files))
	}
	deleted := map[int64]bool{}
	var deletes []manifest.DataFile
	// Delete every third row of the first two files, and nothing of the rest.
	for k, df := range files[:2] {
		ids := idsInFile(t, df.FilePath)
		var positions []int64
		for p := 0; p < len(ids); p += 3 {
			positions = append(positions, int64(p))
			deleted[ids[p]] = true
		}
		path := filepath.Join(filepath.Dir(df.FilePath), "pos-deletes-"+string(rune('a'+k))+".parquet")
		deletes = append(deletes, writePositionDeletes(t, path, df, positions))
	}
	if _, err := tbl.RowDelta(ctx, nil, deletes, table.CommitOptions{}); err != nil {
		t.Fatalf("RowDelta: %v", err)
	}
	var kept []row
	for _, r := range rows {
		if !deleted[r.id] {
			kept = append(kept, r)
		}
	}
	if len(deleted) == 0 || len(kept) == len(rows) {
		t.Fatal("nothing deleted")
	}
	reopened, err := table.Open(ctx, tbl.Metadata.Location, table.Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	want := expectedKeys(kept)
	got, err := readWithIcebergGo(t, reopened.MetadataLocation)
	if err != nil {
		t.Fatalf("iceberg-go read of floe v2 table with deletes: %v", err)
	}
	assertSameRows(t, want, rowKeys(t, got))
	assertSameRows(t, want, rowKeys(t, readWithFloe(t, reopened.MetadataLocation)))
}
