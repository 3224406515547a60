package manifest

import (
	"fmt"

	"github.com/floedb/floe/iceberg"
)

// avroEntry receives one manifest entry; tags are field ids (see
// readschema.go).
type avroEntry struct {
	Status             int32        `avro:"_0"`
	SnapshotID         *int64       `avro:"_1"`
	SequenceNumber     *int64       `avro:"_3"`
	FileSequenceNumber *int64       `avro:"_4"`
	DataFile           avroDataFile `avro:"_2"`
}

type avroDataFile struct {
	Content            *int32         `avro:"_134"`
	FilePath           string         `avro:"_100"`
	FileFormat         string         `avro:"_101"`
	Partition          map[string]any `avro:"_102"`
	RecordCount        int64          `avro:"_103"`
	FileSizeInBytes    int64          `avro:"_104"`
	ColumnSizes        []intLong      `avro:"_108"`
	ValueCounts        []intLong      `avro:"_109"`
	NullValueCounts    []intLong      `avro:"_110"`
	NaNValueCounts     []intLong      `avro:"_137"`
	LowerBounds        []intBytes     `avro:"_125"`
	UpperBounds        []intBytes     `avro:"_128"`
	KeyMetadata        []byte         `avro:"_131"`
	SplitOffsets       []int64        `avro:"_132"`
	EqualityIDs        []int32        `avro:"_135"`
	SortOrderID        *int32         `avro:"_140"`
	FirstRowID         *int64         `avro:"_142"`
	ReferencedDataFile *string        `avro:"_143"`
	ContentOffset      *int64         `avro:"_144"`
	ContentSizeInBytes *int64         `avro:"_145"`
}

type intLong struct {
	Key   int32 `avro:"_key"`
	Value int64 `avro:"_value"`
}

type intBytes struct {
	Key   int32  `avro:"_key"`
	Value []byte `avro:"_value"`
}

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
	f, err := openAvroFile(data, manifestEntryLevel, slots.matcher())
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", mf.Path, err)
	}
	defer f.close()
	if err := checkManifestHeader(f, mf, formatVersion); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", mf.Path, err)
	}
	inh := newInheritance(mf, formatVersion)
	var out []Entry
	for {
		var rec avroEntry
		ok, err := f.next(&rec)
		if err != nil {
			return nil, fmt.Errorf("manifest %s entry %d: %w", mf.Path, len(out), err)
		}
		if !ok {
			return out, nil
		}
		e, err := rec.toEntry(mf, slots)
		if err == nil {
			err = inh.apply(&e, rec.SequenceNumber, rec.FileSequenceNumber)
		}
		if err != nil {
			return nil, fmt.Errorf("manifest %s entry %d (%s): %w", mf.Path, len(out), rec.DataFile.FilePath, err)
		}
		out = append(out, e)
	}
}

// checkManifestHeader compares what a header has with the manifest list
// entry, so a list pointing at the wrong file fails loudly.
func checkManifestHeader(f *avroFile, mf ManifestFile, formatVersion int) error {
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
	keys  []string // decode names, see partitionSlotName
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
	l := &partitionLayout{ids: make([]int, n), names: make([]string, n), types: make([]iceberg.Type, n), keys: make([]string, n)}
	for i, pf := range spec.Fields {
		tf := partType.Fields[i]
		if tf.ID != pf.FieldID {
			return nil, fmt.Errorf("partition type field %d has id %d, spec field %q has id %d", i, tf.ID, pf.Name, pf.FieldID)
		}
		if tf.Type == nil {
			return nil, fmt.Errorf("partition type field %d (%s) has no type", tf.ID, tf.Name)
		}
		l.ids[i], l.names[i], l.types[i], l.keys[i] = pf.FieldID, pf.Name, tf.Type, partitionSlotName(i)
	}
	return l, nil
}

func (l *partitionLayout) matcher() *partitionMatcher {
	return &partitionMatcher{ids: l.ids, names: l.names}
}

func (r *avroEntry) toEntry(mf ManifestFile, slots *partitionLayout) (Entry, error) {
	if r.Status < 0 || r.Status > int32(StatusDeleted) {
		return Entry{}, fmt.Errorf("status %d is not 0, 1 or 2", r.Status)
	}
	df, err := r.DataFile.toDataFile(mf, slots)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{Status: EntryStatus(r.Status), DataFile: df}
	if r.SnapshotID != nil {
		e.SnapshotID = *r.SnapshotID
	} else {
		e.SnapshotID, e.SnapshotIDInherited = mf.AddedSnapshotID, true
	}
	return e, nil
}

func (d *avroDataFile) toDataFile(mf ManifestFile, slots *partitionLayout) (DataFile, error) {
	df := DataFile{
		FilePath:           d.FilePath,
		FileFormat:         d.FileFormat,
		SpecID:             mf.PartitionSpecID,
		RecordCount:        d.RecordCount,
		FileSizeInBytes:    d.FileSizeInBytes,
		ColumnSizes:        longMap(d.ColumnSizes),
		ValueCounts:        longMap(d.ValueCounts),
		NullValueCounts:    longMap(d.NullValueCounts),
		NaNValueCounts:     longMap(d.NaNValueCounts),
		LowerBounds:        bytesMap(d.LowerBounds),
		UpperBounds:        bytesMap(d.UpperBounds),
		KeyMetadata:        d.KeyMetadata,
		SplitOffsets:       d.SplitOffsets,
		FirstRowID:         d.FirstRowID,
		ContentOffset:      d.ContentOffset,
		ContentSizeInBytes: d.ContentSizeInBytes,
	}
	if d.FilePath == "" {
		return df, fmt.Errorf("empty file_path")
	}
	if d.RecordCount < 0 || d.FileSizeInBytes < 0 {
		return df, fmt.Errorf("negative record_count %d or file_size_in_bytes %d", d.RecordCount, d.FileSizeInBytes)
	}
	if d.Content != nil {
		if *d.Content < 0 || *d.Content > int32(ContentEqualityDeletes) {
			return df, fmt.Errorf("content %d is not 0, 1 or 2", *d.Content)
		}
		df.Content = FileContent(*d.Content)
	}
	if (df.Content == ContentData) != (mf.Content == ManifestContentData) {
		return df, fmt.Errorf("a %s file in a %s manifest", df.Content, mf.Content)
	}
	if len(df.KeyMetadata) == 0 {
		df.KeyMetadata = nil
	}
	if len(df.SplitOffsets) == 0 {
		df.SplitOffsets = nil
	}
	if len(d.EqualityIDs) > 0 {
		df.EqualityIDs = make([]int, len(d.EqualityIDs))
		for i, id := range d.EqualityIDs {
			df.EqualityIDs[i] = int(id)
		}
	}
	if d.SortOrderID != nil {
		id := int(*d.SortOrderID)
		df.SortOrderID = &id
	}
	if d.ReferencedDataFile != nil {
		df.ReferencedDataFile = *d.ReferencedDataFile
	}
	if df.Content != ContentData {
		// The spec: first_row_id is always null for delete files.
		df.FirstRowID = nil
	}
	if n := len(slots.keys); n > 0 {
		df.Partition = make([]any, n)
		for i, key := range slots.keys {
			v, err := partitionValue(slots.types[i], d.Partition[key])
			if err != nil {
				return df, fmt.Errorf("partition field %s (id %d): %w", slots.names[i], slots.ids[i], err)
			}
			df.Partition[i] = v
		}
	}
	return df, nil
}

func longMap(kvs []intLong) map[int]int64 {
	if len(kvs) == 0 {
		return nil
	}
	m := make(map[int]int64, len(kvs))
	for _, kv := range kvs {
		m[int(kv.Key)] = kv.Value
	}
	return m
}

func bytesMap(kvs []intBytes) map[int][]byte {
	if len(kvs) == 0 {
		return nil
	}
	m := make(map[int][]byte, len(kvs))
	for _, kv := range kvs {
		m[int(kv.Key)] = kv.Value
	}
	return m
}
