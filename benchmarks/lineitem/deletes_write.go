package lineitem

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/puffin"
	"github.com/parquet-go/parquet-go"
)

// Reserved field ids of a position delete file's columns (spec).
const (
	fieldIDDeleteFilePath = 2147483546
	fieldIDDeletePos      = 2147483545
)

// positionDelete is a position delete file's row; sorted by path, then pos.
type positionDelete struct {
	FilePath string `parquet:"file_path,id(2147483546),dict"`
	Pos      int64  `parquet:"pos,id(2147483545)"`
}

// equalityKey is an equality delete file's row: the key columns with the
// table's field ids and types (optional, as in the table).
type equalityKey struct {
	OrderKey int64 `parquet:"l_orderkey,id(1),optional"`
	PartKey  int64 `parquet:"l_partkey,id(2),optional"`
}

// equalityIDs are the key's field ids, as the manifest entry lists them.
var equalityIDs = []int{IDOrderKey, IDPartKey}

func writeParquetRows[T any](path string, rows []T) (size int64, err error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	buf := bufio.NewWriterSize(f, 1<<20)
	w := parquet.NewGenericWriter[T](buf, parquet.Compression(&parquet.Snappy),
		parquet.DataPageVersion(1), parquet.CreatedBy("floe-benchmarks", "lineitem", "1"))
	if _, err := w.Write(rows); err != nil {
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	if err := buf.Flush(); err != nil {
		return 0, err
	}
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}

// writePositionDeletes writes one position delete file per data file and
// returns their manifest entries.
func writePositionDeletes(dir string, dataFiles []string, picks []*filePicks) ([]manifest.Entry, error) {
	var entries []manifest.Entry
	var rows []positionDelete
	for i, fp := range picks {
		rows = rows[:0]
		for _, pos := range fp.positions {
			rows = append(rows, positionDelete{FilePath: dataFiles[i], Pos: pos})
		}
		path := filepath.Join(dir, fmt.Sprintf("%05d-pos-deletes.parquet", i))
		size, err := writeParquetRows(path, rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		df := manifest.DataFile{
			Content: manifest.ContentPositionDeletes, FilePath: path, FileFormat: "PARQUET", Partition: []any{},
			RecordCount: int64(len(rows)), FileSizeInBytes: size, ReferencedDataFile: dataFiles[i],
		}
		m := manifest.MetricMaps{
			ValueCounts:     map[int]int64{fieldIDDeleteFilePath: int64(len(rows)), fieldIDDeletePos: int64(len(rows))},
			NullValueCounts: map[int]int64{fieldIDDeleteFilePath: 0, fieldIDDeletePos: 0},
		}
		if len(rows) > 0 {
			m.LowerBounds = map[int][]byte{fieldIDDeleteFilePath: []byte(dataFiles[i]), fieldIDDeletePos: longBytes(rows[0].Pos)}
			m.UpperBounds = map[int][]byte{fieldIDDeleteFilePath: []byte(dataFiles[i]), fieldIDDeletePos: longBytes(rows[len(rows)-1].Pos)}
		}
		df.Metrics = manifest.MetricsOf(m)
		entries = append(entries, manifest.Entry{Status: manifest.StatusAdded, DataFile: df})
	}
	return entries, nil
}

// writeDeletionVectors writes every data file's deletion vector into one
// Puffin file and returns their manifest entries.
func writeDeletionVectors(dir string, dataFiles []string, picks []*filePicks) (_ []manifest.Entry, err error) {
	path := filepath.Join(dir, "deletion-vectors.puffin")
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	buf := bufio.NewWriterSize(f, 1<<20)
	w := puffin.NewWriter(buf)
	var blobs []puffin.BlobMetadata
	for i, fp := range picks {
		bm := roaring64.New()
		for _, pos := range fp.positions {
			bm.Add(uint64(pos))
		}
		meta, data, err := puffin.NewDeletionVectorBlob(dataFiles[i], bm)
		if err != nil {
			return nil, err
		}
		if meta, err = w.AddBlob(meta, data); err != nil {
			return nil, err
		}
		blobs = append(blobs, meta)
	}
	if err := w.Finish(map[string]string{"created-by": "floe-benchmarks lineitem"}); err != nil {
		return nil, err
	}
	if err := buf.Flush(); err != nil {
		return nil, err
	}
	entries := make([]manifest.Entry, len(blobs))
	for i, b := range blobs {
		offset, length := b.Offset, b.Length
		entries[i] = manifest.Entry{Status: manifest.StatusAdded, DataFile: manifest.DataFile{
			Content: manifest.ContentPositionDeletes, FilePath: path, FileFormat: "PUFFIN", Partition: []any{},
			RecordCount: int64(len(picks[i].positions)), FileSizeInBytes: w.Size(),
			ReferencedDataFile: dataFiles[i], ContentOffset: &offset, ContentSizeInBytes: &length,
		}}
	}
	return entries, nil
}

// writeEqualityDeletes writes every file's keys into one equality delete
// file (in row order, which is l_orderkey order) and returns its entry.
func writeEqualityDeletes(dir string, picks []*filePicks) ([]manifest.Entry, error) {
	var rows []equalityKey
	for _, fp := range picks {
		for _, k := range fp.keys {
			rows = append(rows, equalityKey{OrderKey: k[0], PartKey: k[1]})
		}
	}
	path := filepath.Join(dir, "00000-eq-deletes.parquet")
	size, err := writeParquetRows(path, rows)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	df := manifest.DataFile{
		Content: manifest.ContentEqualityDeletes, FilePath: path, FileFormat: "PARQUET", Partition: []any{},
		RecordCount: int64(len(rows)), FileSizeInBytes: size, EqualityIDs: equalityIDs,
	}
	if len(rows) > 0 {
		lo, hi := rows[0].PartKey, rows[0].PartKey
		for _, r := range rows {
			lo, hi = min(lo, r.PartKey), max(hi, r.PartKey)
		}
		df.Metrics = manifest.MetricsOf(manifest.MetricMaps{
			ValueCounts:     map[int]int64{IDOrderKey: int64(len(rows)), IDPartKey: int64(len(rows))},
			NullValueCounts: map[int]int64{IDOrderKey: 0, IDPartKey: 0},
			LowerBounds:     map[int][]byte{IDOrderKey: longBytes(rows[0].OrderKey), IDPartKey: longBytes(lo)},
			UpperBounds:     map[int][]byte{IDOrderKey: longBytes(rows[len(rows)-1].OrderKey), IDPartKey: longBytes(hi)},
		})
	}
	return []manifest.Entry{{Status: manifest.StatusAdded, DataFile: df}}, nil
}

// longBytes is a long's single-value binary form (little endian).
func longBytes(v int64) []byte {
	return binary.LittleEndian.AppendUint64(nil, uint64(v))
}
