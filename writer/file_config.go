package writer

import (
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/writer/parquetfile"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// newFileConfig is the configuration of every file of a writer: the
// Parquet schema's elements (parquet-go's schema nodes give the physical
// and logical types), each leaf's levels, encoding and bounds order, and
// the footer's key-value metadata.
func newFileConfig(fs *fileSchema, opts Options, schemaJSON []byte) (*parquetfile.Config, error) {
	codec, err := opts.codec()
	if err != nil {
		return nil, err
	}
	cfg := &parquetfile.Config{
		Codec:              codec,
		PageSize:           opts.PageSize,
		PageRowLimit:       opts.PageRowLimit,
		DictionaryMaxBytes: int(opts.DictionarySize),
		CreatedBy:          "floe version " + createdByVersion,
		KeyValue:           []format.KeyValue{{Key: "iceberg.schema", Value: string(schemaJSON)}},
		BloomMaxBytes:      opts.BloomFilterMaxBytes,
	}
	cfg.Schema = appendSchemaElements(nil, fs.parquet.Name(), fs.parquet, true)
	paths := fs.parquet.Columns()
	for i, leaf := range fs.leaves {
		node, _ := fs.parquet.Lookup(paths[i]...)
		t := node.Node.Type()
		col := parquetfile.Column{
			Path:       paths[i],
			Type:       *t.PhysicalType(),
			Length:     t.Length(),
			MaxDef:     leaf.maxDef,
			MaxRep:     leaf.maxRep,
			Dictionary: node.Node.Encoding() != nil && node.Node.Encoding().Encoding() == format.RLEDictionary,
			Order:      boundsOrder(leaf.field.Type),
		}
		if p, ok := opts.BloomFilters[leaf.field.ID]; ok && col.Type != format.Boolean {
			col.BloomFPP = p
		}
		cfg.Columns = append(cfg.Columns, col)
		order := format.ColumnOrder{Value: &format.TypeDefinedOrder{}}
		if o := t.ColumnOrder(); o != nil {
			order = *o
		}
		cfg.Orders = append(cfg.Orders, order)
	}
	return cfg, cfg.Validate()
}

// boundsOrder is how Parquet orders an Iceberg type's physical values:
// signed numbers (decimals too, FIXED ones as big-endian two's
// complement), unsigned bytes, floats, booleans; geo types have none.
func boundsOrder(t iceberg.Type) parquetfile.Order {
	switch t.(type) {
	case iceberg.BooleanType:
		return parquetfile.OrderBoolean
	case iceberg.FloatType, iceberg.DoubleType:
		return parquetfile.OrderFloat
	case iceberg.StringType, iceberg.BinaryType, iceberg.FixedType, iceberg.UUIDType:
		return parquetfile.OrderUnsigned
	case iceberg.GeometryType, iceberg.GeographyType:
		return parquetfile.OrderNone
	}
	return parquetfile.OrderSigned
}

// appendSchemaElements appends n and its descendants depth-first, as the
// footer lists them.
func appendSchemaElements(elems []format.SchemaElement, name string, n parquet.Node, root bool) []format.SchemaElement {
	t := n.Type()
	e := format.SchemaElement{Name: name, FieldID: int32(n.ID())}
	if !root {
		switch {
		case n.Repeated():
			e.RepetitionType.Set(format.Repeated)
		case n.Optional():
			e.RepetitionType.Set(format.Optional)
		default:
			e.RepetitionType.Set(format.Required)
		}
	}
	if lt := t.LogicalType(); lt != nil {
		e.LogicalType = *lt
		// Older readers know decimals by these (the spec recommends both).
		if d, ok := lt.Value.(*format.DecimalType); ok {
			e.Scale.Set(d.Scale)
			e.Precision.Set(d.Precision)
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		e.ConvertedType.Set(*ct)
	}
	if n.Leaf() {
		e.Type.Set(*t.PhysicalType())
		if l := t.Length(); l > 0 {
			e.TypeLength.Set(int32(l))
		}
		return append(elems, e)
	}
	fields := n.Fields()
	e.NumChildren.Set(int32(len(fields)))
	elems = append(elems, e)
	for _, f := range fields {
		elems = appendSchemaElements(elems, f.Name(), f, false)
	}
	return elems
}
