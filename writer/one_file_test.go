package writer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/reader/parquet"
)

// A FileWriter writes one file at the caller's path however small the
// target file size (no roll-over), visible only after Close and with an
// entry naming that path; Abort after Close removes it. On a stream the
// bytes are the file, the entry's size their count, and a writer given
// no rows still writes a readable file of no rows.
func TestFileWriterOneFile(t *testing.T) {
	ctx := context.Background()
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "name", Type: iceberg.StringType{}},
	})
	fields := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "name", Type: arrow.BinaryTypes.String, Nullable: true}}
	ids := make([]int64, 50_000)
	names := make([]string, len(ids))
	for i := range ids {
		ids[i], names[i] = int64(i), "row "+string(rune('a'+i%26))
	}
	rec := recordOf(fields, int64s(ids...), stringsArr(names...))
	defer rec.Release()

	path := filepath.Join(t.TempDir(), "named.parquet")
	fw, err := NewFileWriter(ctx, fileio.Local{}, path, schema, Options{TargetFileSize: 1024, RowGroupSize: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if err := fw.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("the file is visible before Close")
	}
	df, err := fw.Close()
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || df.FilePath != path || df.RecordCount != 200_000 || df.FileSizeInBytes != info.Size() || len(df.SplitOffsets) < 2 {
		t.Fatalf("entry %s, %d rows, %d bytes, %d row groups; file %v, %v", df.FilePath, df.RecordCount, df.FileSizeInBytes, len(df.SplitOffsets), info, err)
	}
	if err := fw.Abort(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("Abort after Close left the file")
	}

	var out bytes.Buffer
	sw, err := NewStreamFileWriter(ctx, &out, schema, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := sw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if df, err = sw.Close(); err != nil || df.FileSizeInBytes != int64(out.Len()) || df.RecordCount != 50_000 {
		t.Fatalf("stream: %d bytes, entry %d bytes %d rows, %v", out.Len(), df.FileSizeInBytes, df.RecordCount, err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
	if err != nil || pf.NumRows != 50_000 || pf.NodeByFieldID(2) == nil {
		t.Fatalf("stream file: %v", err)
	}

	out.Reset()
	if sw, err = NewStreamFileWriter(ctx, &out, schema, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if df, err = sw.Close(); err != nil || df.RecordCount != 0 {
		t.Fatalf("empty: %+v, %v", df, err)
	}
	pf, err = parquet.OpenFile(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
	if err != nil || pf.NumRows != 0 || len(pf.RowGroups) != 0 || pf.NodeByFieldID(1) == nil {
		t.Fatalf("empty stream file: %v", err)
	}
}
