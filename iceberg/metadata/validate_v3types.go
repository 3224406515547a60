package metadata

import (
	"fmt"

	"github.com/floedb/floe/iceberg"
)

// checkV3Types refuses the types format version 3 added (variant,
// geometry, geography) in an older table: a reader of that version could
// not read it, so floe neither reads nor writes one. timestamp_ns and
// unknown are left to pass, as before, so tables that read today still
// do.
func checkV3Types(s *iceberg.Schema, version int) error {
	if version >= 3 {
		return nil
	}
	var walk func(path string, t iceberg.Type) error
	walk = func(path string, t iceberg.Type) error {
		switch t := t.(type) {
		case iceberg.VariantType, iceberg.GeometryType, iceberg.GeographyType:
			return fmt.Errorf("schema %d: column %s is a %s, which needs format version 3 (the table is version %d)", s.ID, path, t, version)
		case *iceberg.StructType:
			for _, f := range t.Fields {
				if err := walk(path+"."+f.Name, f.Type); err != nil {
					return err
				}
			}
		case *iceberg.ListType:
			return walk(path+".element", t.Element)
		case *iceberg.MapType:
			if err := walk(path+".key", t.Key); err != nil {
				return err
			}
			return walk(path+".value", t.Value)
		}
		return nil
	}
	for _, f := range s.Fields {
		if err := walk(f.Name, f.Type); err != nil {
			return err
		}
	}
	return nil
}
