package manifest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/floedb/floe/iceberg"
)

// The Avro schemas Java writes for manifests and manifest lists (its
// V1Metadata, V2Metadata and V3Metadata), with the same record names,
// field order, docs and id properties, so other engines see familiar
// files.

type avroField struct {
	name     string
	typ      string // the type's JSON
	doc      string
	optional bool // a ["null", typ] union defaulting to null
	id       int
	// icebergName is the original name of a partition field whose name is
	// not a valid Avro name, as Java records it.
	icebergName string
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func recordJSON(name string, fields []avroField) string {
	var b strings.Builder
	b.WriteString(`{"type":"record","name":`)
	b.WriteString(quote(name))
	b.WriteString(`,"fields":[`)
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":`)
		b.WriteString(quote(f.name))
		b.WriteString(`,"type":`)
		if f.optional {
			b.WriteString(`["null",` + f.typ + `]`)
		} else {
			b.WriteString(f.typ)
		}
		if f.doc != "" {
			b.WriteString(`,"doc":` + quote(f.doc))
		}
		if f.optional || f.typ == `"null"` {
			b.WriteString(`,"default":null`)
		}
		if f.icebergName != "" {
			b.WriteString(`,"iceberg-field-name":` + quote(f.icebergName))
		}
		b.WriteString(`,"field-id":` + strconv.Itoa(f.id) + `}`)
	}
	b.WriteString(`]}`)
	return b.String()
}

func intMapJSON(keyID, valueID int, valueType string) string {
	return fmt.Sprintf(`{"type":"array","items":{"type":"record","name":"k%d_v%d","fields":[{"name":"key","type":"int","field-id":%d},{"name":"value","type":%s,"field-id":%d}]},"logicalType":"map"}`,
		keyID, valueID, keyID, valueType, valueID)
}

func listJSON(elementID int, elementType string) string {
	return fmt.Sprintf(`{"type":"array","items":%s,"element-id":%d}`, elementType, elementID)
}

// manifestEntrySchema is the manifest_entry schema of a format version for
// a partition type.
func manifestEntrySchema(version int, partType *iceberg.StructType) (string, error) {
	partition, err := partitionRecordJSON(partType)
	if err != nil {
		return "", err
	}
	var df []avroField
	add := func(fs ...avroField) { df = append(df, fs...) }
	if version >= 2 {
		add(avroField{name: "content", typ: `"int"`, doc: "Contents of the file: 0=data, 1=position deletes, 2=equality deletes", id: 134})
	}
	add(
		avroField{name: "file_path", typ: `"string"`, doc: "Location URI with FS scheme", id: 100},
		avroField{name: "file_format", typ: `"string"`, doc: "File format name: avro, orc, or parquet", id: 101},
	)
	partitionField := avroField{name: "partition", typ: partition, id: 102}
	if version >= 2 {
		partitionField.doc = "Partition data tuple, schema based on the partition spec"
	}
	add(partitionField,
		avroField{name: "record_count", typ: `"long"`, doc: "Number of records in the file", id: 103},
		avroField{name: "file_size_in_bytes", typ: `"long"`, doc: "Total file size in bytes", id: 104},
	)
	if version == 1 {
		add(avroField{name: "block_size_in_bytes", typ: `"long"`, id: 105})
	}
	add(
		avroField{name: "column_sizes", typ: intMapJSON(117, 118, `"long"`), doc: "Map of column id to total size on disk", optional: true, id: 108},
		avroField{name: "value_counts", typ: intMapJSON(119, 120, `"long"`), doc: "Map of column id to total count, including null and NaN", optional: true, id: 109},
		avroField{name: "null_value_counts", typ: intMapJSON(121, 122, `"long"`), doc: "Map of column id to null value count", optional: true, id: 110},
		avroField{name: "nan_value_counts", typ: intMapJSON(138, 139, `"long"`), doc: "Map of column id to number of NaN values in the column", optional: true, id: 137},
		avroField{name: "lower_bounds", typ: intMapJSON(126, 127, `"bytes"`), doc: "Map of column id to lower bound", optional: true, id: 125},
		avroField{name: "upper_bounds", typ: intMapJSON(129, 130, `"bytes"`), doc: "Map of column id to upper bound", optional: true, id: 128},
		avroField{name: "key_metadata", typ: `"bytes"`, doc: "Encryption key metadata blob", optional: true, id: 131},
		avroField{name: "split_offsets", typ: listJSON(133, `"long"`), doc: "Splittable offsets", optional: true, id: 132},
	)
	if version >= 2 {
		add(avroField{name: "equality_ids", typ: listJSON(136, `"int"`), doc: "Equality comparison field IDs", optional: true, id: 135})
	}
	add(avroField{name: "sort_order_id", typ: `"int"`, doc: "Sort order ID", optional: true, id: 140})
	if version >= 3 {
		add(avroField{name: "first_row_id", typ: `"long"`, doc: "The first row ID assigned to the first row in the data file", optional: true, id: 142})
	}
	if version >= 2 {
		add(avroField{name: "referenced_data_file", typ: `"string"`, doc: "Fully qualified location (URI with FS scheme) of a data file that all deletes reference", optional: true, id: 143})
	}
	if version >= 3 {
		add(
			avroField{name: "content_offset", typ: `"long"`, doc: "The offset in the file where the content starts", optional: true, id: 144},
			avroField{name: "content_size_in_bytes", typ: `"long"`, doc: "The length of referenced content stored in the file", optional: true, id: 145},
		)
	}

	entry := []avroField{
		{name: "status", typ: `"int"`, id: 0},
		{name: "snapshot_id", typ: `"long"`, optional: true, id: 1},
	}
	if version >= 2 {
		entry = append(entry,
			avroField{name: "sequence_number", typ: `"long"`, optional: true, id: 3},
			avroField{name: "file_sequence_number", typ: `"long"`, optional: true, id: 4},
		)
	}
	entry = append(entry, avroField{name: "data_file", typ: recordJSON("r2", df), id: 2})
	return recordJSON("manifest_entry", entry), nil
}

// manifestListSchema is the manifest_file schema of a format version.
func manifestListSchema(version int) string {
	summary := recordJSON("r508", []avroField{
		{name: "contains_null", typ: `"boolean"`, doc: "True if any file has a null partition value", id: 509},
		{name: "contains_nan", typ: `"boolean"`, doc: "True if any file has a nan partition value", optional: true, id: 518},
		{name: "lower_bound", typ: `"bytes"`, doc: "Partition lower bound for all files", optional: true, id: 510},
		{name: "upper_bound", typ: `"bytes"`, doc: "Partition upper bound for all files", optional: true, id: 511},
	})
	partitions := avroField{name: "partitions", typ: listJSON(508, summary), doc: "Summary for each partition", optional: true, id: 507}
	keyMetadata := avroField{name: "key_metadata", typ: `"bytes"`, doc: "Encryption key metadata blob", optional: true, id: 519}
	v1 := version == 1
	counts := []avroField{
		{name: "added_files_count", typ: `"int"`, doc: "Added entry count", optional: v1, id: 504},
		{name: "existing_files_count", typ: `"int"`, doc: "Existing entry count", optional: v1, id: 505},
		{name: "deleted_files_count", typ: `"int"`, doc: "Deleted entry count", optional: v1, id: 506},
	}
	rows := []avroField{
		{name: "added_rows_count", typ: `"long"`, doc: "Added rows count", optional: v1, id: 512},
		{name: "existing_rows_count", typ: `"long"`, doc: "Existing rows count", optional: v1, id: 513},
		{name: "deleted_rows_count", typ: `"long"`, doc: "Deleted rows count", optional: v1, id: 514},
	}
	fields := []avroField{
		{name: "manifest_path", typ: `"string"`, doc: "Location URI with FS scheme", id: 500},
		{name: "manifest_length", typ: `"long"`, doc: "Total file size in bytes", id: 501},
		{name: "partition_spec_id", typ: `"int"`, doc: "Spec ID used to write", id: 502},
	}
	snapshotID := avroField{name: "added_snapshot_id", typ: `"long"`, doc: "Snapshot ID that added the manifest", id: 503}
	if v1 {
		fields = append(fields, snapshotID)
		fields = append(fields, counts...)
		fields = append(fields, partitions)
		fields = append(fields, rows...)
		fields = append(fields, keyMetadata)
		return recordJSON("manifest_file", fields)
	}
	fields = append(fields,
		avroField{name: "content", typ: `"int"`, doc: "Contents of the manifest: 0=data, 1=deletes", id: 517},
		avroField{name: "sequence_number", typ: `"long"`, doc: "Sequence number when the manifest was added", id: 515},
		avroField{name: "min_sequence_number", typ: `"long"`, doc: "Lowest sequence number in the manifest", id: 516},
		snapshotID,
	)
	fields = append(fields, counts...)
	fields = append(fields, rows...)
	fields = append(fields, partitions, keyMetadata)
	if version >= 3 {
		fields = append(fields, avroField{name: "first_row_id", typ: `"long"`, doc: "Starting row ID to assign to new rows in ADDED data files", optional: true, id: 520})
	}
	return recordJSON("manifest_file", fields)
}

// partitionRecordJSON is the r102 record of a partition type: one optional
// field per partition field, carrying the partition field id.
func partitionRecordJSON(partType *iceberg.StructType) (string, error) {
	named := map[string]bool{}
	var fields []avroField
	if partType != nil {
		for _, f := range partType.Fields {
			typ, err := partitionAvroType(f.Type, named)
			if err != nil {
				return "", fmt.Errorf("partition field %s: %w", f.Name, err)
			}
			af := avroField{name: f.Name, typ: typ, id: f.ID, optional: typ != `"null"`}
			if sanitized, changed := sanitizeAvroName(f.Name); changed {
				af.name, af.icebergName = sanitized, f.Name
			}
			fields = append(fields, af)
		}
	}
	return recordJSON("r102", fields), nil
}

// partitionAvroType is Java's Avro type for an Iceberg primitive. Named
// fixed types are defined once and referenced by name afterwards.
func partitionAvroType(t iceberg.Type, named map[string]bool) (string, error) {
	fixed := func(name, def string) string {
		if named[name] {
			return quote(name)
		}
		named[name] = true
		return def
	}
	switch t := t.(type) {
	case iceberg.UnknownType:
		return `"null"`, nil
	case iceberg.BooleanType:
		return `"boolean"`, nil
	case iceberg.IntType:
		return `"int"`, nil
	case iceberg.LongType:
		return `"long"`, nil
	case iceberg.FloatType:
		return `"float"`, nil
	case iceberg.DoubleType:
		return `"double"`, nil
	case iceberg.DateType:
		return `{"type":"int","logicalType":"date"}`, nil
	case iceberg.TimeType:
		return `{"type":"long","logicalType":"time-micros"}`, nil
	case iceberg.TimestampType:
		return `{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":false}`, nil
	case iceberg.TimestamptzType:
		return `{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true}`, nil
	case iceberg.TimestampNsType:
		return `{"type":"long","logicalType":"timestamp-nanos","adjust-to-utc":false}`, nil
	case iceberg.TimestamptzNsType:
		return `{"type":"long","logicalType":"timestamp-nanos","adjust-to-utc":true}`, nil
	case iceberg.StringType:
		return `"string"`, nil
	case iceberg.BinaryType:
		return `"bytes"`, nil
	case iceberg.UUIDType:
		return fixed("uuid_fixed", `{"type":"fixed","name":"uuid_fixed","size":16,"logicalType":"uuid"}`), nil
	case iceberg.FixedType:
		name := "fixed_" + strconv.Itoa(t.Length)
		return fixed(name, fmt.Sprintf(`{"type":"fixed","name":%q,"size":%d}`, name, t.Length)), nil
	case iceberg.DecimalType:
		name := fmt.Sprintf("decimal_%d_%d", t.Precision, t.Scale)
		return fixed(name, fmt.Sprintf(`{"type":"fixed","name":%q,"size":%d,"logicalType":"decimal","precision":%d,"scale":%d}`,
			name, decimalRequiredBytes(t.Precision), t.Precision, t.Scale)), nil
	}
	return "", fmt.Errorf("type %s cannot be a partition type", t)
}

// sanitizeAvroName makes a name valid for Avro the way Java does: a
// leading digit gets an underscore, any other invalid character becomes
// _x and its hex code. Only ASCII letters count as letters, so the result
// is valid for every Avro implementation.
func sanitizeAvroName(name string) (string, bool) {
	valid := func(r rune, first bool) bool {
		return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || !first && r >= '0' && r <= '9'
	}
	changed := name == ""
	var b strings.Builder
	for i, r := range name {
		switch {
		case valid(r, i == 0):
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			b.WriteString("_" + string(r))
			changed = true
		default:
			b.WriteString("_x" + strings.ToUpper(strconv.FormatInt(int64(r), 16)))
			changed = true
		}
	}
	if b.Len() == 0 {
		return "_", true
	}
	return b.String(), changed
}
