package action

import (
	"fmt"

	"github.com/floedb/floe/iceberg"
)

// sourceColumn resolves the dotted name of a partition or sort source
// column in schema: an unknown name is refused with the nearest column's
// name, and so is a column inside a list or map (the spec allows sources
// nested in structs only). what names the caller's field in the error.
func sourceColumn(schema *iceberg.Schema, name string, caseSensitive bool, what string) (iceberg.NestedField, error) {
	var f iceberg.NestedField
	if caseSensitive {
		var ok bool
		if f, ok = schema.FindFieldByName(name); !ok {
			return f, unknownSource(schema, name, what)
		}
	} else {
		var err error
		if f, err = schema.FindFieldByNameCaseInsensitive(name); err != nil {
			if _, ok := schema.FindFieldByName(name); !ok && !isAmbiguous(err) {
				return f, unknownSource(schema, name, what)
			}
			return f, invalid("%s: %v", what, err)
		}
	}
	for p := schema.ParentID(f.ID); p != 0; p = schema.ParentID(p) {
		parent, _ := schema.FindField(p)
		if _, isStruct := parent.Type.(*iceberg.StructType); !isStruct {
			return f, invalid("%s: column %q is inside a %s; partition and sort sources may be nested in structs only", what, name, typeKind(parent.Type))
		}
	}
	return f, nil
}

func isAmbiguous(err error) bool {
	_, ok := err.(*iceberg.AmbiguousNameError)
	return ok
}

func typeKind(t iceberg.Type) string {
	switch t.(type) {
	case *iceberg.ListType:
		return "list"
	case *iceberg.MapType:
		return "map"
	}
	return fmt.Sprint(t)
}

// unknownSource refuses a source name the schema lacks, naming the
// nearest column (iceberg.ClosestName over every dotted name a source
// may have).
func unknownSource(schema *iceberg.Schema, name, what string) error {
	var names []string
	var walk func(prefix string, fields []iceberg.NestedField)
	walk = func(prefix string, fields []iceberg.NestedField) {
		for _, f := range fields {
			names = append(names, prefix+f.Name)
			if st, ok := f.Type.(*iceberg.StructType); ok {
				walk(prefix+f.Name+".", st.Fields)
			}
		}
	}
	walk("", schema.Fields)
	msg := fmt.Sprintf("%s: no column %q in schema %d", what, name, schema.ID)
	if c := iceberg.ClosestName(name, names); c != "" {
		msg += fmt.Sprintf("; did you mean %q?", c)
	}
	return invalid("%s", msg)
}

// checkSourceType refuses a transform that cannot apply to the source
// column (Java's canTransform): a non-primitive source, or a type the
// transform does not take. A void transform takes anything.
func checkSourceType(src iceberg.NestedField, name string, t iceberg.Transform, what string) error {
	if _, void := t.(iceberg.VoidTransform); void {
		return nil
	}
	if _, unknown := t.(iceberg.UnknownTransform); unknown {
		return invalid("%s: unknown transform %q", what, t)
	}
	if _, primitive := src.Type.(iceberg.PrimitiveType); !primitive {
		return invalid("%s: column %q is a %s, not a primitive", what, name, src.Type)
	}
	if _, err := t.ResultType(src.Type); err != nil {
		return invalid("%s: transform %s cannot apply to column %q of type %s: %v", what, t, name, src.Type, err)
	}
	return nil
}
