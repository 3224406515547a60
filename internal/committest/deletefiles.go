package committest

import (
	"bytes"
	"fmt"
	"os"
	"sort"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/puffin"
	"github.com/parquet-go/parquet-go"
)

// Reserved field ids of a position delete file's columns.
const (
	fieldIDFilePath = 2147483546
	fieldIDPos      = 2147483545
)

// Position is one deleted row: a data file's path as the table's manifests
// write it, and the row's 0-based position in it.
type Position struct {
	Path string
	Pos  int64
}

// WritePositionDeletes writes a position delete Parquet file (v2) and
// returns its manifest entry, in the spec and partition given (those of
// the data files it deletes from), with file_path bounds, so a file that
// deletes from one data file names it.
func WritePositionDeletes(path string, specID int, partition []any, deletes []Position) (manifest.DataFile, error) {
	if len(deletes) == 0 {
		return manifest.DataFile{}, fmt.Errorf("no deletes")
	}
	sorted := append([]Position(nil), deletes...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Path != sorted[j].Path {
			return sorted[i].Path < sorted[j].Path
		}
		return sorted[i].Pos < sorted[j].Pos
	})
	schema := parquet.NewSchema("position_deletes", parquet.Group{
		"file_path": parquet.FieldID(parquet.Required(parquet.String()), fieldIDFilePath),
		"pos":       parquet.FieldID(parquet.Required(parquet.Int(64)), fieldIDPos),
	})
	rows := make([]parquet.Row, len(sorted))
	for i, d := range sorted {
		rows[i] = parquet.Row{
			parquet.ByteArrayValue([]byte(d.Path)).Level(0, 0, 0),
			parquet.Int64Value(d.Pos).Level(0, 0, 1),
		}
	}
	size, err := writeParquet(path, schema, rows)
	if err != nil {
		return manifest.DataFile{}, err
	}
	lo, hi := sorted[0].Path, sorted[len(sorted)-1].Path
	loPos, _ := iceberg.ValueToBytes(iceberg.LongType{}, sorted[0].Pos)
	hiPos, _ := iceberg.ValueToBytes(iceberg.LongType{}, sorted[len(sorted)-1].Pos)
	df := manifest.DataFile{
		Content: manifest.ContentPositionDeletes, FilePath: path, FileFormat: "PARQUET",
		Partition: partition, SpecID: specID, RecordCount: int64(len(sorted)), FileSizeInBytes: size,
		Metrics: manifest.MetricsOf(manifest.MetricMaps{
			ValueCounts:     map[int]int64{fieldIDFilePath: int64(len(sorted)), fieldIDPos: int64(len(sorted))},
			NullValueCounts: map[int]int64{fieldIDFilePath: 0, fieldIDPos: 0},
			LowerBounds:     map[int][]byte{fieldIDFilePath: []byte(lo), fieldIDPos: loPos},
			UpperBounds:     map[int][]byte{fieldIDFilePath: []byte(hi), fieldIDPos: hiPos},
		}),
	}
	if lo == hi {
		df.ReferencedDataFile = lo
	}
	return df, nil
}

// WriteDeletionVector writes a Puffin file holding one deletion vector
// (v3) for a data file and returns its manifest entry, in the data file's
// spec and partition.
func WriteDeletionVector(path string, data manifest.DataFile, positions []int64) (manifest.DataFile, error) {
	bm := roaring64.New()
	for _, p := range positions {
		bm.Add(uint64(p))
	}
	meta, blob, err := puffin.NewDeletionVectorBlob(data.FilePath, bm)
	if err != nil {
		return manifest.DataFile{}, err
	}
	var buf bytes.Buffer
	w := puffin.NewWriter(&buf)
	if meta, err = w.AddBlob(meta, blob); err != nil {
		return manifest.DataFile{}, err
	}
	if err := w.Finish(map[string]string{puffin.PropertyCreatedBy: "floe committest"}); err != nil {
		return manifest.DataFile{}, err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return manifest.DataFile{}, err
	}
	offset, length := meta.Offset, meta.Length
	return manifest.DataFile{
		Content: manifest.ContentPositionDeletes, FilePath: path, FileFormat: "puffin",
		Partition: data.Partition, SpecID: data.SpecID, RecordCount: int64(bm.GetCardinality()),
		FileSizeInBytes: int64(buf.Len()), ReferencedDataFile: data.FilePath,
		ContentOffset: &offset, ContentSizeInBytes: &length,
	}, nil
}

// WriteEqualityDeletes writes an equality delete Parquet file deleting
// the rows whose long column (field id, name) equals one of values, in
// the given spec and partition, and returns its manifest entry.
func WriteEqualityDeletes(path string, specID int, partition []any, fieldID int, name string, values []int64) (manifest.DataFile, error) {
	schema := parquet.NewSchema("equality_deletes", parquet.Group{
		name: parquet.FieldID(parquet.Required(parquet.Int(64)), fieldID),
	})
	rows := make([]parquet.Row, len(values))
	for i, v := range values {
		rows[i] = parquet.Row{parquet.Int64Value(v).Level(0, 0, 0)}
	}
	size, err := writeParquet(path, schema, rows)
	if err != nil {
		return manifest.DataFile{}, err
	}
	return manifest.DataFile{
		Content: manifest.ContentEqualityDeletes, FilePath: path, FileFormat: "PARQUET",
		Partition: partition, SpecID: specID, RecordCount: int64(len(values)), FileSizeInBytes: size,
		EqualityIDs: []int{fieldID},
	}, nil
}

func writeParquet(path string, schema *parquet.Schema, rows []parquet.Row) (int64, error) {
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, schema, parquet.Compression(&parquet.Zstd))
	if _, err := w.WriteRows(rows); err != nil {
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return 0, err
	}
	return int64(buf.Len()), nil
}
