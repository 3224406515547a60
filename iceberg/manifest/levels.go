package manifest

import (
	"fmt"

	"github.com/twmb/avro"
)

// The records of manifest lists and manifests, by field id (spec tables
// "Manifest Lists" and "Manifests"), and the raw values they decode into
// before validation and inheritance.

// opt is a decoded value that may have been null or absent.
type opt struct {
	v  int64
	ok bool
}

func (o opt) ptr() *int64 {
	if !o.ok {
		return nil
	}
	v := o.v
	return &v
}

func setOpt[T any](get func(*T) *opt) fieldCompiler[T] {
	return longInto(func(d *T, v int64) { *get(d) = opt{v, true} })
}

type rawManifestFile struct {
	mf                                              ManifestFile
	specID, content, seq, minSeq, snapshotID, rowID opt
	counts                                          [6]opt // added, existing, deleted files; then rows
}

var summaryLevel = &level[FieldSummary]{
	what: "field_summary",
	fields: map[int]fieldCompiler[FieldSummary]{
		509: boolInto(func(s *FieldSummary, v bool) { s.ContainsNull = v }),
		518: boolInto(func(s *FieldSummary, v bool) { s.ContainsNaN = &v }),
		510: bytesInto(func(s *FieldSummary, v []byte) { s.LowerBound = v }),
		511: bytesInto(func(s *FieldSummary, v []byte) { s.UpperBound = v }),
	},
	byName:   map[string]int{"contains_null": 509, "contains_nan": 518, "lower_bound": 510, "upper_bound": 511},
	required: []int{509},
}

func countInto(i int) fieldCompiler[rawManifestFile] {
	return setOpt(func(d *rawManifestFile) *opt { return &d.counts[i] })
}

var manifestFileLevel = &level[rawManifestFile]{
	what: "manifest_file",
	fields: map[int]fieldCompiler[rawManifestFile]{
		500: stringInto(func(d *rawManifestFile, v string) { d.mf.Path = v }),
		501: longInto(func(d *rawManifestFile, v int64) { d.mf.Length = v }),
		502: setOpt(func(d *rawManifestFile) *opt { return &d.specID }),
		517: setOpt(func(d *rawManifestFile) *opt { return &d.content }),
		515: setOpt(func(d *rawManifestFile) *opt { return &d.seq }),
		516: setOpt(func(d *rawManifestFile) *opt { return &d.minSeq }),
		503: setOpt(func(d *rawManifestFile) *opt { return &d.snapshotID }),
		504: countInto(0), 505: countInto(1), 506: countInto(2),
		512: countInto(3), 513: countInto(4), 514: countInto(5),
		507: recordsInto(summaryLevel, func(d *rawManifestFile) *[]FieldSummary { return &d.mf.Partitions }),
		519: bytesInto(func(d *rawManifestFile, v []byte) { d.mf.KeyMetadata = v }),
		520: setOpt(func(d *rawManifestFile) *opt { return &d.rowID }),
	},
	byName: map[string]int{
		"manifest_path": 500, "manifest_length": 501, "partition_spec_id": 502, "content": 517,
		"sequence_number": 515, "min_sequence_number": 516, "added_snapshot_id": 503,
		"added_files_count": 504, "existing_files_count": 505, "deleted_files_count": 506,
		// Older Java named the file counts after data files.
		"added_data_files_count": 504, "existing_data_files_count": 505, "deleted_data_files_count": 506,
		"added_rows_count": 512, "existing_rows_count": 513, "deleted_rows_count": 514,
		"partitions": 507, "key_metadata": 519, "first_row_id": 520,
	},
	required: []int{500, 501, 502, 503},
}

type rawEntry struct {
	status, snapshotID, seq, fileSeq, content opt
	df                                        DataFile
	// metrics collects the metric maps of the entry, as Metrics.
	metrics *metricsBuilder
}

func dfLong(set func(*DataFile, int64)) fieldCompiler[rawEntry] {
	return longInto(func(e *rawEntry, v int64) { set(&e.df, v) })
}

var dataFileLevel = &level[rawEntry]{
	what: "data_file",
	fields: map[int]fieldCompiler[rawEntry]{
		134: setOpt(func(e *rawEntry) *opt { return &e.content }),
		100: stringInto(func(e *rawEntry, v string) { e.df.FilePath = v }),
		101: stringInto(func(e *rawEntry, v string) { e.df.FileFormat = v }),
		102: partitionInto,
		103: dfLong(func(d *DataFile, v int64) { d.RecordCount = v }),
		104: dfLong(func(d *DataFile, v int64) { d.FileSizeInBytes = v }),
		108: metricsInto(kindColumnSizes),
		109: metricsInto(kindValueCounts),
		110: metricsInto(kindNullCounts),
		137: metricsInto(kindNaNCounts),
		125: metricsInto(kindLowerBounds),
		128: metricsInto(kindUpperBounds),
		131: bytesInto(func(e *rawEntry, v []byte) { e.df.KeyMetadata = v }),
		132: longsInto(func(e *rawEntry) *[]int64 { return &e.df.SplitOffsets }),
		135: intsInto(func(e *rawEntry) *[]int { return &e.df.EqualityIDs }),
		140: dfLong(func(d *DataFile, v int64) { id := int(v); d.SortOrderID = &id }),
		142: dfLong(func(d *DataFile, v int64) { d.FirstRowID = &v }),
		143: stringInto(func(e *rawEntry, v string) { e.df.ReferencedDataFile = v }),
		144: dfLong(func(d *DataFile, v int64) { d.ContentOffset = &v }),
		145: dfLong(func(d *DataFile, v int64) { d.ContentSizeInBytes = &v }),
	},
	byName: map[string]int{
		"content": 134, "file_path": 100, "file_format": 101, "partition": 102, "record_count": 103,
		"file_size_in_bytes": 104, "column_sizes": 108, "value_counts": 109, "null_value_counts": 110,
		"nan_value_counts": 137, "lower_bounds": 125, "upper_bounds": 128, "key_metadata": 131,
		"split_offsets": 132, "equality_ids": 135, "sort_order_id": 140, "first_row_id": 142,
		"referenced_data_file": 143, "content_offset": 144, "content_size_in_bytes": 145,
	},
	required:       []int{100, 101, 102, 103, 104},
	partitionTuple: 102,
}

var manifestEntryLevel = &level[rawEntry]{
	what: "manifest_entry",
	fields: map[int]fieldCompiler[rawEntry]{
		0: setOpt(func(e *rawEntry) *opt { return &e.status }),
		1: setOpt(func(e *rawEntry) *opt { return &e.snapshotID }),
		3: setOpt(func(e *rawEntry) *opt { return &e.seq }),
		4: setOpt(func(e *rawEntry) *opt { return &e.fileSeq }),
		2: nested(dataFileLevel),
	},
	byName:   map[string]int{"status": 0, "snapshot_id": 1, "sequence_number": 3, "file_sequence_number": 4, "data_file": 2},
	required: []int{0, 2},
}

// partitionInto decodes the partition tuple (field 102), whose fields carry
// the partition field ids of the spec. Writers that predate those ids are
// matched by name, or by position when the arity is the spec's.
func partitionInto(n *avro.SchemaNode, s site) (fieldFn[rawEntry], error) {
	parts := s.parts
	if err := checkDepth(s.depth); err != nil {
		return nil, err
	}
	if n.Type != "record" {
		return nil, fmt.Errorf("the partition tuple is an Avro %s, not a record", n.Type)
	}
	anyID := false
	for i := range n.Fields {
		if _, ok, _ := fieldID(n.Fields[i].Props); ok {
			anyID = true
		}
	}
	slots := make([]int, len(n.Fields))
	values := make([]valueFn, len(n.Fields))
	taken := make([]bool, len(parts.ids))
	for i := range n.Fields {
		f := &n.Fields[i]
		id, hasID, err := fieldID(f.Props)
		if err != nil {
			return nil, fmt.Errorf("partition field %q: %w", f.Name, err)
		}
		slot := -1
		switch {
		case hasID:
			slot = indexOf(parts.ids, id)
		case !anyID:
			if slot = indexOf(parts.names, f.Name); slot < 0 && len(n.Fields) == len(parts.ids) {
				slot = i
			}
		}
		if slot < 0 {
			if hasID {
				return nil, fmt.Errorf("partition field %q has id %d, which the partition spec lacks (spec fields %v)", f.Name, id, parts.ids)
			}
			return nil, fmt.Errorf("partition field %q matches no field of the partition spec", f.Name)
		}
		if taken[slot] {
			return nil, fmt.Errorf("two partition fields map to spec field %d (%s)", parts.ids[slot], parts.names[slot])
		}
		taken[slot] = true
		slots[i] = slot
		if values[i], err = compileValue(&f.Type, s.path+"."+f.Name); err != nil {
			return nil, fmt.Errorf("partition field %q: %w", f.Name, err)
		}
	}
	return func(r *reader, e *rawEntry) error {
		for i, read := range values {
			v, err := read(r)
			if err != nil {
				return err
			}
			e.df.Partition[slots[i]] = v
		}
		return nil
	}, nil
}

func indexOf[T comparable](xs []T, x T) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}
