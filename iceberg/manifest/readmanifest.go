package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/floedb/floe/iceberg"
)

// ReadManifest decodes a manifest (a *-m*.avro file) listed by mf, whose
// partition spec is spec with partition type partType (the spec's
// PartitionType under the table schema). Everything the manifest's own
// Avro header would say is taken from the caller instead, because copies
// rewritten by avro-tools lose that header.
//
// Entries come back with inheritance applied (see Entry): a null
// snapshot_id becomes mf.AddedSnapshotID; null sequence numbers of ADDED
// entries become mf.SequenceNumber (and every null is 0 when the manifest's
// sequence number is 0, as for v1); in v3, data files with a null
// first_row_id in a manifest with a first_row_id get consecutive ids.
func ReadManifest(data []byte, mf ManifestFile, spec iceberg.PartitionSpec, partType *iceberg.StructType, formatVersion int) (_ []Entry, err error) {
	defer corruptUnlessKinded(&err)
	defer guard(&err)
	if err := checkFormatVersion(formatVersion); err != nil {
		return nil, err
	}
	slots, err := partitionSlots(spec, partType)
	if err != nil {
		return nil, err
	}
	if spec.ID != mf.PartitionSpecID {
		return nil, fmt.Errorf("manifest %s uses partition spec %d, but spec %d was given", mf.Path, mf.PartitionSpecID, spec.ID)
	}
	c, err := parseContainer(data)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", mf.Path, err)
	}
	if err := checkManifestHeader(c, mf, formatVersion); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", mf.Path, err)
	}
	schema := c.meta["avro.schema"]
	decode, err := cachedPlan(planKey("entry", schema, slots), func() (fieldFn[rawEntry], error) {
		tree, err := schemaTree(schema)
		if err != nil {
			return nil, err
		}
		return manifestEntryLevel.compile(tree, slots, 0)
	})
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", mf.Path, err)
	}
	inh := newInheritance(mf, formatVersion)
	var out []Entry
	if n := mf.AddedFilesCount + mf.ExistingFilesCount + mf.DeletedFilesCount; n > 0 && mf.AddedFilesCount >= 0 && mf.ExistingFilesCount >= 0 && mf.DeletedFilesCount >= 0 {
		// The list's counts size the entries once, rather than growing them
		// block by block; a wrong count costs a regrowth, and the bytes
		// bound what a hostile one allocates: at most one 272-byte Entry per
		// 16 bytes of manifest (the planning benchmark's take 69, deflated),
		// not one per byte, which let a lying count on a 10 MB file
		// allocate 2.7 GB before decoding anything.
		out = make([]Entry, 0, min(n, len(data)/16+1))
	}
	var metrics metricsBuilder
	scratch := blockBuffers.Get().(*[]byte)
	defer putBlockBuffer(scratch)
	err = c.forEachBlockIn(scratch, func(count int, block []byte) error {
		out = slices.Grow(out, count)
		r := &reader{buf: block}
		for range count {
			raw := rawEntry{metrics: &metrics}
			metrics.reset()
			if n := len(slots.types); n > 0 {
				raw.df.Partition = make([]any, n)
			}
			e, err := raw.decode(r, decode, mf, slots, inh)
			if err != nil {
				if raw.df.FilePath == "" { // not read yet, or null
					return fmt.Errorf("manifest %s entry %d: %w", mf.Path, len(out), err)
				}
				return fmt.Errorf("manifest %s entry %d (%s): %w", mf.Path, len(out), raw.df.FilePath, err)
			}
			out = append(out, e)
		}
		return checkBlockEnd(r)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkManifestHeader compares what a header has with the manifest list
// entry, so a list pointing at the wrong file fails loudly.
func checkManifestHeader(f *container, mf ManifestFile, formatVersion int) error {
	if v, ok, err := f.headerInt("format-version"); err != nil {
		return err
	} else if ok && (v < 1 || v > int64(formatVersion)) {
		return fmt.Errorf("format version %d in a v%d table", v, formatVersion)
	}
	if id, ok, err := f.headerInt("partition-spec-id"); err != nil {
		return err
	} else if ok && id != int64(mf.PartitionSpecID) {
		return fmt.Errorf("header says partition spec %d, the manifest list says %d", id, mf.PartitionSpecID)
	}
	if c, ok := f.meta["content"]; ok && string(c) != mf.Content.String() {
		return fmt.Errorf("header says content %q, the manifest list says %q", c, mf.Content)
	}
	return nil
}

// partitionLayout knows the spec's partition fields and their types.
type partitionLayout struct {
	ids   []int
	names []string
	types []iceberg.Type
}

func partitionSlots(spec iceberg.PartitionSpec, partType *iceberg.StructType) (*partitionLayout, error) {
	n := len(spec.Fields)
	if partType == nil {
		if n > 0 {
			return nil, fmt.Errorf("partition spec %d has %d fields but no partition type was given", spec.ID, n)
		}
		partType = &iceberg.StructType{}
	}
	if len(partType.Fields) != n {
		return nil, fmt.Errorf("partition type has %d fields, partition spec %d has %d", len(partType.Fields), spec.ID, n)
	}
	l := &partitionLayout{ids: make([]int, n), names: make([]string, n), types: make([]iceberg.Type, n)}
	for i, pf := range spec.Fields {
		tf := partType.Fields[i]
		if tf.ID != pf.FieldID {
			return nil, fmt.Errorf("partition type field %d has id %d, spec field %q has id %d", i, tf.ID, pf.Name, pf.FieldID)
		}
		if tf.Type == nil {
			return nil, fmt.Errorf("partition type field %d (%s) has no type", tf.ID, tf.Name)
		}
		l.ids[i], l.names[i], l.types[i] = pf.FieldID, pf.Name, tf.Type
	}
	return l, nil
}

func (raw *rawEntry) decode(r *reader, decode fieldFn[rawEntry], mf ManifestFile, slots *partitionLayout, inh *inheritance) (Entry, error) {
	if err := decode(r, raw); err != nil {
		return Entry{}, err
	}
	e, err := raw.toEntry(mf, slots)
	if err != nil {
		return Entry{}, err
	}
	return e, inh.apply(&e, raw.seq.ptr(), raw.fileSeq.ptr())
}

func (raw *rawEntry) toEntry(mf ManifestFile, slots *partitionLayout) (Entry, error) {
	if !raw.status.ok || raw.status.v < 0 || raw.status.v > int64(StatusDeleted) {
		return Entry{}, fmt.Errorf("status %v is not 0, 1 or 2", raw.status)
	}
	e := Entry{Status: EntryStatus(raw.status.v), DataFile: raw.df}
	e.DataFile.Metrics = raw.metrics.finish()
	if raw.snapshotID.ok {
		e.SnapshotID = raw.snapshotID.v
	} else {
		e.SnapshotID, e.SnapshotIDInherited = mf.AddedSnapshotID, true
	}
	df := &e.DataFile
	df.SpecID = mf.PartitionSpecID
	if df.FilePath == "" {
		return e, errors.New("empty file_path")
	}
	if df.RecordCount < 0 || df.FileSizeInBytes < 0 {
		return e, fmt.Errorf("negative record_count %d or file_size_in_bytes %d", df.RecordCount, df.FileSizeInBytes)
	}
	if raw.content.ok {
		if raw.content.v < 0 || raw.content.v > int64(ContentEqualityDeletes) {
			return e, fmt.Errorf("content %d is not 0, 1 or 2", raw.content.v)
		}
		df.Content = FileContent(raw.content.v)
	}
	if (df.Content == ContentData) != (mf.Content == ManifestContentData) {
		return e, fmt.Errorf("a %s file in a %s manifest", df.Content, mf.Content)
	}
	if len(df.KeyMetadata) == 0 {
		df.KeyMetadata = nil
	} else {
		df.KeyMetadata = bytes.Clone(df.KeyMetadata) // the block is reused
	}
	if len(df.SplitOffsets) == 0 {
		df.SplitOffsets = nil
	}
	if len(df.EqualityIDs) == 0 {
		df.EqualityIDs = nil
	}
	if df.Content != ContentData {
		// The spec: first_row_id is always null for delete files.
		df.FirstRowID = nil
	}
	for i, v := range df.Partition {
		var err error
		if df.Partition[i], err = partitionValue(slots.types[i], v); err != nil {
			return e, fmt.Errorf("partition field %s (id %d): %w", slots.names[i], slots.ids[i], err)
		}
		if b, ok := df.Partition[i].([]byte); ok {
			df.Partition[i] = bytes.Clone(b) // the block is reused
		}
	}
	return e, nil
}

// blockBuffers hold decompressed manifest blocks between reads: entries
// copy everything they keep out of a block (strings, metrics into their
// arena, key metadata and binary partition values cloned), so a block is
// garbage once decoded and its buffer serves the next manifest.
var blockBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBlock is the largest buffer kept for reuse: manifest blocks
// are a few hundred KiB decompressed; a rare huge one is let go.
const maxPooledBlock = 4 << 20

func putBlockBuffer(b *[]byte) {
	if cap(*b) <= maxPooledBlock {
		*b = (*b)[:0]
		blockBuffers.Put(b)
	}
}
