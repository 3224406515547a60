package action

import (
	"fmt"

	"github.com/floedb/floe/iceberg"
)

// checkSources refuses a change that breaks a partition field of any of
// the table's specs or a field of its default sort order: deleting its
// source column, or changing the source's type to one the transform
// cannot take or gives other values for. Java refuses this for the
// default spec and sort order; old specs are checked too, because their
// data files' partition values are read through them (a source column
// dropped from an old spec leaves such a table unreadable in Java,
// apache/iceberg#10234). Renames are fine: sources are ids.
func (e *schemaEdit) checkSources() error {
	check := func(src int, t iceberg.Transform, what string, changesValues bool) error {
		b, ok := e.fields[src]
		if !ok {
			return nil // a source an earlier change already dropped
		}
		if e.deleted(src) {
			return refuse(b.name, "cannot delete the column: it is the source of %s", what)
		}
		now, _ := e.result.FindField(src)
		if now.Type == b.field.Type {
			return nil
		}
		if _, err := t.ResultType(now.Type); err != nil {
			return refuse(b.name, "cannot change type to %s: it is the source of %s: %v", typeText(now.Type), what, err)
		}
		if _, wasDate := b.field.Type.(iceberg.DateType); wasDate && changesValues {
			switch t.(type) {
			case iceberg.YearTransform, iceberg.MonthTransform, iceberg.DayTransform, iceberg.VoidTransform:
			default:
				return refuse(b.name, "cannot change type from date to %s: it is the source of %s, whose values would change", now.Type, what)
			}
		}
		return nil
	}
	for _, spec := range e.md.PartitionSpecs {
		for _, pf := range spec.Fields {
			what := fmt.Sprintf("partition field %q (%s) of spec %d", pf.Name, pf.Transform, spec.ID)
			if err := check(pf.SourceID, pf.Transform, what, true); err != nil {
				return err
			}
		}
	}
	if order := e.md.DefaultSortOrder(); order != nil {
		for i, sf := range order.Fields {
			what := fmt.Sprintf("sort field %d (%s) of the default sort order %d", i, sf.Transform, order.OrderID)
			// Sorting a date or the timestamp of its midnight orders rows
			// alike: only deletes and impossible types are refused.
			if err := check(sf.SourceID, sf.Transform, what, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckSchemaForVersion refuses what a format version cannot hold: the
// types format version 3 added (timestamp_ns, timestamptz_ns, unknown,
// variant, geometry, geography) and default values before v3, and
// decimals of impossible precision or scale. Refusals name the column.
func CheckSchemaForVersion(s *iceberg.Schema, formatVersion int) error {
	var walk func(name string, f iceberg.NestedField, depth int) error
	walk = func(name string, f iceberg.NestedField, depth int) error {
		if depth > iceberg.MaxTypeDepth {
			return refuse(name, "type nesting deeper than %d", iceberg.MaxTypeDepth)
		}
		if f.Type == nil {
			return refuse(name, "the column has no type")
		}
		if formatVersion < 3 {
			switch f.Type.(type) {
			case iceberg.TimestampNsType, iceberg.TimestamptzNsType, iceberg.UnknownType, iceberg.VariantType,
				iceberg.GeometryType, iceberg.GeographyType:
				return refuse(name, "type %s needs format version 3 (the table is version %d)", f.Type, formatVersion)
			}
			if f.InitialDefault != nil || f.WriteDefault != nil {
				return refuse(name, "default values need format version 3 (the table is version %d)", formatVersion)
			}
		}
		if dt, ok := f.Type.(iceberg.DecimalType); ok {
			if err := validPrimitive(dt); err != nil {
				return refuse(name, "%v", err)
			}
		}
		switch t := f.Type.(type) {
		case *iceberg.StructType:
			for _, c := range t.Fields {
				if err := walk(joinName(name, c.Name), c, depth+1); err != nil {
					return err
				}
			}
		case *iceberg.ListType:
			return walk(joinName(name, "element"), iceberg.NestedField{Type: t.Element}, depth+1)
		case *iceberg.MapType:
			if err := walk(joinName(name, "key"), iceberg.NestedField{Type: t.Key}, depth+1); err != nil {
				return err
			}
			return walk(joinName(name, "value"), iceberg.NestedField{Type: t.Value}, depth+1)
		}
		return nil
	}
	for _, f := range s.Fields {
		if err := walk(f.Name, f, 0); err != nil {
			return err
		}
	}
	return nil
}
