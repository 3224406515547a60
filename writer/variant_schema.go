package writer

import (
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// A variant column is written unshredded, as the spec's Parquet mapping
// and the Variant encoding spec lay it out: a group annotated VARIANT
// holding two required binaries, metadata and value, which carry no field
// ids (the group has the column's). The batch gives Arrow's variant
// extension (or any struct of metadata and value binaries), whose storage
// binds to the two leaves like a struct's fields. Each row's bytes are
// written as they come: floe does not shred, nor check the encoding.

// variantGroupType is parquet-go's VARIANT-annotated group type.
var variantGroupType = parquet.Variant().Type()

// variantGroup is an ordered group whose type carries the annotation.
type variantGroup struct{ orderedGroup }

func (g *variantGroup) Type() parquet.Type { return variantGroupType }

// variantParts are the leaves of a variant group, in file order.
var variantParts = [...]string{"metadata", "value"}

// buildVariantNode makes n (a variant field's node) the group of its two
// leaves. The leaves' fields carry the variant's id so they take its
// metrics mode; fillVariantMetrics reports them as the one column.
func buildVariantNode(n *schemaNode, dictionary bool) (parquet.Node, error) {
	n.kind, n.variant = kindStruct, true
	var fields []parquet.Field
	for _, name := range variantParts {
		f := iceberg.NestedField{ID: n.field.ID, Name: name, Type: iceberg.BinaryType{}, Required: true}
		leaf, err := parquetLeaf(f.Type, dictionary)
		if err != nil {
			return nil, err
		}
		n.children = append(n.children, &schemaNode{field: f, def: n.def})
		fields = append(fields, namedField{Node: parquet.Required(leaf), name: name})
	}
	return &variantGroup{orderedGroup{fields: fields}}, nil
}

// variantLeaf reports whether the leaf is part of a variant group, and
// whether it is the group's metadata (the part that stands for the row).
func (l *leafColumn) variantLeaf() (inVariant, isMetadata bool) {
	if len(l.path) < 2 || !l.path[len(l.path)-2].variant {
		return false, false
	}
	return true, l.field.Name == variantParts[0]
}

// fillVariantMetrics gives a variant column (leaves i, the metadata, and
// i+1, the value) the metrics the spec allows without shredding: its size,
// value and null counts (a null row is a null metadata, which every
// present row has). No bounds: variant bounds are objects of per-path
// bounds, which only a shredding writer knows.
func fillVariantMetrics(m *manifest.MetricMaps, fs *fileSchema, f *dataFile, rowGroups []format.RowGroup, i int) {
	leaf := fs.leaves[i]
	if !leaf.mode.counts() {
		return
	}
	var size int64
	for _, rg := range rowGroups {
		for _, l := range fs.leaves[i : i+len(variantParts)] {
			size += rg.Columns[l.index].MetaData.TotalCompressedSize
		}
	}
	id := leaf.field.ID
	setInt(&m.ColumnSizes, id, size)
	setInt(&m.ValueCounts, id, f.stats[i].values)
	setInt(&m.NullValueCounts, id, f.stats[i].nulls)
}
