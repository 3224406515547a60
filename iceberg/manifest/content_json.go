package manifest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// The REST protocol's JSON form of a content file (ContentFile, DataFile,
// PositionDeleteFile, EqualityDeleteFile in rest-catalog-open-api.yaml),
// as server-side scan planning sends them: the partition tuple as an
// array of single-value JSON values in spec order, metrics as {keys,
// values} pairs. Bounds are a map of int to binary, so their values are
// the binary single-value form as uppercase hex, as Iceberg's Java
// ContentFileParser writes them (and iceberg-go reads them); bounds given
// as typed JSON values (the OpenAPI document can be read so) are taken
// too, typed by the schema.

var contentNames = map[FileContent]string{
	ContentData:            "data",
	ContentPositionDeletes: "position-deletes",
	ContentEqualityDeletes: "equality-deletes",
}

type countMapJSON struct {
	Keys   []int   `json:"keys"`
	Values []int64 `json:"values"`
}

type valueMapJSON struct {
	Keys   []int             `json:"keys"`
	Values []json.RawMessage `json:"values"`
}

type contentFileJSON struct {
	Content            string            `json:"content"`
	FilePath           string            `json:"file-path"`
	FileFormat         string            `json:"file-format"`
	SpecID             int               `json:"spec-id"`
	Partition          []json.RawMessage `json:"partition"`
	FileSizeInBytes    int64             `json:"file-size-in-bytes"`
	RecordCount        int64             `json:"record-count"`
	KeyMetadata        string            `json:"key-metadata,omitempty"`
	SplitOffsets       []int64           `json:"split-offsets,omitempty"`
	SortOrderID        *int              `json:"sort-order-id,omitempty"`
	FirstRowID         *int64            `json:"first-row-id,omitempty"`
	ColumnSizes        *countMapJSON     `json:"column-sizes,omitempty"`
	ValueCounts        *countMapJSON     `json:"value-counts,omitempty"`
	NullValueCounts    *countMapJSON     `json:"null-value-counts,omitempty"`
	NaNValueCounts     *countMapJSON     `json:"nan-value-counts,omitempty"`
	LowerBounds        *valueMapJSON     `json:"lower-bounds,omitempty"`
	UpperBounds        *valueMapJSON     `json:"upper-bounds,omitempty"`
	ReferencedDataFile string            `json:"referenced-data-file,omitempty"`
	ContentOffset      *int64            `json:"content-offset,omitempty"`
	ContentSizeInBytes *int64            `json:"content-size-in-bytes,omitempty"`
	EqualityIDs        []int             `json:"equality-ids,omitempty"`
}

// ContentFileTypes are what reading and writing the JSON form needs: the
// partition type of each spec (by spec id) and the schema bounds are
// typed by.
type ContentFileTypes struct {
	Partitions map[int]*iceberg.StructType
	Schema     *iceberg.Schema
}

// MarshalContentFileJSON writes f in the REST JSON form.
func MarshalContentFileJSON(f DataFile, types ContentFileTypes) ([]byte, error) {
	name, ok := contentNames[f.Content]
	if !ok {
		return nil, errkind.Errorf(errkind.InvalidArgument, "content file %s: content %d", f.FilePath, f.Content)
	}
	pt, ok := types.Partitions[f.SpecID]
	if !ok {
		return nil, errkind.Errorf(errkind.InvalidArgument, "content file %s: no partition spec %d", f.FilePath, f.SpecID)
	}
	metrics := f.Metrics.Maps()
	j := contentFileJSON{
		Content: name, FilePath: f.FilePath, FileFormat: strings.ToLower(f.FileFormat), SpecID: f.SpecID,
		Partition: []json.RawMessage{}, FileSizeInBytes: f.FileSizeInBytes, RecordCount: f.RecordCount,
		SplitOffsets: f.SplitOffsets, SortOrderID: f.SortOrderID, FirstRowID: f.FirstRowID,
		ColumnSizes: countMap(metrics.ColumnSizes), ValueCounts: countMap(metrics.ValueCounts),
		NullValueCounts: countMap(metrics.NullValueCounts), NaNValueCounts: countMap(metrics.NaNValueCounts),
		ReferencedDataFile: f.ReferencedDataFile, ContentOffset: f.ContentOffset, ContentSizeInBytes: f.ContentSizeInBytes,
		EqualityIDs: f.EqualityIDs,
	}
	if len(f.KeyMetadata) > 0 {
		j.KeyMetadata = strings.ToUpper(hex.EncodeToString(f.KeyMetadata))
	}
	if len(f.Partition) != len(pt.Fields) {
		return nil, errkind.Errorf(errkind.InvalidArgument, "content file %s: %d partition values for spec %d's %d fields", f.FilePath, len(f.Partition), f.SpecID, len(pt.Fields))
	}
	for i, v := range f.Partition {
		raw, err := iceberg.ValueToJSON(pt.Fields[i].Type, v)
		if err != nil {
			return nil, fmt.Errorf("content file %s: partition field %s: %w", f.FilePath, pt.Fields[i].Name, err)
		}
		j.Partition = append(j.Partition, raw)
	}
	j.LowerBounds, j.UpperBounds = valueMap(metrics.LowerBounds), valueMap(metrics.UpperBounds)
	return json.Marshal(j)
}

func countMap(m map[int]int64) *countMapJSON {
	if len(m) == 0 {
		return nil
	}
	out := &countMapJSON{Keys: slices.Sorted(maps.Keys(m))}
	for _, k := range out.Keys {
		out.Values = append(out.Values, m[k])
	}
	return out
}

// valueMap writes binary bounds as hex strings.
func valueMap(m map[int][]byte) *valueMapJSON {
	if len(m) == 0 {
		return nil
	}
	out := &valueMapJSON{Keys: slices.Sorted(maps.Keys(m))}
	for _, k := range out.Keys {
		raw, _ := json.Marshal(strings.ToUpper(hex.EncodeToString(m[k])))
		out.Values = append(out.Values, raw)
	}
	return out
}

// ParseContentFileJSON reads a content file in the REST JSON form.
func ParseContentFileJSON(raw []byte, types ContentFileTypes) (DataFile, error) {
	var j contentFileJSON
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&j); err != nil {
		return DataFile{}, errkind.Errorf(errkind.Corrupt, "content file JSON: %v", err)
	}
	bad := func(format string, args ...any) (DataFile, error) {
		return DataFile{}, errkind.Errorf(errkind.Corrupt, "content file %q: "+format, append([]any{j.FilePath}, args...)...)
	}
	f := DataFile{
		FilePath: j.FilePath, FileFormat: j.FileFormat, SpecID: j.SpecID, RecordCount: j.RecordCount,
		FileSizeInBytes: j.FileSizeInBytes, SplitOffsets: j.SplitOffsets, SortOrderID: j.SortOrderID,
		FirstRowID: j.FirstRowID, ReferencedDataFile: j.ReferencedDataFile, ContentOffset: j.ContentOffset,
		ContentSizeInBytes: j.ContentSizeInBytes, EqualityIDs: j.EqualityIDs,
	}
	found := false
	for c, name := range contentNames {
		if name == j.Content {
			f.Content, found = c, true
		}
	}
	switch {
	case !found:
		return bad("content %q", j.Content)
	case j.FilePath == "":
		return bad("no file-path")
	case j.FileFormat == "":
		return bad("no file-format")
	case j.RecordCount < 0 || j.FileSizeInBytes < 0:
		return bad("negative record-count or file-size-in-bytes")
	case f.Content == ContentData && (f.ContentOffset != nil || len(f.EqualityIDs) > 0):
		return bad("a data file with delete-file fields")
	case f.Content == ContentEqualityDeletes && len(f.EqualityIDs) == 0:
		return bad("equality deletes without equality-ids")
	}
	if j.KeyMetadata != "" {
		b, err := hex.DecodeString(j.KeyMetadata)
		if err != nil {
			return bad("key-metadata is not hex")
		}
		f.KeyMetadata = b
	}
	pt, ok := types.Partitions[j.SpecID]
	if !ok {
		return bad("unknown partition spec %d", j.SpecID)
	}
	if len(j.Partition) != len(pt.Fields) {
		return bad("%d partition values for spec %d's %d fields", len(j.Partition), j.SpecID, len(pt.Fields))
	}
	f.Partition = make([]any, len(j.Partition))
	for i, raw := range j.Partition {
		v, err := iceberg.ValueFromJSON(pt.Fields[i].Type, raw)
		if err != nil {
			return bad("partition field %s: %v", pt.Fields[i].Name, err)
		}
		f.Partition[i] = v
	}
	var err error
	var metrics MetricMaps
	for _, m := range []struct {
		in  *countMapJSON
		out *map[int]int64
	}{{j.ColumnSizes, &metrics.ColumnSizes}, {j.ValueCounts, &metrics.ValueCounts}, {j.NullValueCounts, &metrics.NullValueCounts}, {j.NaNValueCounts, &metrics.NaNValueCounts}} {
		if *m.out, err = readCountMap(m.in); err != nil {
			return bad("%v", err)
		}
	}
	if metrics.LowerBounds, err = readValueMap(j.LowerBounds, types.Schema); err != nil {
		return bad("lower-bounds: %v", err)
	}
	if metrics.UpperBounds, err = readValueMap(j.UpperBounds, types.Schema); err != nil {
		return bad("upper-bounds: %v", err)
	}
	f.Metrics = MetricsOf(metrics)
	return f, nil
}

func readCountMap(m *countMapJSON) (map[int]int64, error) {
	if m == nil || len(m.Keys) == 0 {
		return nil, nil
	}
	if len(m.Keys) != len(m.Values) {
		return nil, fmt.Errorf("a count map with %d keys and %d values", len(m.Keys), len(m.Values))
	}
	out := make(map[int]int64, len(m.Keys))
	for i, k := range m.Keys {
		out[k] = m.Values[i]
	}
	return out, nil
}

// readValueMap reads bounds: hex strings of the binary form, or typed
// JSON values encoded by their column's type (a column the schema lacks
// is then dropped).
func readValueMap(m *valueMapJSON, schema *iceberg.Schema) (map[int][]byte, error) {
	if m == nil || len(m.Keys) == 0 {
		return nil, nil
	}
	if len(m.Keys) != len(m.Values) {
		return nil, fmt.Errorf("a value map with %d keys and %d values", len(m.Keys), len(m.Values))
	}
	out := make(map[int][]byte, len(m.Keys))
	for i, k := range m.Keys {
		var f iceberg.NestedField
		known := false
		if schema != nil {
			f, known = schema.FindField(k)
		}
		var text string
		if json.Unmarshal(m.Values[i], &text) == nil {
			// Hex of the binary form, as Java writes bounds, unless it
			// cannot be that for the column's type (then it is the typed
			// value the OpenAPI document's example shows).
			if b, err := hex.DecodeString(text); err == nil && (!known || fitsBinary(f.Type, b)) {
				out[k] = b
				continue
			}
			if !known {
				return nil, fmt.Errorf("column %d: a bound %q that is not hex", k, text)
			}
		}
		if !known {
			continue
		}
		v, err := iceberg.ValueFromJSON(f.Type, m.Values[i])
		if err != nil {
			return nil, fmt.Errorf("column %d: %v", k, err)
		}
		if v == nil {
			continue
		}
		b, err := iceberg.ValueToBytes(f.Type, v)
		if err != nil {
			return nil, fmt.Errorf("column %d: %v", k, err)
		}
		out[k] = b
	}
	return out, nil
}

// fitsBinary tells whether b can be a bound of type t in the binary
// single-value form: the width of fixed-size types, anything for strings,
// binary and decimals.
func fitsBinary(t iceberg.Type, b []byte) bool {
	switch t := t.(type) {
	case iceberg.BooleanType:
		return len(b) == 1
	case iceberg.IntType, iceberg.DateType, iceberg.FloatType:
		return len(b) == 4
	case iceberg.LongType, iceberg.DoubleType, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestamptzType,
		iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		return len(b) == 8
	case iceberg.UUIDType:
		return len(b) == 16
	case iceberg.FixedType:
		return len(b) == t.Length
	}
	return true
}
