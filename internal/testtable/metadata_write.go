package testtable

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// Fixed ids keep a table's metadata the same from run to run.
const (
	snapshotID = 4242
	tableUUID  = "7e57ab1e-0000-4000-8000-000000000001"
	createdMs  = 1_700_000_000_000
)

// writeMetadata writes the manifests (files spread over them in order),
// the manifest list, v1.metadata.json and version-hint.text of one append
// snapshot holding every file.
func writeMetadata(location string, o *Options, partType *iceberg.StructType, files []*writtenFile, manifests int) (string, error) {
	mode, err := parseMetricsMode(o.MetricsMode)
	if err != nil {
		return "", err
	}
	metaDir := filepath.Join(location, "metadata")
	if err := os.MkdirAll(metaDir, 0o755); err != nil {
		return "", err
	}
	entries := make([][]manifest.Entry, manifests)
	var totalRows, totalBytes int64
	for i, wf := range files {
		df := manifest.DataFile{
			Content:         manifest.ContentData,
			FilePath:        wf.path,
			FileFormat:      "PARQUET",
			Partition:       wf.partition,
			SpecID:          o.Spec.ID,
			RecordCount:     int64(len(wf.rows)),
			FileSizeInBytes: wf.size,
		}
		if err := fillMetrics(&df, o, wf, mode); err != nil {
			return "", fmt.Errorf("%s: %w", wf.path, err)
		}
		m := i * manifests / len(files)
		entries[m] = append(entries[m], manifest.Entry{Status: manifest.StatusAdded, DataFile: df})
		totalRows += df.RecordCount
		totalBytes += df.FileSizeInBytes
	}
	var list []manifest.ManifestFile
	var buf bytes.Buffer
	for m, es := range entries {
		buf.Reset()
		mf, err := manifest.WriteManifest(&buf, manifest.ManifestWriteOptions{
			FormatVersion: o.FormatVersion,
			Spec:          o.Spec,
			PartitionType: partType,
			Schema:        o.Schema,
			Content:       manifest.ManifestContentData,
			SnapshotID:    snapshotID,
		}, es)
		if err != nil {
			return "", fmt.Errorf("manifest %d: %w", m, err)
		}
		mf.Path = filepath.Join(metaDir, fmt.Sprintf("manifest-%d.avro", m))
		if err := os.WriteFile(mf.Path, buf.Bytes(), 0o644); err != nil {
			return "", err
		}
		list = append(list, mf)
	}
	buf.Reset()
	listPath := filepath.Join(metaDir, fmt.Sprintf("snap-%d.avro", snapshotID))
	if _, _, err := manifest.WriteManifestList(&buf, manifest.ManifestListWriteOptions{
		FormatVersion: o.FormatVersion, SnapshotID: snapshotID, SequenceNumber: 1,
	}, list); err != nil {
		return "", fmt.Errorf("manifest list: %w", err)
	}
	if err := os.WriteFile(listPath, buf.Bytes(), 0o644); err != nil {
		return "", err
	}

	lastPartitionID := iceberg.PartitionFieldIDStart - 1
	for _, pf := range o.Spec.Fields {
		lastPartitionID = max(lastPartitionID, pf.FieldID)
	}
	count := func(n int64) string { return strconv.FormatInt(n, 10) }
	sid, schemaID := int64(snapshotID), o.Schema.ID
	md := &metadata.Metadata{
		FormatVersion:      o.FormatVersion,
		TableUUID:          tableUUID,
		Location:           location,
		LastSequenceNumber: 1,
		LastUpdatedMs:      createdMs,
		LastColumnID:       o.Schema.HighestFieldID(),
		Schemas:            []*iceberg.Schema{o.Schema},
		CurrentSchemaID:    o.Schema.ID,
		PartitionSpecs:     []iceberg.PartitionSpec{o.Spec},
		DefaultSpecID:      o.Spec.ID,
		LastPartitionID:    lastPartitionID,
		Properties: map[string]string{
			"write.format.default":            "parquet",
			"write.metadata.metrics.default":  o.MetricsMode,
			"write.parquet.compression-codec": "snappy",
		},
		SortOrders:        []iceberg.SortOrder{{OrderID: 0}},
		CurrentSnapshotID: &sid,
		Snapshots: []metadata.Snapshot{{
			SnapshotID:     snapshotID,
			SequenceNumber: 1,
			TimestampMs:    createdMs,
			ManifestList:   listPath,
			SchemaID:       &schemaID,
			Summary: map[string]string{
				"operation":          "append",
				"added-data-files":   count(int64(len(files))),
				"added-records":      count(totalRows),
				"added-files-size":   count(totalBytes),
				"total-data-files":   count(int64(len(files))),
				"total-records":      count(totalRows),
				"total-files-size":   count(totalBytes),
				"total-delete-files": "0",
			},
		}},
		SnapshotLog: []metadata.SnapshotLogEntry{{SnapshotID: snapshotID, TimestampMs: createdMs}},
		Refs:        map[string]metadata.Ref{metadata.MainBranch: {SnapshotID: snapshotID, Type: metadata.RefBranch}},
	}
	for k, v := range o.Properties {
		md.Properties[k] = v
	}
	buf.Reset()
	if err := md.Write(&buf); err != nil {
		return "", err
	}
	path := filepath.Join(metaDir, "v1.metadata.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(metaDir, "version-hint.text"), []byte("1"), 0o644); err != nil {
		return "", err
	}
	return path, nil
}
