package parquet

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A variant column is a Parquet group (annotated VARIANT, or bare from
// older writers) of a required binary `metadata`, a binary `value` and,
// when the writer shredded it, an optional `typed_value` holding the
// values of one type as ordinary columns (recursively: objects as groups
// of value/typed_value pairs, arrays as lists of them). The decoder reads
// the group as the struct it physically is; buildVariant turns it into
// Arrow's canonical variant extension type, always unshredded: metadata
// and the full value binary.

// CheckVariantNode reports whether node is laid out as a variant group.
func CheckVariantNode(node *Node) error {
	if node.Kind != KindStruct {
		return fmt.Errorf("%s is a %s, not a variant group", node.DottedPath(), node.Kind)
	}
	var meta, value, typed *Node
	for _, c := range node.Children {
		switch c.Name {
		case "metadata":
			meta = c
		case "value":
			value = c
		case "typed_value":
			typed = c
		default:
			return fmt.Errorf("variant group %s has an unexpected field %q", node.DottedPath(), c.Name)
		}
	}
	if meta == nil || meta.Physical != ByteArray {
		return fmt.Errorf("variant group %s has no binary metadata field", node.DottedPath())
	}
	if value == nil && typed == nil {
		return fmt.Errorf("variant group %s has neither a value nor a typed_value field", node.DottedPath())
	}
	if value != nil && value.Physical != ByteArray {
		return fmt.Errorf("variant group %s: value is not binary", node.DottedPath())
	}
	return nil
}

// BuildVariant turns the decoded variant group s into a variant extension
// array. Unshredded groups (the common case) are relabelled, sharing every
// buffer; shredded ones are reassembled row by row.
func BuildVariant(s *array.Struct, node *Node, target arrow.DataType, mem memory.Allocator) (arrow.Array, error) {
	st := s.DataType().(*arrow.StructType)
	mi, _ := st.FieldIdx("metadata")
	vi, hasValue := st.FieldIdx("value")
	_, shredded := st.FieldIdx("typed_value")
	if mi < 0 || st.Field(mi).Type.ID() != arrow.BINARY {
		return nil, fmt.Errorf("variant %s: metadata decoded as %s", node.DottedPath(), st)
	}
	// Children are null wherever the group is, so equal null counts mean
	// every present row has its metadata (and value).
	if s.Field(mi).NullN() != s.NullN() {
		return nil, fmt.Errorf("variant %s: a present row has no metadata", node.DottedPath())
	}
	if !shredded && hasValue && st.Field(vi).Type.ID() == arrow.BINARY && s.Field(vi).NullN() == s.NullN() {
		d := s.Data()
		children := []arrow.ArrayData{s.Field(mi).Data(), s.Field(vi).Data()}
		return WrapData(array.NewData(target, d.Len(), d.Buffers()[:1], children, d.NullN(), d.Offset())), nil
	}
	return unshredVariant(s, node, mem)
}

// unshredVariant rebuilds each present row's full value from its shredded
// columns (arrow-go's variant reader does the merging) and appends it to
// an unshredded builder. arrow-go panics on some malformed layouts its type
// check lets through; such a file gives an error, not a crash.
func unshredVariant(s *array.Struct, node *Node, mem memory.Allocator) (out arrow.Array, err error) {
	storage, err := variantStorage(s.Data(), node, mem)
	if err != nil {
		return nil, fmt.Errorf("variant %s: %w", node.DottedPath(), err)
	}
	defer storage.Release()
	vt, err := extensions.NewVariantType(storage.DataType())
	if err != nil {
		return nil, fmt.Errorf("variant %s is not a valid shredded variant: %w", node.DottedPath(), err)
	}
	st := array.MakeFromData(storage)
	defer st.Release()
	in := array.NewExtensionArrayWithStorage(vt, st).(*extensions.VariantArray)
	defer in.Release()
	b := extensions.NewVariantBuilder(mem, extensions.NewDefaultVariantType())
	defer b.Release()
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("variant %s: malformed shredded value: %v", node.DottedPath(), r)
		}
	}()
	b.Reserve(in.Len())
	for i := range in.Len() {
		if st.IsNull(i) {
			b.AppendNull()
			continue
		}
		v, err := in.Value(i)
		if err != nil {
			return nil, fmt.Errorf("variant %s, row %d: %w", node.DottedPath(), i, err)
		}
		b.Append(v)
	}
	return b.NewArray(), nil
}

// variantStorage relabels a decoded variant level (the group itself, or
// a value/typed_value pair below it: a shredded object's field or array
// element) as the storage arrow-go's variant reader expects: the
// nullability the shredding spec gives each field whatever the file
// declared, 16-byte UUID columns as arrow.uuid, and decimals in the width
// of their physical type (decimal4 from INT32, decimal8 from INT64), so a
// reassembled value has the variant types the writer shredded.
func variantStorage(d arrow.ArrayData, node *Node, mem memory.Allocator) (arrow.ArrayData, error) {
	if node.Kind != KindStruct || len(node.Children) != len(d.Children()) {
		return nil, fmt.Errorf("shredded variant level %s is not a group of value and typed_value", node.DottedPath())
	}
	fields := make([]arrow.Field, len(node.Children))
	children := make([]arrow.ArrayData, 0, len(node.Children))
	defer func() { ReleaseData(children) }()
	for i, c := range node.Children {
		var child arrow.ArrayData
		var err error
		switch c.Name {
		case "typed_value":
			child, err = variantTyped(d.Children()[i], c, mem)
		case "metadata", "value":
			child, err = variantLeaf(d.Children()[i], c, mem)
		default:
			err = fmt.Errorf("variant level %s has an unexpected field %q", node.DottedPath(), c.Name)
		}
		if err != nil {
			return nil, err
		}
		children = append(children, child)
		fields[i] = arrow.Field{Name: c.Name, Type: child.DataType(), Nullable: c.Name != "metadata"}
	}
	return array.NewData(arrow.StructOf(fields...), d.Len(), d.Buffers()[:1], children, d.NullN(), d.Offset()), nil
}

// variantTyped relabels a typed_value: a primitive, an array (a list of
// levels) or an object (a group whose fields are levels, required).
func variantTyped(d arrow.ArrayData, node *Node, mem memory.Allocator) (arrow.ArrayData, error) {
	switch node.Kind {
	case KindPrimitive:
		return variantLeaf(d, node, mem)
	case KindList:
		elem := node.ListElement()
		if elem == nil {
			return nil, fmt.Errorf("shredded array %s has no element", node.DottedPath())
		}
		child, err := variantStorage(d.Children()[0], elem, mem)
		if err != nil {
			return nil, err
		}
		defer child.Release()
		lt := arrow.ListOfField(arrow.Field{Name: "element", Type: child.DataType(), Nullable: false})
		return array.NewData(lt, d.Len(), d.Buffers(), []arrow.ArrayData{child}, d.NullN(), d.Offset()), nil
	case KindStruct:
		if len(node.Children) != len(d.Children()) || len(node.Children) == 0 {
			return nil, fmt.Errorf("shredded object %s decoded with %d of its %d fields", node.DottedPath(), len(d.Children()), len(node.Children))
		}
		fields := make([]arrow.Field, len(node.Children))
		children := make([]arrow.ArrayData, 0, len(node.Children))
		defer func() { ReleaseData(children) }()
		for i, c := range node.Children {
			child, err := variantStorage(d.Children()[i], c, mem)
			if err != nil {
				return nil, err
			}
			children = append(children, child)
			fields[i] = arrow.Field{Name: c.Name, Type: child.DataType(), Nullable: false}
		}
		return array.NewData(arrow.StructOf(fields...), d.Len(), d.Buffers()[:1], children, d.NullN(), d.Offset()), nil
	}
	return nil, fmt.Errorf("shredded field %s is a %s", node.DottedPath(), node.Kind)
}

// variantLeaf relabels or narrows one decoded primitive of a variant group.
func variantLeaf(d arrow.ArrayData, node *Node, mem memory.Allocator) (arrow.ArrayData, error) {
	if !node.IsLeaf() {
		return nil, fmt.Errorf("variant field %s is a group where a primitive belongs", node.DottedPath())
	}
	switch {
	case node.Logical.Kind == LogicalUUID && d.DataType().ID() == arrow.FIXED_SIZE_BINARY:
		return array.NewData(extensions.NewUUIDType(), d.Len(), d.Buffers(), nil, d.NullN(), d.Offset()), nil
	case d.DataType().ID() == arrow.DECIMAL128 && (node.Physical == Int32 || node.Physical == Int64):
		dt := d.DataType().(*arrow.Decimal128Type)
		width := 4
		var to arrow.DataType = &arrow.Decimal32Type{Precision: dt.Precision, Scale: dt.Scale}
		if node.Physical == Int64 {
			width = 8
			to = &arrow.Decimal64Type{Precision: dt.Precision, Scale: dt.Scale}
		}
		n := d.Offset() + d.Len()
		src := d.Buffers()[1].Bytes()
		buf := memory.NewResizableBuffer(mem)
		buf.Resize(n * width)
		dst := buf.Bytes()
		for i := range n {
			// Little-endian: the narrow value is the low bytes; it fits, as
			// it was decoded from a column of that width.
			lo := binary.LittleEndian.Uint64(src[i*16:])
			if width == 4 {
				binary.LittleEndian.PutUint32(dst[i*4:], uint32(lo))
			} else {
				binary.LittleEndian.PutUint64(dst[i*8:], lo)
			}
		}
		defer buf.Release()
		return array.NewData(to, d.Len(), []*memory.Buffer{d.Buffers()[0], buf}, nil, d.NullN(), d.Offset()), nil
	}
	d.Retain()
	return d, nil
}
