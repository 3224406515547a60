package manifest

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/floedb/floe/iceberg"
	"github.com/twmb/avro"
	"github.com/twmb/avro/ocf"
)

// ManifestWriteOptions describes the manifest being written.
type ManifestWriteOptions struct {
	FormatVersion int
	Spec          iceberg.PartitionSpec
	// PartitionType is Spec's partition type under Schema.
	PartitionType *iceberg.StructType
	// Schema is the table schema recorded in the header.
	Schema  *iceberg.Schema
	Content ManifestContent
	// SnapshotID is the snapshot committing the manifest; ADDED and DELETED
	// entries record it, as Java's ManifestWriter does. 0 leaves it null,
	// to be inherited from the manifest list's added_snapshot_id.
	SnapshotID int64
}

// v1BlockSize is what Java writes into v1's required block_size_in_bytes.
const v1BlockSize = 64 << 20

// WriteManifest writes entries as a manifest to w and returns its
// manifest-list entry with Path left empty for the caller to fill, Length
// the bytes written, SequenceNumber unassigned (WriteManifestList assigns
// it) and the counts and partition summaries computed from the entries.
//
// What each entry stores follows Java's ManifestWriter:
//   - ADDED: snapshot_id is opts.SnapshotID; the data sequence number is
//     null (inherited at commit) unless the entry carries an explicit one
//     (SequenceNumber > 0 and not SequenceNumberInherited); the file
//     sequence number is always null, since the commit assigns it.
//   - EXISTING: the entry's snapshot id and both sequence numbers.
//   - DELETED: opts.SnapshotID (or the entry's when that is 0) and both
//     sequence numbers.
//
// An unassigned (negative) file sequence number, or data sequence number
// of a DELETED entry, is written as null, as such entries were read.
//
// FirstRowID is written as given for data files (nil for new files) and
// never for delete files.
func WriteManifest(w io.Writer, opts ManifestWriteOptions, entries []Entry) (mf ManifestFile, err error) {
	if err := checkFormatVersion(opts.FormatVersion); err != nil {
		return ManifestFile{}, err
	}
	if opts.Content != ManifestContentData && opts.Content != ManifestContentDeletes {
		return ManifestFile{}, fmt.Errorf("unknown manifest content %d", opts.Content)
	}
	if opts.FormatVersion == 1 && opts.Content != ManifestContentData {
		return ManifestFile{}, errors.New("v1 tables have no delete files")
	}
	if opts.Schema == nil {
		return ManifestFile{}, errors.New("a manifest needs the table schema")
	}
	slots, err := partitionSlots(opts.Spec, opts.PartitionType)
	if err != nil {
		return ManifestFile{}, err
	}
	schemaJSON, err := manifestEntrySchema(opts.FormatVersion, opts.PartitionType)
	if err != nil {
		return ManifestFile{}, err
	}
	header, err := manifestHeader(opts)
	if err != nil {
		return ManifestFile{}, err
	}
	mw := &manifestWriter{opts: opts, slots: slots, stats: make([]partitionStats, len(slots.types))}
	for i, t := range slots.types {
		mw.stats[i].t = t
	}
	mf = ManifestFile{
		PartitionSpecID:   opts.Spec.ID,
		Content:           opts.Content,
		SequenceNumber:    UnassignedSequenceNumber,
		MinSequenceNumber: UnassignedSequenceNumber,
		AddedSnapshotID:   opts.SnapshotID,
	}
	counter := &countingWriter{w: w}
	err = writeOCF(counter, schemaJSON, header, func(out *ocf.Writer) error {
		for i := range entries {
			if err := mw.entry(&entries[i], &mf); err != nil {
				return fmt.Errorf("entry %d (%s): %w", i, entries[i].DataFile.FilePath, err)
			}
			if _, err := out.Write(mw.enc.buf); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return ManifestFile{}, err
	}
	mf.Length = counter.n
	if len(mw.stats) > 0 {
		mf.Partitions = make([]FieldSummary, len(mw.stats))
	}
	for i := range mw.stats {
		if mf.Partitions[i], err = mw.stats[i].summary(); err != nil {
			return ManifestFile{}, err
		}
	}
	return mf, nil
}

func manifestHeader(opts ManifestWriteOptions) (map[string][]byte, error) {
	schema, err := opts.Schema.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("table schema: %w", err)
	}
	fields, err := iceberg.MarshalPartitionFields(opts.Spec.Fields)
	if err != nil {
		return nil, fmt.Errorf("partition spec: %w", err)
	}
	h := map[string][]byte{
		"schema":            schema,
		"schema-id":         []byte(strconv.Itoa(opts.Schema.ID)),
		"partition-spec":    fields,
		"partition-spec-id": []byte(strconv.Itoa(opts.Spec.ID)),
		"format-version":    []byte(strconv.Itoa(opts.FormatVersion)),
	}
	if opts.FormatVersion >= 2 {
		h["content"] = []byte(opts.Content.String())
	}
	return h, nil
}

type manifestWriter struct {
	opts  ManifestWriteOptions
	slots *partitionLayout
	stats []partitionStats
	enc   encoder
}

// entry encodes one entry into mw.enc.buf and adds it to the counts.
func (mw *manifestWriter) entry(e *Entry, mf *ManifestFile) error {
	df := &e.DataFile
	version := mw.opts.FormatVersion
	if e.Status < StatusExisting || e.Status > StatusDeleted {
		return fmt.Errorf("unknown status %d", e.Status)
	}
	if (df.Content == ContentData) != (mw.opts.Content == ManifestContentData) || df.Content < ContentData || df.Content > ContentEqualityDeletes {
		return fmt.Errorf("a %s file cannot go into a %s manifest", df.Content, mw.opts.Content)
	}
	if df.FilePath == "" {
		return errors.New("empty file path")
	}
	if df.Content == ContentEqualityDeletes && len(df.EqualityIDs) == 0 {
		return errors.New("an equality delete file needs equality ids")
	}
	if (df.ContentOffset == nil) != (df.ContentSizeInBytes == nil) {
		return errors.New("content_offset and content_size_in_bytes go together")
	}
	if len(df.Partition) != len(mw.slots.types) {
		return fmt.Errorf("partition tuple has %d values, the spec %d fields", len(df.Partition), len(mw.slots.types))
	}

	snapshotID, seq, fileSeq, err := mw.storedTracking(e)
	if err != nil {
		return err
	}
	switch e.Status {
	case StatusAdded:
		mf.AddedFilesCount++
		mf.AddedRowsCount += df.RecordCount
	case StatusExisting:
		mf.ExistingFilesCount++
		mf.ExistingRowsCount += df.RecordCount
	case StatusDeleted:
		mf.DeletedFilesCount++
		mf.DeletedRowsCount += df.RecordCount
	}
	if e.Status != StatusDeleted && seq != nil && (mf.MinSequenceNumber == UnassignedSequenceNumber || *seq < mf.MinSequenceNumber) {
		mf.MinSequenceNumber = *seq
	}

	enc := &mw.enc
	enc.buf = enc.buf[:0]
	enc.int(int(e.Status))
	enc.optLong(snapshotID)
	if version >= 2 {
		enc.optLong(seq)
		enc.optLong(fileSeq)
		enc.int(int(df.Content))
	}
	enc.str(df.FilePath)
	enc.str(df.FileFormat)
	for i, t := range mw.slots.types {
		if err := enc.partitionValue(t, df.Partition[i]); err != nil {
			return fmt.Errorf("partition field %s: %w", mw.slots.names[i], err)
		}
		mw.stats[i].update(df.Partition[i])
	}
	enc.long(df.RecordCount)
	enc.long(df.FileSizeInBytes)
	if version == 1 {
		enc.long(v1BlockSize)
	}
	for k := range numMetricKinds {
		enc.optMetrics(df.Metrics, k)
	}
	enc.optBytes(df.KeyMetadata)
	enc.optLongs(df.SplitOffsets)
	if version >= 2 {
		enc.optInts(df.EqualityIDs)
	}
	enc.optInt(df.SortOrderID)
	positionDeletes := df.Content == ContentPositionDeletes
	if version >= 3 {
		if df.Content == ContentData {
			enc.optLong(df.FirstRowID)
		} else {
			enc.null()
		}
	}
	if version >= 2 {
		if positionDeletes {
			enc.optString(df.ReferencedDataFile)
		} else {
			enc.null()
		}
	}
	if version >= 3 {
		if positionDeletes {
			enc.optLong(df.ContentOffset)
			enc.optLong(df.ContentSizeInBytes)
		} else {
			enc.null()
			enc.null()
		}
	}
	return nil
}

// storedTracking decides the snapshot id and sequence numbers the file
// stores for an entry (nil = null).
func (mw *manifestWriter) storedTracking(e *Entry) (snapshotID, seq, fileSeq *int64, err error) {
	some := func(v int64) *int64 { return &v }
	if mw.opts.SnapshotID != 0 {
		snapshotID = some(mw.opts.SnapshotID)
	}
	switch e.Status {
	case StatusAdded:
		if !e.SequenceNumberInherited && e.SequenceNumber > 0 {
			seq = some(e.SequenceNumber)
		}
		return snapshotID, seq, nil, nil
	case StatusExisting:
		if e.SnapshotID == 0 {
			return nil, nil, nil, errors.New("an EXISTING entry needs its snapshot id")
		}
		snapshotID = some(e.SnapshotID)
	case StatusDeleted:
		if snapshotID == nil && e.SnapshotID != 0 {
			snapshotID = some(e.SnapshotID)
		}
	}
	if mw.opts.FormatVersion >= 2 {
		switch {
		case e.SequenceNumber >= 0:
			seq = some(e.SequenceNumber)
		case e.Status == StatusExisting:
			return nil, nil, nil, errors.New("EXISTING entries must store their data sequence number")
		}
		if e.FileSequenceNumber >= 0 {
			fileSeq = some(e.FileSequenceNumber)
		}
	}
	return snapshotID, seq, fileSeq, nil
}

// writeOCF writes an Avro object container file as Java does (deflate
// blocks) with the given schema and Iceberg header; body writes the
// records.
func writeOCF(w io.Writer, schemaJSON string, header map[string][]byte, body func(*ocf.Writer) error) error {
	schema, err := avro.Parse(schemaJSON)
	if err != nil {
		return fmt.Errorf("building the Avro schema: %w", err)
	}
	out, err := ocf.NewWriter(w, schema, ocf.WithCodec(newDeflateWriter()), ocf.WithMetadata(header))
	if err != nil {
		return err
	}
	if err := body(out); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
