package lineitem

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// sortOrderID is the table's sort order: l_orderkey ascending, which the
// generated files follow.
const sortOrderID = 1

// tableFiles are the ids a generated table's metadata files are named by.
type tableFiles struct {
	location   string // absolute table directory
	uuid       string
	snapshotID int64
	createdMs  int64
}

// writeTableMetadata writes the manifest, the manifest list, v1.metadata.json
// and version-hint.text for one append snapshot of files.
func writeTableMetadata(tf tableFiles, files []*dataFile) (metadataPath string, err error) {
	schema := Schema()
	spec := iceberg.PartitionSpec{ID: 0}
	metaDir := filepath.Join(tf.location, "metadata")
	if err := os.MkdirAll(metaDir, 0o755); err != nil {
		return "", err
	}

	entries := make([]manifest.Entry, len(files))
	var totalRows, totalBytes int64
	for i, f := range files {
		df, err := manifestDataFile(f)
		if err != nil {
			return "", err
		}
		entries[i] = manifest.Entry{Status: manifest.StatusAdded, DataFile: df}
		totalRows += df.RecordCount
		totalBytes += df.FileSizeInBytes
	}
	var buf bytes.Buffer
	mf, err := manifest.WriteManifest(&buf, manifest.ManifestWriteOptions{
		FormatVersion: 2,
		Spec:          spec,
		PartitionType: &iceberg.StructType{},
		Schema:        schema,
		Content:       manifest.ManifestContentData,
		SnapshotID:    tf.snapshotID,
	}, entries)
	if err != nil {
		return "", fmt.Errorf("writing the manifest: %w", err)
	}
	mf.Path = filepath.Join(metaDir, tf.uuid+"-m0.avro")
	if err := os.WriteFile(mf.Path, buf.Bytes(), 0o644); err != nil {
		return "", err
	}

	buf.Reset()
	listPath := filepath.Join(metaDir, fmt.Sprintf("snap-%d-1-%s.avro", tf.snapshotID, tf.uuid))
	if _, _, err := manifest.WriteManifestList(&buf, manifest.ManifestListWriteOptions{
		FormatVersion:  2,
		SnapshotID:     tf.snapshotID,
		SequenceNumber: 1,
	}, []manifest.ManifestFile{mf}); err != nil {
		return "", fmt.Errorf("writing the manifest list: %w", err)
	}
	if err := os.WriteFile(listPath, buf.Bytes(), 0o644); err != nil {
		return "", err
	}

	count := func(n int64) string { return strconv.FormatInt(n, 10) }
	snapshotID, schemaID := tf.snapshotID, schema.ID
	md := &metadata.Metadata{
		FormatVersion:      2,
		TableUUID:          tf.uuid,
		Location:           tf.location,
		LastSequenceNumber: 1,
		LastUpdatedMs:      tf.createdMs,
		LastColumnID:       lastColumnID,
		Schemas:            []*iceberg.Schema{schema},
		CurrentSchemaID:    schema.ID,
		PartitionSpecs:     []iceberg.PartitionSpec{spec},
		DefaultSpecID:      spec.ID,
		LastPartitionID:    iceberg.PartitionFieldIDStart - 1,
		SortOrders: []iceberg.SortOrder{{OrderID: sortOrderID, Fields: []iceberg.SortField{{
			SourceID: IDOrderKey, Transform: iceberg.IdentityTransform{}, Direction: "asc", NullOrder: "nulls-first",
		}}}},
		DefaultSortOrderID: sortOrderID,
		Properties: map[string]string{
			"write.format.default":            "parquet",
			"write.parquet.compression-codec": "snappy",
		},
		CurrentSnapshotID: &snapshotID,
		Snapshots: []metadata.Snapshot{{
			SnapshotID:     tf.snapshotID,
			SequenceNumber: 1,
			TimestampMs:    tf.createdMs,
			ManifestList:   listPath,
			SchemaID:       &schemaID,
			Summary: map[string]string{
				"operation":              "append",
				"added-data-files":       count(int64(len(files))),
				"added-records":          count(totalRows),
				"added-files-size":       count(totalBytes),
				"total-data-files":       count(int64(len(files))),
				"total-records":          count(totalRows),
				"total-files-size":       count(totalBytes),
				"total-delete-files":     "0",
				"total-position-deletes": "0",
				"total-equality-deletes": "0",
			},
		}},
		SnapshotLog: []metadata.SnapshotLogEntry{{SnapshotID: tf.snapshotID, TimestampMs: tf.createdMs}},
		Refs:        map[string]metadata.Ref{metadata.MainBranch: {SnapshotID: tf.snapshotID, Type: metadata.RefBranch}},
	}
	buf.Reset()
	if err := md.Write(&buf); err != nil {
		return "", err
	}
	metadataPath = filepath.Join(metaDir, "v1.metadata.json")
	if err := os.WriteFile(metadataPath, buf.Bytes(), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(metaDir, "version-hint.text"), []byte("1"), 0o644); err != nil {
		return "", err
	}
	return metadataPath, nil
}

// manifestDataFile describes a written file for its manifest entry, its
// column sizes and row group offsets read back from the footer.
func manifestDataFile(f *dataFile) (manifest.DataFile, error) {
	info, err := os.Stat(f.path)
	if err != nil {
		return manifest.DataFile{}, err
	}
	footer, err := readFooter(f.path, info.Size())
	if err != nil {
		return manifest.DataFile{}, err
	}
	order := sortOrderID
	df := manifest.DataFile{
		Content:         manifest.ContentData,
		FilePath:        f.path,
		FileFormat:      "PARQUET",
		Partition:       []any{},
		RecordCount:     f.rows,
		FileSizeInBytes: info.Size(),
		SortOrderID:     &order,
	}
	if footer.NumRows != f.rows {
		return df, fmt.Errorf("%s: footer says %d rows, %d were written", f.path, footer.NumRows, f.rows)
	}
	if err := f.stats.metrics(&df, footer); err != nil {
		return df, fmt.Errorf("%s: %w", f.path, err)
	}
	return df, nil
}

func readFooter(path string, size int64) (*format.FileMetaData, error) {
	r, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	pf, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pf.Metadata(), nil
}
