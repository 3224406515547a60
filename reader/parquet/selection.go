package parquet

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Column asks for one schema node as one Arrow array.
//
//   - Primitive node: Type is the Arrow type to produce (nil: DefaultArrowType).
//     The physical type is converted to it (widening integers, rescaling
//     time units, INT96 to timestamps, decimals from any storage, ...), or
//     the request fails if that cannot be done faithfully.
//   - Struct node: Children are the fields to read, in output order, each a
//     child of Node (nil: all children with default types). Only the
//     leaves under the chosen children are decoded.
//   - List node: Children is empty (element with its default type) or holds
//     one Column whose Node is Node.ListElement().
//   - Map node: Children is empty or holds two Columns for Node.MapKey()
//     and Node.MapValue().
//
// For groups, Type may be nil (derived: struct fields named after the file's
// nodes, list<element>, map<key, value>) or a type of the same shape whose
// leaf types equal the children's; it then becomes the output type as given,
// so the caller can rename fields or attach metadata.
type Column struct {
	Node     *Node
	Type     arrow.DataType
	Children []Column
	// Name is the field name used when this column sits inside a derived
	// struct type; empty means the node's name.
	Name string
}

// DefaultArrowType is the Arrow type a node reads as when the caller does
// not choose: the closest match to its physical type and annotation.
func DefaultArrowType(n *Node) (arrow.DataType, error) {
	col, err := resolveColumn(Column{Node: n})
	if err != nil {
		return nil, err
	}
	return col.Type, nil
}

func defaultLeafType(n *Node) (arrow.DataType, error) {
	l := n.Logical
	switch n.Physical {
	case Boolean:
		return arrow.FixedWidthTypes.Boolean, nil
	case Int32:
		switch l.Kind {
		case LogicalDate:
			return arrow.FixedWidthTypes.Date32, nil
		case LogicalDecimal:
			return decimalType(n)
		case LogicalTime:
			return arrow.FixedWidthTypes.Time32ms, nil
		case LogicalInteger:
			switch {
			case l.BitWidth == 8 && l.Signed:
				return arrow.PrimitiveTypes.Int8, nil
			case l.BitWidth == 8:
				return arrow.PrimitiveTypes.Uint8, nil
			case l.BitWidth == 16 && l.Signed:
				return arrow.PrimitiveTypes.Int16, nil
			case l.BitWidth == 16:
				return arrow.PrimitiveTypes.Uint16, nil
			case !l.Signed:
				return arrow.PrimitiveTypes.Uint32, nil
			}
		}
		return arrow.PrimitiveTypes.Int32, nil
	case Int64:
		switch l.Kind {
		case LogicalDecimal:
			return decimalType(n)
		case LogicalTimestamp:
			tz := ""
			if l.AdjustedToUTC {
				tz = "UTC"
			}
			return &arrow.TimestampType{Unit: arrowUnit(l.Unit, arrow.Microsecond), TimeZone: tz}, nil
		case LogicalTime:
			return &arrow.Time64Type{Unit: arrowUnit(l.Unit, arrow.Microsecond)}, nil
		case LogicalInteger:
			if !l.Signed {
				return arrow.PrimitiveTypes.Uint64, nil
			}
		}
		return arrow.PrimitiveTypes.Int64, nil
	case Int96:
		return arrow.FixedWidthTypes.Timestamp_ns, nil
	case Float:
		return arrow.PrimitiveTypes.Float32, nil
	case Double:
		return arrow.PrimitiveTypes.Float64, nil
	case ByteArray:
		switch l.Kind {
		case LogicalString, LogicalEnum, LogicalJSON:
			return arrow.BinaryTypes.String, nil
		case LogicalDecimal:
			return decimalType(n)
		}
		return arrow.BinaryTypes.Binary, nil
	case FixedLenByteArray:
		switch l.Kind {
		case LogicalDecimal:
			return decimalType(n)
		case LogicalFloat16:
			if n.TypeLength == 2 {
				return arrow.FixedWidthTypes.Float16, nil
			}
		}
		return &arrow.FixedSizeBinaryType{ByteWidth: n.TypeLength}, nil
	}
	return nil, fmt.Errorf("column %s has no readable physical type", n.DottedPath())
}

func decimalType(n *Node) (arrow.DataType, error) {
	p, s := n.Logical.Precision, n.Logical.Scale
	if p < 1 || p > 38 || s < 0 || s > p {
		return nil, fmt.Errorf("column %s is %s, outside decimal128", n.DottedPath(), n.Logical)
	}
	return &arrow.Decimal128Type{Precision: p, Scale: s}, nil
}

// resolveColumn fills in children and types, checking the request against
// the schema.
func resolveColumn(col Column) (Column, error) {
	n := col.Node
	if n == nil {
		return col, fmt.Errorf("column request without a node")
	}
	switch n.Kind {
	case KindPrimitive:
		if len(col.Children) > 0 {
			return col, fmt.Errorf("column %s is primitive but the request has children", n.DottedPath())
		}
		if col.Type == nil {
			t, err := defaultLeafType(n)
			if err != nil {
				return col, err
			}
			col.Type = t
		}
		return col, nil
	case KindRepeatedWrapper:
		return col, fmt.Errorf("%s is the repeated group inside a list or map; select the list or map itself", n.DottedPath())
	}
	var expect []*Node
	switch n.Kind {
	case KindStruct:
		expect = n.Children
	case KindList:
		expect = []*Node{n.element}
	case KindMap:
		if n.value == nil {
			return col, fmt.Errorf("map %s has keys but no values", n.DottedPath())
		}
		expect = []*Node{n.key, n.value}
	}
	children := col.Children
	if len(children) == 0 {
		children = make([]Column, len(expect))
		for i, c := range expect {
			children[i] = Column{Node: c}
		}
	} else {
		children = append([]Column(nil), children...)
		if n.Kind != KindStruct && len(children) != len(expect) {
			return col, fmt.Errorf("%s %s takes %d child columns, the request has %d", n.Kind, n.DottedPath(), len(expect), len(children))
		}
	}
	for i := range children {
		c := &children[i]
		if c.Node == nil && n.Kind != KindStruct {
			c.Node = expect[i]
		}
		if n.Kind == KindStruct {
			if !containsNode(expect, c.Node) {
				return col, fmt.Errorf("requested child %v is not a field of struct %s", nodeName(c.Node), n.DottedPath())
			}
		} else if c.Node != expect[i] {
			return col, fmt.Errorf("requested child %v of %s %s should be %s", nodeName(c.Node), n.Kind, n.DottedPath(), expect[i].DottedPath())
		}
		r, err := resolveColumn(*c)
		if err != nil {
			return col, err
		}
		*c = r
	}
	col.Children = children
	derived := derivedType(n, children)
	if col.Type == nil {
		col.Type = derived
	} else if !sameShape(col.Type, derived) {
		return col, fmt.Errorf("requested type %s for %s does not match its children (%s)", col.Type, n.DottedPath(), derived)
	}
	return col, nil
}

func containsNode(nodes []*Node, n *Node) bool {
	for _, c := range nodes {
		if c == n {
			return true
		}
	}
	return false
}

func nodeName(n *Node) string {
	if n == nil {
		return "<nil>"
	}
	return n.DottedPath()
}

func fieldFor(c Column) arrow.Field {
	name := c.Name
	if name == "" {
		name = c.Node.Name
	}
	return arrow.Field{Name: name, Type: c.Type, Nullable: c.Node.Repetition == Optional}
}

func derivedType(n *Node, children []Column) arrow.DataType {
	switch n.Kind {
	case KindList:
		f := fieldFor(children[0])
		f.Name = "element"
		return arrow.ListOfField(f)
	case KindMap:
		return arrow.MapOf(children[0].Type, children[1].Type)
	}
	fields := make([]arrow.Field, len(children))
	for i, c := range children {
		fields[i] = fieldFor(c)
	}
	return arrow.StructOf(fields...)
}

// sameShape accepts a caller's type for a group when only names,
// nullability and metadata differ from the derived one.
func sameShape(given, derived arrow.DataType) bool {
	switch d := derived.(type) {
	case *arrow.StructType:
		g, ok := given.(*arrow.StructType)
		if !ok || g.NumFields() != d.NumFields() {
			return false
		}
		for i := range d.NumFields() {
			if !sameShape(g.Field(i).Type, d.Field(i).Type) {
				return false
			}
		}
		return true
	case *arrow.MapType:
		g, ok := given.(*arrow.MapType)
		return ok && sameShape(g.KeyType(), d.KeyType()) && sameShape(g.ItemType(), d.ItemType())
	case *arrow.ListType:
		g, ok := given.(*arrow.ListType)
		return ok && sameShape(g.Elem(), d.Elem())
	}
	return arrow.TypeEqual(given, derived)
}
