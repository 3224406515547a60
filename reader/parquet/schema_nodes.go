package parquet

import (
	"fmt"
	"strings"
)

// NodeKind is the shape a schema node takes when read as Arrow.
type NodeKind int8

const (
	// KindPrimitive is a leaf column.
	KindPrimitive NodeKind = iota
	// KindStruct is a group read as an Arrow struct.
	KindStruct
	// KindList is a LIST-annotated group, or a repeated field outside one
	// (read as a required list of required elements).
	KindList
	// KindMap is a MAP (or legacy MAP_KEY_VALUE) group.
	KindMap
	// KindRepeatedWrapper is the repeated middle group of a list or map
	// (`list`, `bag`, `key_value`, `map`). It is not selectable.
	KindRepeatedWrapper
)

func (k NodeKind) String() string {
	switch k {
	case KindPrimitive:
		return "primitive"
	case KindStruct:
		return "struct"
	case KindList:
		return "list"
	case KindMap:
		return "map"
	case KindRepeatedWrapper:
		return "repeated-wrapper"
	}
	return fmt.Sprintf("NodeKind(%d)", int8(k))
}

// Node is one schema element: a leaf column or a group.
type Node struct {
	Name string
	// Path is the dotted path from the root's children down to this node,
	// as the file spells it (wrapper groups included).
	Path []string
	// FieldID is valid only when HasFieldID: a writer can store id 0.
	FieldID    int32
	HasFieldID bool
	Repetition Repetition
	// Physical is NoPhysicalType for groups.
	Physical PhysicalType
	// TypeLength is the FIXED_LEN_BYTE_ARRAY width.
	TypeLength int
	// Logical is the effective annotation (see LogicalType); RawLogical
	// and Converted are what the file stored.
	Logical    LogicalType
	RawLogical LogicalType
	Converted  ConvertedType
	Kind       NodeKind
	Parent     *Node
	Children   []*Node
	// DefLevel and RepLevel count the optional/repeated and repeated nodes
	// from the root down to and including this node; for a leaf they are
	// the column's max levels.
	DefLevel, RepLevel int
	// Leaf is the column index (File.Leaves, RowGroup.Columns) of a
	// primitive node, -1 for groups.
	Leaf int
	// Synthetic marks the element node made up for a repeated field that
	// stands outside a LIST group.
	Synthetic bool

	repeated *Node // list/map: the repeated node
	element  *Node // list: the element node
	key      *Node // map
	value    *Node // map; nil for a key-only map
}

// IsLeaf reports whether the node is a primitive column.
func (n *Node) IsLeaf() bool { return n.Physical != NoPhysicalType }

// ListElement is the element node of a KindList node: by the Parquet
// backward-compatibility rules it may be the repeated node itself (a
// repeated primitive, a repeated group of several fields, or one named
// `array` or `<list>_tuple`), the repeated group's single child (standard
// 3-level lists, `bag/array_element`), or a synthetic node for a bare
// repeated field.
func (n *Node) ListElement() *Node { return n.element }

// MapKey and MapValue are the key and value nodes of a KindMap node.
// MapValue is nil for a map written with keys only.
func (n *Node) MapKey() *Node   { return n.key }
func (n *Node) MapValue() *Node { return n.value }

// RepeatedNode is the repeated node under a list or map (for a bare
// repeated field, the node itself).
func (n *Node) RepeatedNode() *Node { return n.repeated }

// DottedPath joins Path with dots.
func (n *Node) DottedPath() string { return strings.Join(n.Path, ".") }

// Child finds a direct child by name.
func (n *Node) Child(name string) *Node {
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// maxNesting keeps levels within a byte, which is how they are stored.
const maxNesting = 200

type schemaBuilder struct {
	elems  []schemaElement
	pos    int
	leaves []*Node
	nodes  []*Node
}

func buildSchema(elems []schemaElement) (root *Node, leaves, nodes []*Node, err error) {
	if len(elems) == 0 {
		return nil, nil, nil, fmt.Errorf("parquet schema is empty")
	}
	b := &schemaBuilder{elems: elems}
	root, err = b.node(nil, 0)
	if err != nil {
		return nil, nil, nil, err
	}
	if b.pos != len(elems) {
		return nil, nil, nil, fmt.Errorf("parquet schema has %d elements but the tree uses %d", len(elems), b.pos)
	}
	if root.IsLeaf() {
		return nil, nil, nil, fmt.Errorf("parquet schema root %q is not a group", root.Name)
	}
	// The root's repetition is meaningless; some writers set it anyway.
	root.Repetition, root.DefLevel, root.RepLevel = Required, 0, 0
	for _, c := range root.Children {
		relevel(c)
	}
	for _, c := range root.Children {
		classify(c, false)
	}
	root.Kind = KindStruct
	return root, b.leaves, b.nodes, nil
}

func relevel(n *Node) {
	n.DefLevel, n.RepLevel = n.Parent.DefLevel, n.Parent.RepLevel
	if n.Parent.Parent == nil {
		n.Path = []string{n.Name}
	} else {
		n.Path = append(append([]string(nil), n.Parent.Path...), n.Name)
	}
	if n.Repetition != Required {
		n.DefLevel++
	}
	if n.Repetition == Repeated {
		n.RepLevel++
	}
	for _, c := range n.Children {
		relevel(c)
	}
}

func (b *schemaBuilder) node(parent *Node, depth int) (*Node, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("parquet schema nests deeper than %d", maxNesting)
	}
	if b.pos >= len(b.elems) {
		return nil, fmt.Errorf("parquet schema ends inside a group")
	}
	e := &b.elems[b.pos]
	b.pos++
	n := &Node{
		Name:       e.name,
		FieldID:    e.fieldID,
		HasFieldID: e.hasFieldID,
		Repetition: e.repetition,
		Physical:   e.physical,
		TypeLength: int(e.typeLength),
		Converted:  e.converted,
		Parent:     parent,
		Leaf:       -1,
	}
	if parent != nil && !e.hasRepetition {
		return nil, fmt.Errorf("parquet schema element %q has no repetition", e.name)
	}
	if e.hasLogical {
		n.RawLogical = e.logical
	}
	n.Logical = effectiveLogical(e)
	b.nodes = append(b.nodes, n)
	if e.numChildren > 0 || e.physical == NoPhysicalType {
		if e.numChildren < 0 || int(e.numChildren) > len(b.elems)-b.pos {
			return nil, fmt.Errorf("parquet schema group %q claims %d children", e.name, e.numChildren)
		}
		n.Physical = NoPhysicalType
		n.Children = make([]*Node, 0, e.numChildren)
		for range e.numChildren {
			c, err := b.node(n, depth+1)
			if err != nil {
				return nil, err
			}
			n.Children = append(n.Children, c)
		}
		return n, nil
	}
	if n.Physical == FixedLenByteArray && n.TypeLength <= 0 {
		return nil, fmt.Errorf("parquet column %q is FIXED_LEN_BYTE_ARRAY of length %d", e.name, n.TypeLength)
	}
	n.Leaf = len(b.leaves)
	b.leaves = append(b.leaves, n)
	return n, nil
}

// effectiveLogical prefers the logical type and falls back to the converted
// type, so files from writers that only set one of them read the same.
func effectiveLogical(e *schemaElement) LogicalType {
	if e.hasLogical {
		switch e.logical.Kind {
		case LogicalNone, LogicalUnrecognized:
		case LogicalUnknown:
			if e.physical != NoPhysicalType {
				return e.logical
			}
			// UNKNOWN on a group: parquet-mr 1.10 wrote it on MAP_KEY_VALUE
			// groups (PARQUET-1879). Fall back to the converted type.
		case LogicalTimestamp, LogicalTime:
			if e.logical.Unit == UnitNone {
				break // a unit-less annotation is unusable; try the converted type
			}
			return e.logical
		default:
			return e.logical
		}
	}
	return fromConverted(e.converted, e.precision, e.scale)
}

func isListAnnotated(n *Node) bool {
	return n.Logical.Kind == LogicalList || n.Converted == ConvertedList
}

func isMapAnnotated(n *Node) bool {
	return n.Logical.Kind == LogicalMap || n.Converted == ConvertedMap || n.Converted == ConvertedMapKeyValue
}

// classify sets Kind and the list/map links, top-down. asElement is true
// when the node is the element of its parent list, so its own repetition
// does not make it a list again.
func classify(n *Node, asElement bool) {
	if n.IsLeaf() {
		n.Kind = KindPrimitive
		if n.Repetition == Repeated && !asElement {
			makeBareList(n)
		}
		return
	}
	if n.Repetition != Repeated || asElement {
		if len(n.Children) == 1 && n.Children[0].Repetition == Repeated {
			r := n.Children[0]
			if mapShaped(n, r) {
				n.Kind, n.repeated = KindMap, r
				r.Kind = KindRepeatedWrapper
				n.key = r.Children[0]
				classify(n.key, false)
				if len(r.Children) == 2 {
					n.value = r.Children[1]
					classify(n.value, false)
				}
				return
			}
			if isListAnnotated(n) {
				n.Kind, n.repeated = KindList, r
				n.element = listElement(n, r)
				if n.element == r {
					classify(r, true)
				} else {
					r.Kind = KindRepeatedWrapper
					classify(n.element, false)
				}
				return
			}
		}
	}
	n.Kind = KindStruct
	for _, c := range n.Children {
		classify(c, false)
	}
	if n.Repetition == Repeated && !asElement {
		makeBareList(n)
	}
}

// mapShaped accepts MAP or MAP_KEY_VALUE on the outer group, or
// MAP_KEY_VALUE on the repeated group under an unannotated one.
func mapShaped(n, r *Node) bool {
	if r.IsLeaf() || len(r.Children) < 1 || len(r.Children) > 2 {
		return false
	}
	if isListAnnotated(n) {
		return false
	}
	return isMapAnnotated(n) || r.Converted == ConvertedMapKeyValue
}

// listElement applies the LogicalTypes.md backward-compatibility rules.
func listElement(list, r *Node) *Node {
	switch {
	case r.IsLeaf():
		return r
	case len(r.Children) != 1:
		return r
	case r.Name == "array" || r.Name == list.Name+"_tuple":
		return r
	}
	return r.Children[0]
}

// makeBareList turns a repeated field outside a LIST group into a required
// list whose element is a synthetic required node sharing the field's data.
func makeBareList(n *Node) {
	e := &Node{
		Name:       "element",
		Path:       n.Path,
		Repetition: Required,
		Physical:   n.Physical,
		TypeLength: n.TypeLength,
		Logical:    n.Logical,
		RawLogical: n.RawLogical,
		Converted:  n.Converted,
		Kind:       n.Kind,
		Parent:     n,
		Children:   n.Children,
		DefLevel:   n.DefLevel,
		RepLevel:   n.RepLevel,
		Leaf:       n.Leaf,
		Synthetic:  true,
	}
	n.Kind, n.repeated, n.element = KindList, n, e
}
