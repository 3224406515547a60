package manifest

import (
	"errors"
	"fmt"
	"math"

	"github.com/floedb/floe/errkind"
)

// ReadManifestList decodes a manifest list (a snap-*.avro file) of a table
// with the given format version. Fields a v1 list lacks take the spec's
// defaults: content data, sequence numbers 0, and UnknownCount for null
// counts.
func ReadManifestList(data []byte, formatVersion int) (_ []ManifestFile, err error) {
	defer corruptUnlessKinded(&err)
	defer guard(&err)
	if err := checkFormatVersion(formatVersion); err != nil {
		return nil, err
	}
	c, err := parseContainer(data)
	if err != nil {
		return nil, fmt.Errorf("manifest list: %w", err)
	}
	if v, ok, err := c.headerInt("format-version"); err != nil {
		return nil, fmt.Errorf("manifest list: %w", err)
	} else if ok && (v < 1 || v > int64(formatVersion)) {
		return nil, fmt.Errorf("manifest list has format version %d in a v%d table", v, formatVersion)
	}
	schema := c.meta["avro.schema"]
	decode, err := cachedPlan(planKey("list", schema, nil), func() (fieldFn[rawManifestFile], error) {
		tree, err := schemaTree(schema)
		if err != nil {
			return nil, err
		}
		return manifestFileLevel.compile(tree, nil, 0)
	})
	if err != nil {
		return nil, fmt.Errorf("manifest list: %w", err)
	}
	var out []ManifestFile
	err = c.forEachBlock(func(count int, block []byte) error {
		r := &reader{buf: block}
		for range count {
			var raw rawManifestFile
			if err := decode(r, &raw); err != nil {
				return fmt.Errorf("manifest list entry %d: %w", len(out), err)
			}
			mf, err := raw.toManifestFile()
			if err != nil {
				return fmt.Errorf("manifest list entry %d (%s): %w", len(out), raw.mf.Path, err)
			}
			out = append(out, mf)
		}
		return checkBlockEnd(r)
	})
	return out, err
}

func checkBlockEnd(r *reader) error {
	if r.left() != 0 {
		return fmt.Errorf("%d bytes after the last record of an Avro block", r.left())
	}
	return nil
}

func (raw *rawManifestFile) toManifestFile() (ManifestFile, error) {
	mf := raw.mf
	if mf.Path == "" {
		return mf, errors.New("empty manifest_path")
	}
	if mf.Length < 0 {
		return mf, fmt.Errorf("negative manifest_length %d", mf.Length)
	}
	if !raw.specID.ok || raw.specID.v < 0 || raw.specID.v > math.MaxInt32 {
		return mf, fmt.Errorf("bad partition_spec_id %v", raw.specID)
	}
	mf.PartitionSpecID = int(raw.specID.v)
	if !raw.snapshotID.ok {
		return mf, errors.New("added_snapshot_id is null")
	}
	mf.AddedSnapshotID = raw.snapshotID.v
	if raw.content.ok {
		if raw.content.v < 0 || raw.content.v > int64(ManifestContentDeletes) {
			return mf, fmt.Errorf("content %d is neither 0 (data) nor 1 (deletes)", raw.content.v)
		}
		mf.Content = ManifestContent(raw.content.v)
	}
	mf.SequenceNumber, mf.MinSequenceNumber = raw.seq.v, raw.minSeq.v
	if mf.SequenceNumber < 0 || mf.MinSequenceNumber < 0 {
		return mf, errors.New("negative sequence number")
	}
	counts := make([]int64, len(raw.counts))
	for i, c := range raw.counts {
		switch {
		case !c.ok:
			counts[i] = UnknownCount
		case c.v < 0 || i < 3 && c.v > math.MaxInt32:
			return mf, fmt.Errorf("bad file or row count %d", c.v)
		default:
			counts[i] = c.v
		}
	}
	mf.AddedFilesCount, mf.ExistingFilesCount, mf.DeletedFilesCount = int(counts[0]), int(counts[1]), int(counts[2])
	mf.AddedRowsCount, mf.ExistingRowsCount, mf.DeletedRowsCount = counts[3], counts[4], counts[5]
	// The spec: first_row_id is always null for delete manifests.
	if mf.Content == ManifestContentData {
		mf.FirstRowID = raw.rowID.ptr()
	}
	if len(mf.Partitions) == 0 {
		mf.Partitions = nil
	}
	if len(mf.KeyMetadata) == 0 {
		mf.KeyMetadata = nil
	}
	return mf, nil
}

func checkFormatVersion(v int) error {
	if v < 1 || v > 3 {
		return errkind.Errorf(errkind.Unsupported, "unsupported table format version %d (floe reads versions 1 to 3)", v)
	}
	return nil
}
