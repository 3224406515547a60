package inspect

import (
	"sort"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
)

// readableMetrics is the readable_metrics column of the files and entries
// tables (Java's MetricsUtil.readableMetricsSchema): a struct with a
// field per primitive column of the table's current schema at any depth,
// named by its dotted full name and sorted by it, each a struct of
// column_size, value_count, null_value_count, nan_value_count,
// lower_bound and upper_bound, the bounds decoded into the column's type.
// Ids follow Java's: after the metadata table's highest, a column's
// struct then its six fields, columns taken in field-id order.
//
// Where floe differs: variant columns have no entry (Java's variant is
// not primitive either), and the bounds of geometry and geography
// columns, which are bounding-box points rather than values, are shown
// as their bytes (binary).
type readableMetrics struct {
	field iceberg.NestedField
	cols  []readableColumn
}

type readableColumn struct {
	id    int
	bound iceberg.Type
	// decode: the bound is a value of the column's type (else its bytes).
	decode bool
}

var readableMetricNames = [...]string{"column_size", "value_count", "null_value_count", "nan_value_count", "lower_bound", "upper_bound"}

func newReadableMetrics(schema *iceberg.Schema, highestID int) *readableMetrics {
	type leaf struct {
		name string
		f    iceberg.NestedField
	}
	var leaves []leaf
	var walk func(prefix string, fields []iceberg.NestedField)
	walk = func(prefix string, fields []iceberg.NestedField) {
		for _, f := range fields {
			name := prefix + f.Name
			switch t := f.Type.(type) {
			case *iceberg.StructType:
				walk(name+".", t.Fields)
			case *iceberg.ListType:
				walk(name+".", []iceberg.NestedField{{ID: t.ElementID, Name: "element", Type: t.Element}})
			case *iceberg.MapType:
				walk(name+".", []iceberg.NestedField{{ID: t.KeyID, Name: "key", Type: t.Key}, {ID: t.ValueID, Name: "value", Type: t.Value}})
			case iceberg.VariantType:
			default:
				leaves = append(leaves, leaf{name, f})
			}
		}
	}
	walk("", schema.Fields)
	sort.Slice(leaves, func(i, j int) bool { return leaves[i].f.ID < leaves[j].f.ID })
	next := highestID
	id := func() int { next++; return next }
	type col struct {
		field iceberg.NestedField
		rc    readableColumn
	}
	cols := make([]col, len(leaves))
	for i, l := range leaves {
		rc := readableColumn{id: l.f.ID, bound: l.f.Type, decode: true}
		switch l.f.Type.(type) {
		case iceberg.GeometryType, iceberg.GeographyType:
			rc.bound, rc.decode = iceberg.BinaryType{}, false
		}
		structID := id()
		fields := make([]iceberg.NestedField, len(readableMetricNames))
		for k, n := range readableMetricNames {
			var t iceberg.Type = iceberg.LongType{}
			if k >= 4 {
				t = rc.bound
			}
			fields[k] = iceberg.NestedField{ID: id(), Name: n, Type: t}
		}
		cols[i] = col{iceberg.NestedField{ID: structID, Name: l.name, Type: &iceberg.StructType{Fields: fields}}, rc}
	}
	sort.SliceStable(cols, func(i, j int) bool { return cols[i].field.Name < cols[j].field.Name })
	rm := &readableMetrics{}
	st := &iceberg.StructType{Fields: make([]iceberg.NestedField, len(cols))}
	for i, c := range cols {
		st.Fields[i] = c.field
		rm.cols = append(rm.cols, c.rc)
	}
	rm.field = iceberg.NestedField{ID: id(), Name: "readable_metrics", Type: st, Doc: "Column metrics in readable form"}
	return rm
}

// value is m's readable_metrics struct. A bound that does not decode as
// its column's type (a writer's error, or a column since changed) is
// null rather than a failed read: the raw bounds stay in lower_bounds and
// upper_bounds.
func (rm *readableMetrics) value(m manifest.Metrics) []any {
	out := make([]any, len(rm.cols))
	for i, c := range rm.cols {
		cm := m.Column(c.id)
		v := make([]any, 6)
		if cm.HasColumnSize {
			v[0] = cm.ColumnSize
		}
		if cm.HasValueCount {
			v[1] = cm.ValueCount
		}
		if cm.HasNullCount {
			v[2] = cm.NullCount
		}
		if cm.HasNaNCount {
			v[3] = cm.NaNCount
		}
		if cm.HasLower {
			v[4] = rm.bound(c, cm.Lower)
		}
		if cm.HasUpper {
			v[5] = rm.bound(c, cm.Upper)
		}
		out[i] = v
	}
	return out
}

func (rm *readableMetrics) bound(c readableColumn, raw []byte) any {
	if !c.decode {
		return raw
	}
	v, err := iceberg.ValueFromBytes(c.bound, raw)
	if err != nil {
		return nil
	}
	if f, ok := c.bound.(iceberg.FixedType); ok && len(raw) != f.Length {
		return nil // a truncated bound does not fit the column's width
	}
	return v
}
