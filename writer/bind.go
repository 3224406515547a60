package writer

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/kernels"
)

// FieldIDKey is the Arrow field metadata key that carries an Iceberg field
// id (the one the reader sets). The writer ignores it: input binds by name
// (bindSchema).
const FieldIDKey = "PARQUET:field_id"

// batchBinding is where each leaf's values are in batches of one Arrow
// schema, and how they convert.
type batchBinding struct {
	schema *arrow.Schema
	leaves []leafBinding
}

// leafBinding locates one leaf: childIndex[k] is the position of the leaf
// path's k-th node among its Arrow parent's children (the record's columns
// for k = 0; 0 for a list element, 0 or 1 for a map key or value), -1 when
// the batch lacks it.
type leafBinding struct {
	childIndex []int
	// promote is the type the leaf's values are widened to before they
	// convert (promotion), nil when they convert as they are.
	promote  arrow.DataType
	conv     convKind
	scale    int64
	decBytes int
}

// bindSchema matches an Arrow schema to the file schema by name, at every
// depth (struct fields by name; a list's element and a map's key and value
// by position). Field ids an Arrow field carries are ignored: they belong
// to whatever table the batch came from (a scan of another table), and
// binding by them would put one table's column into another's column of
// the same id. A batch column the table does not have is an error naming
// the closest column (its data would be lost), as is a type that cannot be
// written as the column's type or promoted to it (int8/16/32 into long,
// float32 into double, a narrower decimal into a wider one); a missing
// column is written as nulls when it is optional. Every refusal is an
// invalid argument.
func bindSchema(fs *fileSchema, as *arrow.Schema) (*batchBinding, error) {
	b := &batchBinding{schema: as, leaves: make([]leafBinding, len(fs.leaves))}
	rootIndex, err := matchFields(fs.roots, fs.omitted, as.Fields(), "")
	if err != nil {
		return nil, err
	}
	for li, leaf := range fs.leaves {
		lb := &b.leaves[li]
		lb.childIndex = make([]int, len(leaf.path))
		var arrowType arrow.DataType
		for k, n := range leaf.path {
			var idx int
			switch {
			case k == 0:
				idx = rootIndex[n]
			case arrowType == nil:
				idx = -1
			default:
				parent := leaf.path[k-1]
				switch parent.kind {
				case kindStruct:
					st := arrowType.(*arrow.StructType)
					m, err := matchFields(parent.children, parent.omitted, st.Fields(), pathName(leaf.path[:k])+".")
					if err != nil {
						return nil, err
					}
					idx = m[n]
				case kindList:
					idx = 0
				case kindMap:
					idx = 0
					if n == parent.children[1] {
						idx = 1
					}
				}
			}
			lb.childIndex[k] = idx
			if idx < 0 {
				// A required field is missing only when its parent is
				// there: under a missing optional column (a map's key, a
				// list's required element) nothing is written.
				if !n.optional() && (k == 0 || arrowType != nil) {
					return nil, errkind.Errorf(errkind.InvalidArgument, "required column %q is missing from the input", pathName(leaf.path[:k+1]))
				}
				arrowType = nil
				continue
			}
			if arrowType, err = childType(leaf.path, k, idx, as, arrowType); err != nil {
				return nil, err
			}
			if err := checkShape(n, leaf.path[:k+1], arrowType); err != nil {
				return nil, err
			}
		}
		if arrowType != nil {
			if lb.promote = promotion(leaf.field.Type, arrowType); lb.promote != nil {
				arrowType = lb.promote
			}
			if lb.conv, lb.scale, lb.decBytes, err = convFor(leaf.field.Type, arrowType); err != nil {
				return nil, errkind.Errorf(errkind.InvalidArgument, "column %q: %w", pathName(leaf.path), err)
			}
		}
	}
	return b, nil
}

// promotion is the Arrow type values of Arrow type at are widened to
// before they are written as Iceberg type t, nil when they are written as
// they are: the widenings Iceberg's schema evolution allows (int into
// long; float into double), from Arrow's narrower integers too. A decimal
// of lower precision needs none: its values are already what the wider
// column holds.
func promotion(t iceberg.Type, at arrow.DataType) arrow.DataType {
	switch t.(type) {
	case iceberg.LongType:
		switch at.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32:
			return arrow.PrimitiveTypes.Int64
		}
	case iceberg.IntType:
		switch at.ID() {
		case arrow.INT8, arrow.INT16:
			return arrow.PrimitiveTypes.Int32
		}
	case iceberg.DoubleType:
		if at.ID() == arrow.FLOAT32 {
			return arrow.PrimitiveTypes.Float64
		}
	}
	return nil
}

// pathName is the dotted name of a path of schema nodes, as errors show a
// column.
func pathName(path []*schemaNode) string {
	names := make([]string, len(path))
	for i, n := range path {
		names[i] = n.field.Name
	}
	return strings.Join(names, ".")
}

// childType is the storage type of the k-th node of a path, found at
// position idx under the previous node's type parent (the schema at k = 0).
func childType(path []*schemaNode, k, idx int, as *arrow.Schema, parent arrow.DataType) (arrow.DataType, error) {
	if k == 0 {
		return storageType(as.Field(idx).Type), nil
	}
	switch path[k-1].kind {
	case kindStruct:
		return storageType(parent.(*arrow.StructType).Field(idx).Type), nil
	case kindList:
		return storageType(parent.(arrow.ListLikeType).Elem()), nil
	case kindMap:
		mt := parent.(*arrow.MapType)
		if idx == 0 {
			return storageType(mt.KeyType()), nil
		}
		return storageType(mt.ItemType()), nil
	}
	return nil, fmt.Errorf("internal error: %s has no children", path[k-1].field.Name)
}

// checkShape checks that a nested node (at path) meets an Arrow type of its
// shape.
func checkShape(n *schemaNode, path []*schemaNode, t arrow.DataType) error {
	ok := true
	switch n.kind {
	case kindStruct:
		_, ok = t.(*arrow.StructType)
	case kindList:
		ok = t.ID() == arrow.LIST || t.ID() == arrow.LARGE_LIST
	case kindMap:
		ok = t.ID() == arrow.MAP
	}
	if !ok {
		return errkind.Errorf(errkind.InvalidArgument, "column %q is %s but the input has Arrow %s", pathName(path), n.field.Type, t)
	}
	return nil
}

// matchFields pairs schema nodes with Arrow fields by name. Arrow fields
// named as an omitted field (type unknown) are skipped. prefix is the
// parent's dotted name and a dot, for errors.
func matchFields(nodes []*schemaNode, omitted []iceberg.NestedField, fields []arrow.Field, prefix string) (map[*schemaNode]int, error) {
	byName := make(map[string]*schemaNode, len(nodes))
	for _, n := range nodes {
		byName[n.field.Name] = n
	}
	skip := func(f arrow.Field) bool {
		for _, o := range omitted {
			if o.Name == f.Name {
				return true
			}
		}
		return false
	}
	out := make(map[*schemaNode]int, len(nodes))
	for _, n := range nodes {
		out[n] = -1
	}
	for i, f := range fields {
		if skip(f) {
			continue
		}
		n := byName[f.Name]
		if n == nil {
			names := make([]string, 0, len(nodes)+len(omitted))
			for _, s := range nodes {
				names = append(names, s.field.Name)
			}
			return nil, iceberg.UnknownColumn(prefix, f.Name, names)
		}
		if out[n] >= 0 {
			return nil, errkind.Errorf(errkind.InvalidArgument, "the input has column %q twice", prefix+f.Name)
		}
		out[n] = i
	}
	return out, nil
}

// leafArrays resolves a leaf's path in a batch: arrays[k] is the array of
// the path's k-th node, nil where the batch lacks it. Extension arrays are
// unwrapped to their storage; a leaf the binding promotes is widened into
// Go memory (the collector frees it once the batch is written), with the
// same length and positions, so its parents' offsets still index it.
func leafArrays(dst []arrow.Array, rec arrow.RecordBatch, leaf *leafColumn, lb *leafBinding) ([]arrow.Array, error) {
	dst = dst[:0]
	var a arrow.Array
	for k := range leaf.path {
		idx := lb.childIndex[k]
		switch {
		case idx < 0:
			a = nil
		case k == 0:
			a = storage(rec.Column(idx))
		case a == nil:
		default:
			switch p := a.(type) {
			case *array.Struct:
				a = storage(p.Field(idx))
			case *array.Map:
				if idx == 0 {
					a = storage(p.Keys())
				} else {
					a = storage(p.Items())
				}
			case array.ListLike:
				a = storage(p.ListValues())
			}
		}
		dst = append(dst, a)
	}
	if last := len(dst) - 1; lb.promote != nil && dst[last] != nil {
		wide, err := kernels.Promote(dst[last], lb.promote, memory.DefaultAllocator)
		if err != nil {
			return nil, errkind.Errorf(errkind.InvalidArgument, "column %q: %w", pathName(leaf.path), err)
		}
		dst[last] = wide
	}
	return dst, nil
}
