package writer

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/reader/parquet"
)

// A position delete file as bytes: Parquet magic at both ends around a
// footer whose length word is right; read by floe's own Parquet reader
// (not the writer's code) it holds the 1,000,000 benchmark rows in path
// then position order, its two required columns carry the reserved field
// ids (file_path a dictionary-encoded UTF8 BYTE_ARRAY, pos an INT64), and
// its key-value metadata holds the Iceberg schema JSON exactly as Java's
// writer spells it.
func TestPositionDeleteFileBytes(t *testing.T) {
	const javaSchemaJSON = `{"type":"struct","schema-id":0,"fields":[` +
		`{"id":2147483546,"name":"file_path","required":true,"type":"string"},` +
		`{"id":2147483545,"name":"pos","required":true,"type":"long"}]}`
	deletes := benchPositionDeletes()
	path := filepath.Join(t.TempDir(), "pos.parquet")
	df, err := WritePositionDeletes(context.Background(), fileio.Local{}, path, 0, nil, deletes, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := len(raw)
	footer := int(binary.LittleEndian.Uint32(raw[n-8 : n-4]))
	switch {
	case int64(n) != df.FileSizeInBytes:
		t.Fatalf("file of %d bytes, entry says %d", n, df.FileSizeInBytes)
	case !bytes.Equal(raw[:4], []byte("PAR1")) || !bytes.Equal(raw[n-4:], []byte("PAR1")):
		t.Fatal("no Parquet magic at the start and end")
	case footer <= 0 || footer > n-12:
		t.Fatalf("footer length %d in a file of %d bytes", footer, n)
	}

	pf, err := parquet.OpenFile(bytes.NewReader(raw), int64(n), nil)
	if err != nil {
		t.Fatal(err)
	}
	var schemaJSON string
	for _, kv := range pf.KeyValue {
		if kv.Key == "iceberg.schema" {
			schemaJSON = kv.Value
		}
	}
	if schemaJSON != javaSchemaJSON {
		t.Errorf("iceberg.schema %q\nwant %q", schemaJSON, javaSchemaJSON)
	}
	if len(pf.Leaves) != 2 {
		t.Fatalf("%d columns", len(pf.Leaves))
	}
	pathNode, posNode := pf.Leaves[0], pf.Leaves[1]
	switch {
	case pathNode.Name != "file_path" || !pathNode.HasFieldID || pathNode.FieldID != FieldIDDeleteFilePath ||
		pathNode.Repetition != parquet.Required || pathNode.Physical != parquet.ByteArray || pathNode.Logical.Kind != parquet.LogicalString:
		t.Errorf("file_path column %+v", pathNode)
	case posNode.Name != "pos" || !posNode.HasFieldID || posNode.FieldID != FieldIDDeletePos ||
		posNode.Repetition != parquet.Required || posNode.Physical != parquet.Int64:
		t.Errorf("pos column %+v", posNode)
	case pf.NumRows != 1_000_000 || df.RecordCount != 1_000_000:
		t.Errorf("%d rows in the footer, %d in the entry", pf.NumRows, df.RecordCount)
	}
	for _, rg := range pf.RowGroups {
		if c := rg.Columns[0]; !slices.Contains(c.Encodings, parquet.EncRLEDictionary) || c.DictionaryPageOffset == 0 {
			t.Errorf("row group %d: file_path is not dictionary-encoded: %v", rg.Index, c.Encodings)
		}
	}

	paths, positions := readPositionFile(t, path)
	k := 0
	slices.SortFunc(deletes, func(a, b FilePositions) int { return strings.Compare(a.FilePath, b.FilePath) })
	for _, d := range deletes {
		it := d.Positions.Iterator()
		for it.HasNext() {
			p := it.Next()
			if k >= len(paths) || paths[k] != d.FilePath || positions[k] != int64(p) {
				t.Fatalf("row %d: %q %d, want %q %d", k, paths[min(k, len(paths)-1)], positions[min(k, len(positions)-1)], d.FilePath, p)
			}
			k++
		}
	}
	if k != len(paths) {
		t.Fatalf("%d rows read, %d written", len(paths), k)
	}
}
