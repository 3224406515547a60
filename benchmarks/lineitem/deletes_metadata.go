package lineitem

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// readBaseDataFiles reads the plain table's data file entries from its
// current snapshot, to commit the same files in the derived tables.
func readBaseDataFiles(metadataPath string) ([]manifest.Entry, error) {
	raw, err := os.ReadFile(metadataPath)
	if err != nil {
		return nil, err
	}
	md, err := metadata.Parse(raw)
	if err != nil {
		return nil, err
	}
	snap := md.CurrentSnapshot()
	if snap == nil {
		return nil, errNoSnapshot
	}
	raw, err = os.ReadFile(snap.ManifestList)
	if err != nil {
		return nil, err
	}
	manifests, err := manifest.ReadManifestList(raw, md.FormatVersion)
	if err != nil {
		return nil, err
	}
	var out []manifest.Entry
	for _, mf := range manifests {
		if mf.Content != manifest.ManifestContentData {
			continue
		}
		raw, err := os.ReadFile(mf.Path)
		if err != nil {
			return nil, err
		}
		entries, err := manifest.ReadManifest(raw, mf, *md.DefaultSpec(), &iceberg.StructType{}, md.FormatVersion)
		if err != nil {
			return nil, err
		}
		out = append(out, entries...)
	}
	return out, nil
}

// writeDeleteTable writes one derived table in loc: snapshot 1 appends
// the plain table's data files (sequence number 1), snapshot 2 adds the
// delete files (sequence number 2, so equality deletes apply to the data).
func writeDeleteTable(kind DeleteKind, loc string, base *Table, data []manifest.Entry, picks []*filePicks) (*DeleteTable, error) {
	metaDir := filepath.Join(loc, "metadata")
	deleteDir := filepath.Join(loc, "data")
	for _, d := range []string{metaDir, deleteDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	version := 2
	if kind == DeletionVectors {
		version = 3
	}
	dt := &DeleteTable{Kind: kind, FormatVersion: version, Location: loc}
	var deletes []manifest.Entry
	var err error
	var dataRows, sum int64
	for _, fp := range picks {
		dataRows += fp.rows
		sum += fp.sumPartKey
	}
	dt.Expected = Expected{Rows: dataRows, SumPartKey: sum}
	switch kind {
	case PositionDeletes, DeletionVectors:
		if kind == PositionDeletes {
			deletes, err = writePositionDeletes(deleteDir, base.DataFiles, picks)
		} else {
			deletes, err = writeDeletionVectors(deleteDir, base.DataFiles, picks)
		}
		for _, fp := range picks {
			dt.DeletedRows += int64(len(fp.positions))
			dt.Expected.SumPartKey -= fp.positionSum
		}
	case EqualityDeletes:
		deletes, err = writeEqualityDeletes(deleteDir, picks)
		for _, fp := range picks {
			dt.DeletedRows += int64(len(fp.keys))
			dt.Expected.SumPartKey -= fp.equalitySum
		}
	default:
		err = fmt.Errorf("unknown delete kind %q", kind)
	}
	if err != nil {
		return nil, err
	}
	dt.Expected.Rows -= dt.DeletedRows
	dt.DeleteFiles = len(deletes)
	for _, e := range deletes {
		dt.DeleteRecords += e.DataFile.RecordCount
	}
	if kind == DeletionVectors {
		dt.DeleteFiles = 1 // one Puffin file holds every vector
	}

	id := tableIDs(stamp{Params: base.Params, Version: generatorVersion, Location: loc})
	id.location, id.createdMs = loc, time.Now().UnixMilli()
	dt.MetadataPath, err = writeTwoSnapshots(id, version, data, deletes, kind)
	if err != nil {
		return nil, err
	}
	return dt, nil
}

func writeManifestFile(path string, opts manifest.ManifestWriteOptions, entries []manifest.Entry) (manifest.ManifestFile, error) {
	var buf bytes.Buffer
	mf, err := manifest.WriteManifest(&buf, opts, entries)
	if err != nil {
		return mf, fmt.Errorf("writing %s: %w", filepath.Base(path), err)
	}
	mf.Path = path
	return mf, os.WriteFile(path, buf.Bytes(), 0o644)
}

func writeManifestList(path string, opts manifest.ManifestListWriteOptions, mfs []manifest.ManifestFile) ([]manifest.ManifestFile, int64, error) {
	var buf bytes.Buffer
	written, assigned, err := manifest.WriteManifestList(&buf, opts, mfs)
	if err != nil {
		return nil, 0, fmt.Errorf("writing %s: %w", filepath.Base(path), err)
	}
	return written, assigned, os.WriteFile(path, buf.Bytes(), 0o644)
}

func writeTwoSnapshots(tf tableFiles, version int, data, deletes []manifest.Entry, kind DeleteKind) (string, error) {
	schema := Schema()
	spec := iceberg.PartitionSpec{ID: 0}
	metaDir := filepath.Join(tf.location, "metadata")
	snap1, snap2 := tf.snapshotID, tf.snapshotID+1
	opts := manifest.ManifestWriteOptions{
		FormatVersion: version, Spec: spec, PartitionType: &iceberg.StructType{}, Schema: schema,
		Content: manifest.ManifestContentData, SnapshotID: snap1,
	}
	var dataRows, dataBytes, deleteRecords, deleteBytes int64
	dataEntries := make([]manifest.Entry, len(data))
	for i, e := range data {
		// Re-added by this table's first snapshot, sequence numbers
		// inherited from its manifest list.
		dataEntries[i] = manifest.Entry{Status: manifest.StatusAdded, DataFile: e.DataFile}
		dataEntries[i].DataFile.FirstRowID = nil
		dataRows += e.DataFile.RecordCount
		dataBytes += e.DataFile.FileSizeInBytes
	}
	dataMF, err := writeManifestFile(filepath.Join(metaDir, tf.uuid+"-m0.avro"), opts, dataEntries)
	if err != nil {
		return "", err
	}
	list1 := filepath.Join(metaDir, fmt.Sprintf("snap-%d-1-%s.avro", snap1, tf.uuid))
	listed, assigned, err := writeManifestList(list1, manifest.ManifestListWriteOptions{
		FormatVersion: version, SnapshotID: snap1, SequenceNumber: 1,
	}, []manifest.ManifestFile{dataMF})
	if err != nil {
		return "", err
	}

	opts.Content, opts.SnapshotID = manifest.ManifestContentDeletes, snap2
	deleteMF, err := writeManifestFile(filepath.Join(metaDir, tf.uuid+"-m1.avro"), opts, deletes)
	if err != nil {
		return "", err
	}
	uniqueFiles := map[string]bool{}
	for _, e := range deletes {
		deleteRecords += e.DataFile.RecordCount
		if !uniqueFiles[e.DataFile.FilePath] {
			uniqueFiles[e.DataFile.FilePath] = true
			deleteBytes += e.DataFile.FileSizeInBytes
		}
	}
	list2 := filepath.Join(metaDir, fmt.Sprintf("snap-%d-2-%s.avro", snap2, tf.uuid))
	parent := snap1
	if _, _, err := writeManifestList(list2, manifest.ManifestListWriteOptions{
		FormatVersion: version, SnapshotID: snap2, ParentSnapshotID: &parent, SequenceNumber: 2, FirstRowID: assigned,
	}, []manifest.ManifestFile{listed[0], deleteMF}); err != nil {
		return "", err
	}

	count := func(n int64) string { return strconv.FormatInt(n, 10) }
	posDeletes, eqDeletes := int64(0), int64(0)
	if kind == EqualityDeletes {
		eqDeletes = deleteRecords
	} else {
		posDeletes = deleteRecords
	}
	schemaID := schema.ID
	s1 := metadata.Snapshot{
		SnapshotID: snap1, SequenceNumber: 1, TimestampMs: tf.createdMs, ManifestList: list1, SchemaID: &schemaID,
		Summary: map[string]string{
			"operation": "append", "added-data-files": count(int64(len(data))), "added-records": count(dataRows),
			"added-files-size": count(dataBytes), "total-data-files": count(int64(len(data))), "total-records": count(dataRows),
			"total-files-size": count(dataBytes), "total-delete-files": "0", "total-position-deletes": "0", "total-equality-deletes": "0",
		},
	}
	s2 := metadata.Snapshot{
		SnapshotID: snap2, ParentSnapshotID: &parent, SequenceNumber: 2, TimestampMs: tf.createdMs + 1, ManifestList: list2, SchemaID: &schemaID,
		Summary: map[string]string{
			"operation": "delete", "added-delete-files": count(int64(len(uniqueFiles))),
			"added-position-deletes": count(posDeletes), "added-equality-deletes": count(eqDeletes),
			"added-files-size": count(deleteBytes), "total-data-files": count(int64(len(data))), "total-records": count(dataRows),
			"total-files-size": count(dataBytes + deleteBytes), "total-delete-files": count(int64(len(uniqueFiles))),
			"total-position-deletes": count(posDeletes), "total-equality-deletes": count(eqDeletes),
		},
	}
	md := &metadata.Metadata{
		FormatVersion: version, TableUUID: tf.uuid, Location: tf.location, LastSequenceNumber: 2,
		LastUpdatedMs: tf.createdMs + 1, LastColumnID: lastColumnID, Schemas: []*iceberg.Schema{schema}, CurrentSchemaID: schema.ID,
		PartitionSpecs: []iceberg.PartitionSpec{spec}, DefaultSpecID: spec.ID, LastPartitionID: iceberg.PartitionFieldIDStart - 1,
		SortOrders: []iceberg.SortOrder{{OrderID: sortOrderID, Fields: []iceberg.SortField{{
			SourceID: IDOrderKey, Transform: iceberg.IdentityTransform{}, Direction: "asc", NullOrder: "nulls-first",
		}}}},
		DefaultSortOrderID: sortOrderID,
		Properties: map[string]string{
			"write.format.default": "parquet", "write.parquet.compression-codec": "snappy",
			"write.delete.mode": "merge-on-read",
		},
		CurrentSnapshotID: &s2.SnapshotID,
		Snapshots:         []metadata.Snapshot{s1, s2},
		SnapshotLog: []metadata.SnapshotLogEntry{
			{SnapshotID: snap1, TimestampMs: tf.createdMs}, {SnapshotID: snap2, TimestampMs: tf.createdMs + 1},
		},
		Refs: map[string]metadata.Ref{metadata.MainBranch: {SnapshotID: snap2, Type: metadata.RefBranch}},
	}
	if version >= 3 {
		first1, added1, first2, added2 := int64(0), assigned, assigned, int64(0)
		md.Snapshots[0].FirstRowID, md.Snapshots[0].AddedRows = &first1, &added1
		md.Snapshots[1].FirstRowID, md.Snapshots[1].AddedRows = &first2, &added2
		md.NextRowID = assigned
	}
	var buf bytes.Buffer
	if err := md.Write(&buf); err != nil {
		return "", err
	}
	path := filepath.Join(metaDir, "v2.metadata.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return "", err
	}
	return path, os.WriteFile(filepath.Join(metaDir, "version-hint.text"), []byte("2"), 0o644)
}
