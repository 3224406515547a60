package manifest

import "fmt"

// avroManifestFile receives one manifest-list record; pointers tell a null
// (or a field the writer's version lacks) from a zero.
type avroManifestFile struct {
	Path               string             `avro:"manifest_path"`
	Length             int64              `avro:"manifest_length"`
	SpecID             int32              `avro:"partition_spec_id"`
	Content            *int32             `avro:"content"`
	SequenceNumber     *int64             `avro:"sequence_number"`
	MinSequenceNumber  *int64             `avro:"min_sequence_number"`
	AddedSnapshotID    *int64             `avro:"added_snapshot_id"`
	AddedFilesCount    *int32             `avro:"added_files_count"`
	ExistingFilesCount *int32             `avro:"existing_files_count"`
	DeletedFilesCount  *int32             `avro:"deleted_files_count"`
	AddedRowsCount     *int64             `avro:"added_rows_count"`
	ExistingRowsCount  *int64             `avro:"existing_rows_count"`
	DeletedRowsCount   *int64             `avro:"deleted_rows_count"`
	Partitions         []avroFieldSummary `avro:"partitions"`
	KeyMetadata        []byte             `avro:"key_metadata"`
	FirstRowID         *int64             `avro:"first_row_id"`
}

type avroFieldSummary struct {
	ContainsNull bool   `avro:"contains_null"`
	ContainsNaN  *bool  `avro:"contains_nan"`
	LowerBound   []byte `avro:"lower_bound"`
	UpperBound   []byte `avro:"upper_bound"`
}

// ReadManifestList decodes a manifest list (a snap-*.avro file) of a table
// with the given format version. Fields a v1 list lacks take the spec's
// defaults: content data, sequence numbers 0, and UnknownCount for null
// counts.
func ReadManifestList(data []byte, formatVersion int) (_ []ManifestFile, err error) {
	defer guard(&err)
	if err := checkFormatVersion(formatVersion); err != nil {
		return nil, err
	}
	f, err := openAvroFile(data, manifestFileLevel, nil)
	if err != nil {
		return nil, err
	}
	defer f.close()
	if v, ok, err := f.headerInt("format-version"); err != nil {
		return nil, fmt.Errorf("manifest list: %w", err)
	} else if ok && (v < 1 || v > int64(formatVersion)) {
		return nil, fmt.Errorf("manifest list has format version %d in a v%d table", v, formatVersion)
	}
	var out []ManifestFile
	for {
		var rec avroManifestFile
		ok, err := f.next(&rec)
		if err != nil {
			return nil, fmt.Errorf("manifest list entry %d: %w", len(out), err)
		}
		if !ok {
			return out, nil
		}
		mf, err := rec.toManifestFile()
		if err != nil {
			return nil, fmt.Errorf("manifest list entry %d (%s): %w", len(out), rec.Path, err)
		}
		out = append(out, mf)
	}
}

func (r *avroManifestFile) toManifestFile() (ManifestFile, error) {
	mf := ManifestFile{
		Path:               r.Path,
		Length:             r.Length,
		PartitionSpecID:    int(r.SpecID),
		SequenceNumber:     orZero(r.SequenceNumber),
		MinSequenceNumber:  orZero(r.MinSequenceNumber),
		AddedFilesCount:    countOrUnknown(r.AddedFilesCount),
		ExistingFilesCount: countOrUnknown(r.ExistingFilesCount),
		DeletedFilesCount:  countOrUnknown(r.DeletedFilesCount),
		AddedRowsCount:     rowsOrUnknown(r.AddedRowsCount),
		ExistingRowsCount:  rowsOrUnknown(r.ExistingRowsCount),
		DeletedRowsCount:   rowsOrUnknown(r.DeletedRowsCount),
		KeyMetadata:        r.KeyMetadata,
		FirstRowID:         r.FirstRowID,
	}
	if r.Path == "" {
		return mf, fmt.Errorf("empty manifest_path")
	}
	if r.Length < 0 {
		return mf, fmt.Errorf("negative manifest_length %d", r.Length)
	}
	if r.AddedSnapshotID == nil {
		return mf, fmt.Errorf("added_snapshot_id is null")
	}
	mf.AddedSnapshotID = *r.AddedSnapshotID
	if r.Content != nil {
		if *r.Content < 0 || *r.Content > int32(ManifestContentDeletes) {
			return mf, fmt.Errorf("content %d is neither 0 (data) nor 1 (deletes)", *r.Content)
		}
		mf.Content = ManifestContent(*r.Content)
	}
	if mf.Content == ManifestContentDeletes {
		// The spec: first_row_id is always null for delete manifests.
		mf.FirstRowID = nil
	}
	if len(r.Partitions) > 0 {
		mf.Partitions = make([]FieldSummary, len(r.Partitions))
		for i, s := range r.Partitions {
			mf.Partitions[i] = FieldSummary(s)
		}
	}
	if len(mf.KeyMetadata) == 0 {
		mf.KeyMetadata = nil
	}
	return mf, nil
}

func checkFormatVersion(v int) error {
	if v < 1 || v > 3 {
		return fmt.Errorf("unsupported table format version %d (floe reads versions 1 to 3)", v)
	}
	return nil
}

func orZero(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func countOrUnknown(p *int32) int {
	if p == nil {
		return UnknownCount
	}
	return int(*p)
}

func rowsOrUnknown(p *int64) int64 {
	if p == nil {
		return UnknownCount
	}
	return *p
}
