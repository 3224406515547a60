package writer

import (
	"fmt"
	"strings"

	"github.com/floedb/floe/iceberg"
	"github.com/parquet-go/parquet-go"
)

// nodeKind is the shape of a schema node.
type nodeKind uint8

const (
	kindPrimitive nodeKind = iota
	kindStruct
	kindList
	kindMap
)

// schemaNode is one Iceberg field as it lands in the Parquet file, with the
// Dremel levels its values get.
type schemaNode struct {
	field    iceberg.NestedField
	kind     nodeKind
	children []*schemaNode // struct fields; a list's element; a map's key and value
	// omitted are a struct's fields with nothing to write (type unknown):
	// a batch may carry them, always null.
	omitted []iceberg.NestedField
	// variant marks a variant column's group (metadata and value leaves).
	variant bool
	// def is the definition level of a present value of this node. For a
	// list or map, elemDef is the level of an existing element (one above
	// def: the repeated group) and elemRep the repetition level that starts
	// each element after the first.
	def, elemDef, elemRep int
}

func (n *schemaNode) optional() bool { return !n.field.Required }

// leafColumn is one Parquet column: a primitive field and the path of nodes
// from a top-level column down to it.
type leafColumn struct {
	index  int // the column's position in the file, as parquet-go numbers it
	path   []*schemaNode
	field  iceberg.NestedField
	maxDef int
	maxRep int
	// elemDef is the definition level at which the innermost list or map
	// element holding this leaf exists (0 outside lists and maps): level
	// entries below it are empty or null collections, not values.
	elemDef int
	// inRepeated marks leaves inside a list or map, which get counts but no
	// bounds (as the spec and Java say).
	inRepeated bool
	mode       MetricsMode
}

// maxLevels is what parquet-go can hold in a level byte.
const maxLevels = 255

// fileSchema is the Parquet schema of an Iceberg schema and its leaves in
// file order.
type fileSchema struct {
	parquet *parquet.Schema
	roots   []*schemaNode // top-level fields, unknown-typed ones left out
	omitted []iceberg.NestedField
	leaves  []*leafColumn
}

// buildFileSchema maps an Iceberg schema to Parquet the way the spec's
// appendix and Java's TypeToMessageType do: field ids on every field,
// 3-level lists and maps, decimals on INT32/INT64/FIXED by precision, uuid
// as FIXED[16] with the UUID annotation. Columns of type unknown are left
// out, as the spec requires. dict turns on dictionary encoding for every
// type but boolean, float and double (see isFloating), except the columns
// it names PLAIN.
func buildFileSchema(schema *iceberg.Schema, dict dictionaryChoice) (*fileSchema, error) {
	fs := &fileSchema{}
	var fields []parquet.Field
	for _, f := range schema.Fields {
		n, pq, err := buildNode(f, 0, 0, dict)
		if err != nil {
			return nil, err
		}
		if n == nil {
			fs.omitted = append(fs.omitted, f)
			continue
		}
		fs.roots = append(fs.roots, n)
		fields = append(fields, namedField{Node: pq, name: f.Name})
	}
	if len(fs.roots) == 0 {
		return nil, fmt.Errorf("schema %d has no column that can be written to Parquet", schema.ID)
	}
	fs.parquet = parquet.NewSchema("table", &orderedGroup{fields: fields})
	for _, r := range fs.roots {
		collectLeaves(fs, nil, r, 0, false)
	}
	cols := fs.parquet.Columns()
	if len(cols) != len(fs.leaves) {
		return nil, fmt.Errorf("internal error: %d Parquet columns for %d leaves", len(cols), len(fs.leaves))
	}
	for i, l := range fs.leaves {
		l.index = i
		if got := strings.Join(cols[i], "."); got != l.parquetPath() {
			return nil, fmt.Errorf("internal error: Parquet column %d is %s, expected %s", i, got, l.parquetPath())
		}
	}
	return fs, nil
}

// buildNode builds the Parquet node of a field whose parent values are
// present at definition level def and repetition level rep. A nil node means
// the field has nothing to write (unknown type, or a struct of only those).
func buildNode(f iceberg.NestedField, def, rep int, dict dictionaryChoice) (*schemaNode, parquet.Node, error) {
	n := &schemaNode{field: f, def: def}
	if !f.Required {
		n.def++
	}
	if n.def > maxLevels-2 || rep > maxLevels-1 {
		return nil, nil, fmt.Errorf("column %q is nested too deeply for Parquet levels", f.Name)
	}
	var pq parquet.Node
	switch t := f.Type.(type) {
	case iceberg.UnknownType:
		return nil, nil, nil
	case *iceberg.StructType:
		n.kind = kindStruct
		var fields []parquet.Field
		for _, cf := range t.Fields {
			c, cpq, err := buildNode(cf, n.def, rep, dict)
			if err != nil {
				return nil, nil, fmt.Errorf("%s.%w", f.Name, err)
			}
			if c == nil {
				n.omitted = append(n.omitted, cf)
				continue
			}
			n.children = append(n.children, c)
			fields = append(fields, namedField{Node: cpq, name: cf.Name})
		}
		if len(fields) == 0 {
			return nil, nil, nil
		}
		pq = &orderedGroup{fields: fields}
	case *iceberg.ListType:
		n.kind = kindList
		n.elemDef, n.elemRep = n.def+1, rep+1
		elem := iceberg.NestedField{ID: t.ElementID, Name: "element", Type: t.Element, Required: t.ElementRequired}
		c, cpq, err := buildNode(elem, n.elemDef, n.elemRep, dict)
		if err != nil {
			return nil, nil, fmt.Errorf("%s.%w", f.Name, err)
		}
		if c == nil {
			return nil, nil, nil
		}
		n.children = []*schemaNode{c}
		pq = parquet.List(cpq)
	case *iceberg.MapType:
		n.kind = kindMap
		n.elemDef, n.elemRep = n.def+1, rep+1
		key := iceberg.NestedField{ID: t.KeyID, Name: "key", Type: t.Key, Required: true}
		val := iceberg.NestedField{ID: t.ValueID, Name: "value", Type: t.Value, Required: t.ValueRequired}
		kn, kpq, err := buildNode(key, n.elemDef, n.elemRep, dict)
		if err != nil {
			return nil, nil, fmt.Errorf("%s.%w", f.Name, err)
		}
		vn, vpq, err := buildNode(val, n.elemDef, n.elemRep, dict)
		if err != nil {
			return nil, nil, fmt.Errorf("%s.%w", f.Name, err)
		}
		if kn == nil || vn == nil {
			return nil, nil, fmt.Errorf("map %q: keys and values of type unknown cannot be written", f.Name)
		}
		n.children = []*schemaNode{kn, vn}
		pq = parquet.Map(kpq, vpq)
	case iceberg.VariantType:
		var err error
		if pq, err = buildVariantNode(n, dict.on); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f.Name, err)
		}
	default:
		leaf, err := parquetLeaf(f.Type, dict.leaf(f.ID))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		pq = leaf
	}
	if f.Required {
		pq = parquet.Required(pq)
	} else {
		pq = parquet.Optional(pq)
	}
	return n, parquet.FieldID(pq, f.ID), nil
}

// parquetLeaf is the Parquet leaf of a primitive type.
func parquetLeaf(t iceberg.Type, dictionary bool) (parquet.Node, error) {
	var n parquet.Node
	switch t := t.(type) {
	case iceberg.BooleanType:
		return parquet.Encoded(parquet.Leaf(parquet.BooleanType), &parquet.Plain), nil
	case iceberg.IntType:
		n = parquet.Leaf(parquet.Int32Type)
	case iceberg.LongType:
		n = parquet.Leaf(parquet.Int64Type)
	case iceberg.FloatType:
		n = parquet.Leaf(parquet.FloatType)
	case iceberg.DoubleType:
		n = parquet.Leaf(parquet.DoubleType)
	case iceberg.DateType:
		n = parquet.Date()
	case iceberg.TimeType:
		n = parquet.TimeAdjusted(parquet.Microsecond, false)
	case iceberg.TimestampType:
		n = parquet.TimestampAdjusted(parquet.Microsecond, false)
	case iceberg.TimestamptzType:
		n = parquet.TimestampAdjusted(parquet.Microsecond, true)
	case iceberg.TimestampNsType:
		n = parquet.TimestampAdjusted(parquet.Nanosecond, false)
	case iceberg.TimestamptzNsType:
		n = parquet.TimestampAdjusted(parquet.Nanosecond, true)
	case iceberg.StringType:
		n = parquet.String()
	case iceberg.UUIDType:
		n = parquet.UUID()
	case iceberg.FixedType:
		n = parquet.Leaf(parquet.FixedLenByteArrayType(t.Length))
	case iceberg.BinaryType:
		n = parquet.Leaf(parquet.ByteArrayType)
	case iceberg.GeometryType, iceberg.GeographyType:
		n = geoLeaf(t)
	case iceberg.DecimalType:
		switch {
		case t.Precision <= 9:
			n = parquet.Decimal(t.Scale, t.Precision, parquet.Int32Type)
		case t.Precision <= 18:
			n = parquet.Decimal(t.Scale, t.Precision, parquet.Int64Type)
		default:
			n = parquet.Decimal(t.Scale, t.Precision, parquet.FixedLenByteArrayType(decimalBytes(t.Precision)))
		}
	default:
		return nil, fmt.Errorf("type %v cannot be written to Parquet", t)
	}
	if dictionary && !isFloating(t) {
		return parquet.Encoded(n, &parquet.RLEDictionary), nil
	}
	// PLAIN rather than parquet-go's DELTA_LENGTH_BYTE_ARRAY default for
	// strings, which older readers lack.
	return parquet.Encoded(n, &parquet.Plain), nil
}

// isFloating: FLOAT and DOUBLE leaves are written PLAIN even where other
// types get a dictionary. floe 0.1.0 wrote them through parquet-go (v0.32),
// whose bounds of a dictionary-encoded float page a NaN poisons, and the
// reader distrusts the float bounds of those files by their encoding
// (reader/prune's knownBadFloatBounds). writer/parquetfile leaves NaN out of
// every bound; floats stay PLAIN, as they are mostly distinct anyway.
func isFloating(t iceberg.Type) bool {
	switch t.(type) {
	case iceberg.FloatType, iceberg.DoubleType:
		return true
	}
	return false
}

// decimalBytes is the fewest bytes whose two's complement holds every
// unscaled value of the precision (Java's TypeUtil.decimalRequiredBytes).
func decimalBytes(precision int) int {
	// 10^p - 1 needs ceil(p·log2(10)) bits plus a sign bit.
	const log2of10 = 3.321928094887362
	bits := int(float64(precision)*log2of10) + 2
	return (bits + 7) / 8
}

func collectLeaves(fs *fileSchema, path []*schemaNode, n *schemaNode, elemDef int, inRepeated bool) {
	path = append(path[:len(path):len(path)], n)
	switch n.kind {
	case kindPrimitive:
		maxRep := 0
		for _, p := range path {
			if p.kind == kindList || p.kind == kindMap {
				maxRep = p.elemRep
			}
		}
		fs.leaves = append(fs.leaves, &leafColumn{
			path: path, field: n.field, maxDef: n.def, maxRep: maxRep,
			elemDef: elemDef, inRepeated: inRepeated,
		})
	case kindStruct:
		for _, c := range n.children {
			collectLeaves(fs, path, c, elemDef, inRepeated)
		}
	case kindList, kindMap:
		for _, c := range n.children {
			collectLeaves(fs, path, c, n.elemDef, true)
		}
	}
}

// parquetPath is the leaf's dotted column path in the file.
func (l *leafColumn) parquetPath() string {
	var parts []string
	for i, n := range l.path {
		if i > 0 {
			switch l.path[i-1].kind {
			case kindList:
				parts = append(parts, "list")
			case kindMap:
				parts = append(parts, "key_value")
			}
		}
		parts = append(parts, n.field.Name)
	}
	return strings.Join(parts, ".")
}
