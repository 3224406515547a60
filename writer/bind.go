package writer

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg"
)

// FieldIDKey is the Arrow field metadata key that carries an Iceberg field
// id (the one the reader sets).
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
	conv       convKind
	scale      int64
	decBytes   int
}

// bindSchema matches an Arrow schema to the file schema: fields by their
// field id metadata when they carry one, else by name. A batch column the
// table does not have is an error (its data would be lost), as is a type
// that cannot be written as the column's type; a missing column is written
// as nulls when it is optional.
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
					m, err := matchFields(parent.children, parent.omitted, st.Fields(), parent.field.Name+".")
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
				if !n.optional() {
					return nil, fmt.Errorf("required column %q (id %d) is missing from the batch", n.field.Name, n.field.ID)
				}
				arrowType = nil
				continue
			}
			if arrowType, err = childType(leaf.path, k, idx, as, arrowType); err != nil {
				return nil, err
			}
			if err := checkShape(n, arrowType); err != nil {
				return nil, err
			}
		}
		if arrowType != nil {
			if lb.conv, lb.scale, lb.decBytes, err = convFor(leaf.field.Type, arrowType); err != nil {
				return nil, fmt.Errorf("column %q (id %d): %w", leaf.field.Name, leaf.field.ID, err)
			}
		}
	}
	return b, nil
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

// checkShape checks that a nested node meets an Arrow type of its shape.
func checkShape(n *schemaNode, t arrow.DataType) error {
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
		return fmt.Errorf("column %q (id %d) is %s but the batch has Arrow %s", n.field.Name, n.field.ID, n.field.Type, t)
	}
	return nil
}

// matchFields pairs schema nodes with Arrow fields: by field id where the
// Arrow field has one, else by name. Arrow fields that match an omitted
// field (type unknown) are skipped. prefix names the parent in errors.
func matchFields(nodes []*schemaNode, omitted []iceberg.NestedField, fields []arrow.Field, prefix string) (map[*schemaNode]int, error) {
	byID := map[int]*schemaNode{}
	byName := map[string]*schemaNode{}
	for _, n := range nodes {
		byID[n.field.ID] = n
		byName[n.field.Name] = n
	}
	skip := func(f arrow.Field) bool {
		id, hasID := arrowFieldID(f)
		for _, o := range omitted {
			if (hasID && o.ID == id) || (!hasID && o.Name == f.Name) {
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
		var n *schemaNode
		if id, ok := arrowFieldID(f); ok {
			if n = byID[id]; n == nil {
				return nil, fmt.Errorf("batch column %s%s has field id %d, which the table schema does not have", prefix, f.Name, id)
			}
		} else if n = byName[f.Name]; n == nil {
			return nil, fmt.Errorf("batch column %s%s is not in the table schema", prefix, f.Name)
		}
		if out[n] >= 0 {
			return nil, fmt.Errorf("batch columns %s%s and %s%s both match table column %q (id %d)",
				prefix, fields[out[n]].Name, prefix, f.Name, n.field.Name, n.field.ID)
		}
		out[n] = i
	}
	return out, nil
}

func arrowFieldID(f arrow.Field) (int, bool) {
	v, ok := f.Metadata.GetValue(FieldIDKey)
	if !ok {
		return 0, false
	}
	id, err := strconv.Atoi(v)
	return id, err == nil
}

// leafArrays resolves a leaf's path in a batch: arrays[k] is the array of
// the path's k-th node, nil where the batch lacks it. Extension arrays are
// unwrapped to their storage.
func leafArrays(dst []arrow.Array, rec arrow.RecordBatch, leaf *leafColumn, lb *leafBinding) []arrow.Array {
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
	return dst
}
