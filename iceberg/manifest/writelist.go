package manifest

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/twmb/avro/ocf"
)

// ManifestListWriteOptions describes the snapshot whose manifest list is
// being written.
type ManifestListWriteOptions struct {
	FormatVersion    int
	SnapshotID       int64
	ParentSnapshotID *int64
	// SequenceNumber is the snapshot's sequence number (v2+).
	SequenceNumber int64
	// FirstRowID is the snapshot's first-row-id, the table's next-row-id
	// (v3).
	FirstRowID int64
}

// WriteManifestList writes a snapshot's manifest list and returns the
// entries as written, with what the commit assigns filled in:
//   - SequenceNumber and MinSequenceNumber still unassigned become the
//     snapshot's sequence number; such a manifest must have been added by
//     this snapshot (AddedSnapshotID equal to SnapshotID, or 0 which is
//     taken to mean this snapshot).
//   - In v3, each data manifest without a FirstRowID gets the next row id,
//     which then advances by its added and existing row counts (existing
//     data files may have no row ids yet). The second result is the number
//     of row ids assigned: the snapshot's added-rows, to add to the
//     table's next-row-id.
func WriteManifestList(w io.Writer, opts ManifestListWriteOptions, manifests []ManifestFile) (_ []ManifestFile, assignedRows int64, err error) {
	if err := checkFormatVersion(opts.FormatVersion); err != nil {
		return nil, 0, err
	}
	if opts.SnapshotID == 0 {
		return nil, 0, errors.New("a manifest list needs its snapshot id")
	}
	version := opts.FormatVersion
	header := map[string][]byte{
		"snapshot-id":        []byte(strconv.FormatInt(opts.SnapshotID, 10)),
		"parent-snapshot-id": []byte("null"),
		"format-version":     []byte(strconv.Itoa(version)),
	}
	if opts.ParentSnapshotID != nil {
		header["parent-snapshot-id"] = []byte(strconv.FormatInt(*opts.ParentSnapshotID, 10))
	}
	if version >= 2 {
		header["sequence-number"] = []byte(strconv.FormatInt(opts.SequenceNumber, 10))
	}
	if version >= 3 {
		header["first-row-id"] = []byte(strconv.FormatInt(opts.FirstRowID, 10))
	}

	written := make([]ManifestFile, len(manifests))
	nextRowID := opts.FirstRowID
	var enc encoder
	err = writeOCF(w, manifestListSchema(version), header, func(out *ocf.Writer) error {
		for i, m := range manifests {
			if err := assignCommitValues(&m, opts, &nextRowID); err != nil {
				return fmt.Errorf("manifest %d (%s): %w", i, m.Path, err)
			}
			enc.buf = enc.buf[:0]
			if err := enc.manifestFile(&m, version); err != nil {
				return fmt.Errorf("manifest %d (%s): %w", i, m.Path, err)
			}
			if _, err := out.Write(enc.buf); err != nil {
				return err
			}
			written[i] = m
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return written, nextRowID - opts.FirstRowID, nil
}

func assignCommitValues(m *ManifestFile, opts ManifestListWriteOptions, nextRowID *int64) error {
	if m.AddedSnapshotID == 0 {
		m.AddedSnapshotID = opts.SnapshotID
	}
	if opts.FormatVersion == 1 {
		return nil
	}
	unassigned := m.SequenceNumber == UnassignedSequenceNumber || m.MinSequenceNumber == UnassignedSequenceNumber
	if unassigned && m.AddedSnapshotID != opts.SnapshotID {
		return fmt.Errorf("unassigned sequence number in a manifest of snapshot %d, not this snapshot %d", m.AddedSnapshotID, opts.SnapshotID)
	}
	if m.SequenceNumber == UnassignedSequenceNumber {
		m.SequenceNumber = opts.SequenceNumber
	}
	if m.MinSequenceNumber == UnassignedSequenceNumber {
		m.MinSequenceNumber = opts.SequenceNumber
	}
	if m.SequenceNumber < 0 || m.MinSequenceNumber < 0 {
		return errors.New("negative sequence number")
	}
	if m.Content != ManifestContentData {
		m.FirstRowID = nil
	}
	if opts.FormatVersion >= 3 && m.Content == ManifestContentData && m.FirstRowID == nil {
		if m.AddedRowsCount < 0 || m.ExistingRowsCount < 0 {
			return errors.New("row ids cannot be assigned without added and existing row counts")
		}
		id := *nextRowID
		m.FirstRowID = &id
		*nextRowID += m.AddedRowsCount + m.ExistingRowsCount
	}
	return nil
}

// manifestFile encodes a manifest_file record of a format version.
func (e *encoder) manifestFile(m *ManifestFile, version int) error {
	if m.Path == "" {
		return errors.New("empty manifest path")
	}
	if m.Content != ManifestContentData && m.Content != ManifestContentDeletes {
		return fmt.Errorf("unknown manifest content %d", m.Content)
	}
	if version == 1 && m.Content != ManifestContentData {
		return errors.New("v1 manifest lists hold only data manifests")
	}
	e.str(m.Path)
	e.long(m.Length)
	e.int(m.PartitionSpecID)
	if version == 1 {
		e.long(m.AddedSnapshotID)
		e.optCount(int64(m.AddedFilesCount))
		e.optCount(int64(m.ExistingFilesCount))
		e.optCount(int64(m.DeletedFilesCount))
		e.summaries(m.Partitions)
		e.optCount(m.AddedRowsCount)
		e.optCount(m.ExistingRowsCount)
		e.optCount(m.DeletedRowsCount)
		e.optBytes(m.KeyMetadata)
		return nil
	}
	e.int(int(m.Content))
	e.long(m.SequenceNumber)
	e.long(m.MinSequenceNumber)
	e.long(m.AddedSnapshotID)
	for _, n := range []int64{int64(m.AddedFilesCount), int64(m.ExistingFilesCount), int64(m.DeletedFilesCount),
		m.AddedRowsCount, m.ExistingRowsCount, m.DeletedRowsCount} {
		if n < 0 {
			return fmt.Errorf("v%d manifest lists need every file and row count", version)
		}
		e.long(n)
	}
	e.summaries(m.Partitions)
	e.optBytes(m.KeyMetadata)
	if version >= 3 {
		e.optLong(m.FirstRowID)
	}
	return nil
}

// optCount writes a v1 optional count; UnknownCount is null.
func (e *encoder) optCount(n int64) {
	if n < 0 {
		e.null()
		return
	}
	e.present()
	e.long(n)
}

// summaries writes the partition field summaries; Java writes an empty
// list for unpartitioned manifests.
func (e *encoder) summaries(fs []FieldSummary) {
	e.present()
	e.arrayStart(len(fs))
	for _, s := range fs {
		e.boolean(s.ContainsNull)
		e.optBool(s.ContainsNaN)
		e.optBytes(s.LowerBound)
		e.optBytes(s.UpperBound)
	}
	e.arrayEnd()
}
