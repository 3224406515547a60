package manifest

import (
	"encoding/json"
	"fmt"
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

// recordLevel maps the fields of one Iceberg-defined Avro record.
type recordLevel struct {
	what     string            // record name in errors
	byID     map[int]string    // field id → decode name
	byName   map[string]string // writer name → decode name, for fields without an id
	required []int             // ids the record must have
	children map[string]*recordLevel
	// keyValue marks the 2-field element record of a map stored as an array:
	// the spec fixes key and value by position.
	keyValue bool
	// partition marks the partition tuple record, mapped by partitionSlots.
	partition bool
}

var keyValueLevel = &recordLevel{what: "map key/value record", keyValue: true}

var summaryLevel = &recordLevel{
	what:     "field_summary",
	byID:     map[int]string{509: "contains_null", 518: "contains_nan", 510: "lower_bound", 511: "upper_bound"},
	byName:   map[string]string{"contains_null": "contains_null", "contains_nan": "contains_nan", "lower_bound": "lower_bound", "upper_bound": "upper_bound"},
	required: []int{509},
}

var manifestFileLevel = &recordLevel{
	what: "manifest_file",
	byID: map[int]string{
		500: "manifest_path", 501: "manifest_length", 502: "partition_spec_id", 517: "content",
		515: "sequence_number", 516: "min_sequence_number", 503: "added_snapshot_id",
		504: "added_files_count", 505: "existing_files_count", 506: "deleted_files_count",
		512: "added_rows_count", 513: "existing_rows_count", 514: "deleted_rows_count",
		507: "partitions", 519: "key_metadata", 520: "first_row_id",
	},
	byName: map[string]string{
		"manifest_path": "manifest_path", "manifest_length": "manifest_length", "partition_spec_id": "partition_spec_id",
		"content": "content", "sequence_number": "sequence_number", "min_sequence_number": "min_sequence_number",
		"added_snapshot_id": "added_snapshot_id",
		"added_files_count": "added_files_count", "existing_files_count": "existing_files_count", "deleted_files_count": "deleted_files_count",
		// Older Java named the file counts after data files.
		"added_data_files_count": "added_files_count", "existing_data_files_count": "existing_files_count", "deleted_data_files_count": "deleted_files_count",
		"added_rows_count": "added_rows_count", "existing_rows_count": "existing_rows_count", "deleted_rows_count": "deleted_rows_count",
		"partitions": "partitions", "key_metadata": "key_metadata", "first_row_id": "first_row_id",
	},
	required: []int{500, 501, 502, 503},
	children: map[string]*recordLevel{"partitions": summaryLevel},
}

var dataFileLevel = &recordLevel{
	what: "data_file",
	byID: map[int]string{
		134: "content", 100: "file_path", 101: "file_format", 102: "partition", 103: "record_count",
		104: "file_size_in_bytes", 108: "column_sizes", 109: "value_counts", 110: "null_value_counts",
		137: "nan_value_counts", 125: "lower_bounds", 128: "upper_bounds", 131: "key_metadata",
		132: "split_offsets", 135: "equality_ids", 140: "sort_order_id", 142: "first_row_id",
		143: "referenced_data_file", 144: "content_offset", 145: "content_size_in_bytes",
	},
	required: []int{100, 101, 102, 103, 104},
	children: map[string]*recordLevel{
		"partition":    {what: "partition", partition: true},
		"column_sizes": keyValueLevel, "value_counts": keyValueLevel, "null_value_counts": keyValueLevel,
		"nan_value_counts": keyValueLevel, "lower_bounds": keyValueLevel, "upper_bounds": keyValueLevel,
	},
}

var manifestEntryLevel = &recordLevel{
	what:     "manifest_entry",
	byID:     map[int]string{0: "status", 1: "snapshot_id", 3: "sequence_number", 4: "file_sequence_number", 2: "data_file"},
	required: []int{0, 2},
	children: map[string]*recordLevel{"data_file": dataFileLevel},
}

func init() {
	// Fields without ids (very old writers) fall back to the spec's names.
	for _, lvl := range []*recordLevel{dataFileLevel, manifestEntryLevel} {
		lvl.byName = map[string]string{}
		for _, name := range lvl.byID {
			lvl.byName[name] = name
		}
	}
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
	seen := map[string]int{}
	for i := range n.Fields {
		f := &n.Fields[i]
		id, hasID, err := fieldID(f.Props)
		if err != nil {
			return fmt.Errorf("%s field %q: %w", lvl.what, f.Name, err)
		}
		var target string
		switch {
		case lvl.keyValue:
			if len(n.Fields) != 2 {
				return fmt.Errorf("a map stored as an array must hold 2-field records, not %d", len(n.Fields))
			}
			target = [2]string{"key", "value"}[i]
		case hasID:
			target = lvl.byID[id]
		default:
			target = lvl.byName[f.Name]
		}
		if target == "" {
			target = "_floe_skipped_" + strconv.Itoa(i)
		} else if prev, dup := seen[target]; dup {
			return fmt.Errorf("%s fields %q and %q both carry %s", lvl.what, n.Fields[prev].Name, f.Name, target)
		}
		seen[target] = i
		targets[i] = target
		if err := rewriteType(&f.Type, lvl.children[target], parts, depth+1); err != nil {
			return err
		}
	}
	for _, id := range lvl.required {
		if _, ok := seen[lvl.byID[id]]; !ok {
			return fmt.Errorf("%s has no field with id %d (%s)", lvl.what, id, lvl.byID[id])
		}
	}
	return applyNames(n, targets, lvl.what)
}

// applyNames renames the record's fields, keeping each old name as the only
// alias. A new name that is another field's old name would make schema
// resolution pair the wrong fields (names outrank aliases), so such a file
// is refused.
func applyNames(n *avro.SchemaNode, targets []string, what string) error {
	old := make(map[string]int, len(n.Fields))
	for i := range n.Fields {
		old[n.Fields[i].Name] = i
	}
	for i := range n.Fields {
		f := &n.Fields[i]
		f.Aliases = nil
		if targets[i] == f.Name {
			continue
		}
		if j, clash := old[targets[i]]; clash && j != i {
			return fmt.Errorf("%s field %q has the field id of %q while another field is named %q", what, f.Name, targets[i], targets[i])
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
