package manifest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/twmb/avro"
)

// Reading by field id works by rewriting the file's own Avro schema: every
// record field we know is renamed, by its field-id, to the name our decode
// structs use, and keeps its old name as an alias so schema resolution
// pairs it with the writer's field. Renaming never changes the binary
// encoding, so the rewritten schema decodes the writer's bytes exactly;
// fields we do not know get a name no struct uses and are skipped. Logical
// types are dropped so every value decodes in its raw Avro form, which we
// then convert using the Iceberg type instead.

// recordLevel maps the fields of one Iceberg-defined Avro record. Decode
// names are the field ids ("_500"), which no writer uses as a field name,
// so schema resolution can never pair a renamed field with the wrong
// writer field by name.
type recordLevel struct {
	what     string
	ids      []int          // the field ids our structs decode
	byName   map[string]int // writer name → id, for fields without an id
	required []int          // ids the record must have
	children map[int]*recordLevel
	// keyValue marks the 2-field element record of a map stored as an array:
	// the spec fixes key and value by position.
	keyValue bool
	// partition marks the partition tuple record, mapped by partitionMatcher.
	partition bool
}

func idName(id int) string { return "_" + strconv.Itoa(id) }

const (
	keyName   = "_key"
	valueName = "_value"
)

var keyValueLevel = &recordLevel{what: "map key/value record", keyValue: true}

var summaryLevel = &recordLevel{
	what:     "field_summary",
	ids:      []int{509, 518, 510, 511},
	byName:   map[string]int{"contains_null": 509, "contains_nan": 518, "lower_bound": 510, "upper_bound": 511},
	required: []int{509},
}

var manifestFileLevel = &recordLevel{
	what: "manifest_file",
	ids:  []int{500, 501, 502, 517, 515, 516, 503, 504, 505, 506, 512, 513, 514, 507, 519, 520},
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
	children: map[int]*recordLevel{507: summaryLevel},
}

var dataFileLevel = &recordLevel{
	what: "data_file",
	ids:  []int{134, 100, 101, 102, 103, 104, 108, 109, 110, 137, 125, 128, 131, 132, 135, 140, 142, 143, 144, 145},
	byName: map[string]int{
		"content": 134, "file_path": 100, "file_format": 101, "partition": 102, "record_count": 103,
		"file_size_in_bytes": 104, "column_sizes": 108, "value_counts": 109, "null_value_counts": 110,
		"nan_value_counts": 137, "lower_bounds": 125, "upper_bounds": 128, "key_metadata": 131,
		"split_offsets": 132, "equality_ids": 135, "sort_order_id": 140, "first_row_id": 142,
		"referenced_data_file": 143, "content_offset": 144, "content_size_in_bytes": 145,
	},
	required: []int{100, 101, 102, 103, 104},
	children: map[int]*recordLevel{
		102: {what: "partition", partition: true},
		108: keyValueLevel, 109: keyValueLevel, 110: keyValueLevel, 137: keyValueLevel, 125: keyValueLevel, 128: keyValueLevel,
	},
}

var manifestEntryLevel = &recordLevel{
	what:     "manifest_entry",
	ids:      []int{0, 1, 3, 4, 2},
	byName:   map[string]int{"status": 0, "snapshot_id": 1, "sequence_number": 3, "file_sequence_number": 4, "data_file": 2},
	required: []int{0, 2},
	children: map[int]*recordLevel{2: dataFileLevel},
}

// partitionSlotName is the decode name of the i-th partition field of the
// spec; the leading underscore keeps it a valid Avro name.
func partitionSlotName(i int) string { return "_p" + strconv.Itoa(i) }

// partitionMatcher finds the spec position of a writer partition field.
type partitionMatcher struct {
	ids   []int    // spec partition field ids, in spec order
	names []string // spec partition field names
}

// readerSchema rewrites the writer schema of a manifest or manifest list
// for decoding into our structs.
func readerSchema(writer *avro.Schema, top *recordLevel, parts *partitionMatcher) (*avro.Schema, error) {
	root := writer.Root()
	if root.Type != "record" {
		return nil, fmt.Errorf("the file's Avro schema is a %s, not a %s record", root.Type, top.what)
	}
	if err := rewriteRecord(root, top, parts, 0); err != nil {
		return nil, err
	}
	s, err := root.Schema()
	if err != nil {
		return nil, fmt.Errorf("rewriting the file's Avro schema: %w", err)
	}
	return s, nil
}

// maxSchemaDepth bounds recursion over hostile schemas; real manifests
// nest five levels.
const maxSchemaDepth = 32

func rewriteType(n *avro.SchemaNode, lvl *recordLevel, parts *partitionMatcher, depth int) error {
	if depth > maxSchemaDepth {
		return fmt.Errorf("the file's Avro schema nests deeper than %d", maxSchemaDepth)
	}
	n.LogicalType = ""
	switch n.Type {
	case "union":
		for i := range n.Branches {
			if err := rewriteType(&n.Branches[i], lvl, parts, depth+1); err != nil {
				return err
			}
		}
	case "array":
		if n.Items != nil {
			return rewriteType(n.Items, lvl, parts, depth+1)
		}
	case "map":
		if n.Values != nil {
			return rewriteType(n.Values, lvl, parts, depth+1)
		}
	case "record", "error":
		if lvl == nil {
			return stripLogicalTypes(n, depth)
		}
		if lvl.partition {
			return rewritePartition(n, parts, depth)
		}
		return rewriteRecord(n, lvl, parts, depth)
	}
	return nil
}

func stripLogicalTypes(n *avro.SchemaNode, depth int) error {
	if depth > maxSchemaDepth {
		return fmt.Errorf("the file's Avro schema nests deeper than %d", maxSchemaDepth)
	}
	n.LogicalType = ""
	for i := range n.Branches {
		if err := stripLogicalTypes(&n.Branches[i], depth+1); err != nil {
			return err
		}
	}
	for i := range n.Fields {
		if err := stripLogicalTypes(&n.Fields[i].Type, depth+1); err != nil {
			return err
		}
	}
	if n.Items != nil {
		if err := stripLogicalTypes(n.Items, depth+1); err != nil {
			return err
		}
	}
	if n.Values != nil {
		return stripLogicalTypes(n.Values, depth+1)
	}
	return nil
}

func rewriteRecord(n *avro.SchemaNode, lvl *recordLevel, parts *partitionMatcher, depth int) error {
	targets := make([]string, len(n.Fields))
	seen := map[int]int{} // field id → writer field index
	for i := range n.Fields {
		f := &n.Fields[i]
		if lvl.keyValue {
			if len(n.Fields) != 2 {
				return fmt.Errorf("a map stored as an array must hold 2-field records, not %d", len(n.Fields))
			}
			targets[i] = [2]string{keyName, valueName}[i]
			if err := stripLogicalTypes(&f.Type, depth+1); err != nil {
				return err
			}
			continue
		}
		id, hasID, err := fieldID(f.Props)
		if err != nil {
			return fmt.Errorf("%s field %q: %w", lvl.what, f.Name, err)
		}
		if !hasID {
			id, hasID = lvl.byName[f.Name]
		}
		if !hasID || !slices.Contains(lvl.ids, id) {
			targets[i] = "_skip" + strconv.Itoa(i)
			if err := stripLogicalTypes(&f.Type, depth+1); err != nil {
				return err
			}
			continue
		}
		if prev, dup := seen[id]; dup {
			return fmt.Errorf("%s fields %q and %q both have field id %d", lvl.what, n.Fields[prev].Name, f.Name, id)
		}
		seen[id] = i
		targets[i] = idName(id)
		if err := rewriteType(&f.Type, lvl.children[id], parts, depth+1); err != nil {
			return err
		}
	}
	for _, id := range lvl.required {
		if _, ok := seen[id]; !ok {
			return fmt.Errorf("%s has no field with id %d", lvl.what, id)
		}
	}
	return applyNames(n, targets, lvl.what)
}

// applyNames renames the record's fields, keeping each old name as the only
// alias. Should a writer really name a field like one of our decode names,
// resolution would pair the wrong fields (names outrank aliases), so such
// a file is refused.
func applyNames(n *avro.SchemaNode, targets []string, what string) error {
	names := make([]string, len(n.Fields))
	old := make(map[string]int, len(n.Fields))
	for i := range n.Fields {
		names[i] = n.Fields[i].Name
		old[names[i]] = i
	}
	for i := range n.Fields {
		f := &n.Fields[i]
		f.Aliases = nil
		if targets[i] == f.Name {
			continue
		}
		if j, clash := old[targets[i]]; clash && j != i {
			return fmt.Errorf("%s field %q is named like the decode name of field %q", what, names[j], names[i])
		}
		f.Aliases = []string{f.Name}
		f.Name = targets[i]
	}
	return nil
}

func rewritePartition(n *avro.SchemaNode, parts *partitionMatcher, depth int) error {
	if parts == nil {
		return stripLogicalTypes(n, depth)
	}
	anyID := false
	for i := range n.Fields {
		if _, ok, _ := fieldID(n.Fields[i].Props); ok {
			anyID = true
		}
	}
	targets := make([]string, len(n.Fields))
	seen := map[int]bool{}
	for i := range n.Fields {
		f := &n.Fields[i]
		id, hasID, err := fieldID(f.Props)
		if err != nil {
			return fmt.Errorf("partition field %q: %w", f.Name, err)
		}
		slot := -1
		switch {
		case hasID:
			slot = indexOf(parts.ids, id)
		case anyID:
		default:
			// Writers that predate partition field ids: match by name, or by
			// position when the tuple has exactly the spec's arity.
			if slot = indexOfString(parts.names, f.Name); slot < 0 && len(n.Fields) == len(parts.ids) {
				slot = i
			}
		}
		if slot < 0 {
			if hasID {
				return fmt.Errorf("partition field %q has id %d, which the partition spec lacks (spec fields %v)", f.Name, id, parts.ids)
			}
			return fmt.Errorf("partition field %q matches no field of the partition spec", f.Name)
		}
		if seen[slot] {
			return fmt.Errorf("two partition fields map to spec field %d (%s)", parts.ids[slot], parts.names[slot])
		}
		seen[slot] = true
		targets[i] = partitionSlotName(slot)
		if err := stripLogicalTypes(&f.Type, depth+1); err != nil {
			return err
		}
	}
	return applyNames(n, targets, "partition")
}

func indexOf(xs []int, x int) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

func indexOfString(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// fieldID reads an Iceberg id property; JSON numbers arrive as int64 or
// float64, and some writers quote them.
func fieldID(props map[string]any) (int, bool, error) {
	v, ok := props["field-id"]
	if !ok {
		return 0, false, nil
	}
	var id int64
	switch x := v.(type) {
	case int64:
		id = x
	case float64:
		if x != float64(int64(x)) {
			return 0, false, fmt.Errorf("field-id %v is not an integer", x)
		}
		id = int64(x)
	case json.Number:
		n, err := x.Int64()
		if err != nil {
			return 0, false, fmt.Errorf("field-id %v is not an integer", x)
		}
		id = n
	case string:
		n, err := strconv.ParseInt(x, 10, 32)
		if err != nil {
			return 0, false, fmt.Errorf("field-id %q is not an integer", x)
		}
		id = n
	default:
		return 0, false, fmt.Errorf("field-id %v is not an integer", v)
	}
	if id < 0 || id > 1<<31-1 {
		return 0, false, fmt.Errorf("field-id %d is out of range", id)
	}
	return int(id), true, nil
}
