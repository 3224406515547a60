package metadata

import (
	"fmt"

	"github.com/floedb/floe/iceberg"
)

// checkSchemaFields refuses a schema that names two sibling fields alike or
// uses one field id twice at any depth. Either makes a column ambiguous: a
// scan bound by name would yield the name twice ({"i":1,"i":null}, and a
// Python dict keeps one), and one bound by id would read a file's column
// into whichever field came first. Names are compared as written: Iceberg
// is case-sensitive, so "i" and "I" are two columns.
func checkSchemaFields(s *iceberg.Schema) error {
	paths := map[int]string{} // field id → the dotted path that used it first
	var walkStruct func(prefix string, fields []iceberg.NestedField) error
	var walkType func(path string, t iceberg.Type) error
	visit := func(path string, id int, t iceberg.Type) error {
		if first, dup := paths[id]; dup {
			return fmt.Errorf("schema %d: field id %d is used by both %s and %s", s.ID, id, first, path)
		}
		paths[id] = path
		return walkType(path, t)
	}
	walkStruct = func(prefix string, fields []iceberg.NestedField) error {
		byName := make(map[string]int, len(fields))
		for _, f := range fields {
			path := f.Name
			if prefix != "" {
				path = prefix + "." + f.Name
			}
			if other, dup := byName[f.Name]; dup {
				return fmt.Errorf("schema %d: fields %d and %d are both named %q", s.ID, other, f.ID, path)
			}
			byName[f.Name] = f.ID
			if err := visit(path, f.ID, f.Type); err != nil {
				return err
			}
		}
		return nil
	}
	walkType = func(path string, t iceberg.Type) error {
		switch t := t.(type) {
		case *iceberg.StructType:
			return walkStruct(path, t.Fields)
		case *iceberg.ListType:
			return visit(path+".element", t.ElementID, t.Element)
		case *iceberg.MapType:
			if err := visit(path+".key", t.KeyID, t.Key); err != nil {
				return err
			}
			return visit(path+".value", t.ValueID, t.Value)
		}
		return nil
	}
	return walkStruct("", s.Fields)
}
