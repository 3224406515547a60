package manifest

import "fmt"

// avroManifestFile receives one manifest-list record. Tags are field ids
// (see readschema.go); pointers tell a null, or a field the writer's
// version lacks, from a zero.
type avroManifestFile struct {
	Path               string             `avro:"_500"`
	Length             int64              `avro:"_501"`
	SpecID             int32              `avro:"_502"`
	Content            *int32             `avro:"_517"`
	SequenceNumber     *int64             `avro:"_515"`
	MinSequenceNumber  *int64             `avro:"_516"`
	AddedSnapshotID    *int64             `avro:"_503"`
	AddedFilesCount    *int32             `avro:"_504"`
	ExistingFilesCount *int32             `avro:"_505"`
	DeletedFilesCount  *int32             `avro:"_506"`
	AddedRowsCount     *int64             `avro:"_512"`
	ExistingRowsCount  *int64             `avro:"_513"`
	DeletedRowsCount   *int64             `avro:"_514"`
	Partitions         []avroFieldSummary `avro:"_507"`
	KeyMetadata        []byte             `avro:"_519"`
	FirstRowID         *int64             `avro:"_520"`
}

type avroFieldSummary struct {
	ContainsNull bool   `avro:"_509"`
	ContainsNaN  *bool  `avro:"_518"`
	LowerBound   []byte `avro:"_510"`
	UpperBound   []byte `avro:"_511"`
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
