package inspect

import (
	"strings"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// dataFileFields are the columns of a content file as Java's DataFile
// declares them (names, ids, order, required-ness), with partition (id
// 102) in the table's unified partition type: the files tables' columns
// and the entries tables' data_file struct. Java's columns after
// sort_order_id (first_row_id, referenced_data_file, content_offset,
// content_size_in_bytes) are v3's; pyiceberg stops at sort_order_id. A
// table never partitioned has no partition column, as in Java (an empty
// struct is not always supported).
func dataFileFields(partType *iceberg.StructType) []iceberg.NestedField {
	intLong := func(k, v int) *iceberg.MapType {
		return &iceberg.MapType{KeyID: k, Key: iceberg.IntType{}, ValueID: v, Value: iceberg.LongType{}, ValueRequired: true}
	}
	intBin := func(k, v int) *iceberg.MapType {
		return &iceberg.MapType{KeyID: k, Key: iceberg.IntType{}, ValueID: v, Value: iceberg.BinaryType{}, ValueRequired: true}
	}
	out := []iceberg.NestedField{
		{ID: 134, Name: "content", Type: iceberg.IntType{}},
		{ID: 100, Name: "file_path", Type: iceberg.StringType{}, Required: true},
		{ID: 101, Name: "file_format", Type: iceberg.StringType{}, Required: true},
		{ID: 141, Name: "spec_id", Type: iceberg.IntType{}},
	}
	if len(partType.Fields) > 0 {
		out = append(out, iceberg.NestedField{ID: 102, Name: "partition", Type: partType, Required: true})
	}
	return append(out,
		iceberg.NestedField{ID: 103, Name: "record_count", Type: iceberg.LongType{}, Required: true},
		iceberg.NestedField{ID: 104, Name: "file_size_in_bytes", Type: iceberg.LongType{}, Required: true},
		iceberg.NestedField{ID: 108, Name: "column_sizes", Type: intLong(117, 118)},
		iceberg.NestedField{ID: 109, Name: "value_counts", Type: intLong(119, 120)},
		iceberg.NestedField{ID: 110, Name: "null_value_counts", Type: intLong(121, 122)},
		iceberg.NestedField{ID: 137, Name: "nan_value_counts", Type: intLong(138, 139)},
		iceberg.NestedField{ID: 125, Name: "lower_bounds", Type: intBin(126, 127)},
		iceberg.NestedField{ID: 128, Name: "upper_bounds", Type: intBin(129, 130)},
		iceberg.NestedField{ID: 131, Name: "key_metadata", Type: iceberg.BinaryType{}},
		iceberg.NestedField{ID: 132, Name: "split_offsets", Type: &iceberg.ListType{ElementID: 133, Element: iceberg.LongType{}, ElementRequired: true}},
		iceberg.NestedField{ID: 135, Name: "equality_ids", Type: &iceberg.ListType{ElementID: 136, Element: iceberg.IntType{}, ElementRequired: true}},
		iceberg.NestedField{ID: 140, Name: "sort_order_id", Type: iceberg.IntType{}},
		iceberg.NestedField{ID: 142, Name: "first_row_id", Type: iceberg.LongType{}},
		iceberg.NestedField{ID: 143, Name: "referenced_data_file", Type: iceberg.StringType{}},
		iceberg.NestedField{ID: 144, Name: "content_offset", Type: iceberg.LongType{}},
		iceberg.NestedField{ID: 145, Name: "content_size_in_bytes", Type: iceberg.LongType{}},
	)
}

// fileLayout turns a manifest's content files into rows of
// dataFileFields: where each spec's partition values go in the unified
// partition struct.
type fileLayout struct {
	partType *iceberg.StructType
	// slots[spec id][i] is the unified position of the spec's i-th field.
	slots map[int][]int
}

func newFileLayout(t *table.Table) (*fileLayout, error) {
	pt, err := t.UnifiedPartitionType()
	if err != nil {
		return nil, err
	}
	l := &fileLayout{partType: pt, slots: map[int][]int{}}
	pos := map[int]int{}
	for i, f := range pt.Fields {
		pos[f.ID] = i
	}
	for _, spec := range t.Metadata.PartitionSpecs {
		s := make([]int, len(spec.Fields))
		for i, pf := range spec.Fields {
			s[i] = pos[pf.FieldID]
		}
		l.slots[spec.ID] = s
	}
	return l, nil
}

// row is df's values in dataFileFields' order, the metric maps null
// unless maps (they are costly, and a read may not want them).
func (l *fileLayout) row(df *manifest.DataFile, maps bool) []any {
	row := make([]any, 0, 21)
	var sortOrder, firstRow, ref, offset, size any
	if df.SortOrderID != nil {
		sortOrder = int32(*df.SortOrderID)
	}
	if df.FirstRowID != nil {
		firstRow = *df.FirstRowID
	}
	if df.ReferencedDataFile != "" {
		ref = df.ReferencedDataFile
	}
	if df.ContentOffset != nil {
		offset = *df.ContentOffset
	}
	if df.ContentSizeInBytes != nil {
		size = *df.ContentSizeInBytes
	}
	// Java shows the format as its enum names it; writers spell it
	// either way.
	row = append(row, int32(df.Content), df.FilePath, strings.ToUpper(df.FileFormat), int32(df.SpecID))
	if len(l.partType.Fields) > 0 {
		row = append(row, l.partition(df))
	}
	row = append(row, df.RecordCount, df.FileSizeInBytes)
	if maps {
		m := df.Metrics
		row = append(row, countMap(m.ColumnSizes()), countMap(m.ValueCounts()), countMap(m.NullCounts()),
			countMap(m.NaNCounts()), boundMap(m.LowerBounds()), boundMap(m.UpperBounds()))
	} else {
		row = append(row, nil, nil, nil, nil, nil, nil)
	}
	var key, splits, eqIDs any
	if len(df.KeyMetadata) > 0 {
		key = df.KeyMetadata
	}
	if len(df.SplitOffsets) > 0 {
		s := make([]any, len(df.SplitOffsets))
		for i, o := range df.SplitOffsets {
			s[i] = o
		}
		splits = s
	}
	if len(df.EqualityIDs) > 0 {
		s := make([]any, len(df.EqualityIDs))
		for i, id := range df.EqualityIDs {
			s[i] = int32(id)
		}
		eqIDs = s
	}
	return append(row, key, splits, eqIDs, sortOrder, firstRow, ref, offset, size)
}

// partition is df's tuple in the unified struct: the fields of other
// specs null.
func (l *fileLayout) partition(df *manifest.DataFile) []any {
	out := make([]any, len(l.partType.Fields))
	slots := l.slots[df.SpecID]
	if len(slots) != len(df.Partition) {
		return out
	}
	for i, v := range df.Partition {
		out[slots[i]] = v
	}
	return out
}

// countMap is a map<int, long> column's value; null when the file has
// none of that kind (Java's null map).
func countMap(pairs func(func(int, int64) bool)) any {
	var mv iceberg.MapValue
	for id, v := range pairs {
		mv.Keys = append(mv.Keys, int32(id))
		mv.Values = append(mv.Values, v)
	}
	if mv.Keys == nil {
		return nil
	}
	return mv
}

// boundMap is a map<int, binary> column's value. The bounds stay in the
// manifest's memory: AppendValue copies them into the batch.
func boundMap(pairs func(func(int, []byte) bool)) any {
	var mv iceberg.MapValue
	for id, v := range pairs {
		mv.Keys = append(mv.Keys, int32(id))
		mv.Values = append(mv.Values, v)
	}
	if mv.Keys == nil {
		return nil
	}
	return mv
}
