package scan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/reader/parquet"
)

// columnPlan says how one output field, at any depth, is produced from one
// data file, in the spec's order: the file's column with the field's id;
// else the file's identity-partition value; else the column the name
// mapping names (files without field ids); else the field's initial
// default; else nulls.
type columnPlan struct {
	field  iceberg.NestedField
	target arrow.DataType
	// node is the file's column, nil when the file lacks the field.
	node *parquet.Node
	// readAs is the type a leaf is decoded as: the file's width when the
	// table promoted the column since (int→long, float→double, narrower
	// decimals, date→timestamp); a kernel casts it to target.
	readAs arrow.DataType
	// children: a struct's output fields; a list's element; a map's key
	// and value.
	children []*columnPlan
	// probe is set for a struct none of whose asked-for fields the file
	// has: one of its own children is decoded only to learn which structs
	// are null.
	probe *parquet.Node
	// constant stands in for a missing field (nil: nulls).
	constant any
	// meta is the reserved field id of a metadata column, 0 otherwise.
	meta int
}

// fileResolver finds the file's node for a table field.
type fileResolver struct {
	file    *parquet.File
	byID    bool
	mapping iceberg.NameMapping
	task    *Task
}

func newFileResolver(f *parquet.File, task *Task) *fileResolver {
	r := &fileResolver{file: f, task: task}
	for _, n := range f.Root.Children {
		if n.HasFieldID {
			r.byID = true
			break
		}
	}
	if !r.byID {
		// The scan put the table's mapping on the task only if it agrees
		// with the schema (iceberg.EffectiveNameMapping); else the
		// schema's own names map the file.
		r.mapping = task.NameMapping
		if r.mapping == nil {
			r.mapping = iceberg.MappingFromFields(task.fieldsRead())
		}
	}
	return r
}

// planFields plans every projected field against the file.
func (r *fileResolver) planFields(fields []iceberg.NestedField) ([]*columnPlan, error) {
	out := make([]*columnPlan, len(fields))
	for i, f := range fields {
		p, err := r.plan(f, r.file.Root, r.mapping)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

func (r *fileResolver) plan(f iceberg.NestedField, parent *parquet.Node, mapping iceberg.NameMapping) (*columnPlan, error) {
	if parent == r.file.Root && isMetadataFieldID(f.ID) {
		return r.planMetadata(f)
	}
	node, sub := r.find(parent, f.ID, mapping)
	return r.planAt(f, node, sub)
}

// planAt plans f against its file node (nil when the file lacks it); sub
// is the name mapping below the node, for files without field ids.
func (r *fileResolver) planAt(f iceberg.NestedField, node *parquet.Node, sub iceberg.NameMapping) (*columnPlan, error) {
	target, err := arrowschema.ArrowType(f.Type)
	if err != nil {
		return nil, err
	}
	p := &columnPlan{field: f, target: target}
	if node == nil {
		p.constant = r.missingValue(f)
		return p, r.planMissingChildren(p)
	}
	p.node = node
	mismatch := func(kind string) error {
		return fmt.Errorf("column %q is a %s in the table but a %s in %s", f.Name, kind, node.Kind, r.task.Path)
	}
	switch t := f.Type.(type) {
	case *iceberg.StructType:
		if node.Kind != parquet.KindStruct {
			return nil, mismatch("struct")
		}
		present := false
		for _, cf := range t.Fields {
			cp, err := r.plan(cf, node, sub)
			if err != nil {
				return nil, err
			}
			present = present || cp.node != nil
			p.children = append(p.children, cp)
		}
		if !present {
			if len(node.Children) == 0 {
				return nil, fmt.Errorf("struct column %q has no fields in %s", f.Name, r.task.Path)
			}
			p.probe = node.Children[0]
		}
	case *iceberg.ListType:
		if node.Kind != parquet.KindList || node.ListElement() == nil {
			return nil, mismatch("list")
		}
		elem := iceberg.NestedField{ID: t.ElementID, Name: "element", Type: t.Element, Required: t.ElementRequired}
		cp, err := r.planAt(elem, node.ListElement(), subMapping(sub, "element"))
		if err != nil {
			return nil, err
		}
		p.children = []*columnPlan{cp}
	case *iceberg.MapType:
		if node.Kind != parquet.KindMap || node.MapKey() == nil || node.MapValue() == nil {
			return nil, mismatch("map")
		}
		key := iceberg.NestedField{ID: t.KeyID, Name: "key", Type: t.Key, Required: true}
		val := iceberg.NestedField{ID: t.ValueID, Name: "value", Type: t.Value, Required: t.ValueRequired}
		kp, err := r.planAt(key, node.MapKey(), subMapping(sub, "key"))
		if err != nil {
			return nil, err
		}
		vp, err := r.planAt(val, node.MapValue(), subMapping(sub, "value"))
		if err != nil {
			return nil, err
		}
		p.children = []*columnPlan{kp, vp}
	case iceberg.VariantType:
		if err := parquet.CheckVariantNode(node); err != nil {
			return nil, fmt.Errorf("column %q is a variant in the table, but in %s: %w", f.Name, r.task.Path, err)
		}
	default:
		if !node.IsLeaf() {
			return nil, mismatch(f.Type.String())
		}
		p.readAs = fileWidth(node, target)
	}
	return p, nil
}

// planMetadata plans a metadata column: row lineage columns a compacted
// file may store (read by id, nulls computed later), the rest constants
// of the task or computed per batch.
func (r *fileResolver) planMetadata(f iceberg.NestedField) (*columnPlan, error) {
	target, err := arrowschema.ArrowType(f.Type)
	if err != nil {
		return nil, err
	}
	p := &columnPlan{field: f, target: target, meta: f.ID}
	switch f.ID {
	case FieldIDRowID, FieldIDLastUpdatedSequenceNumber:
		if r.byID {
			if node, _ := r.find(r.file.Root, f.ID, nil); node != nil && node.IsLeaf() {
				p.node, p.readAs = node, fileWidth(node, target)
			}
		}
	case FieldIDFile:
		p.constant = r.task.filePathAsWritten()
	case FieldIDSpecID:
		p.constant = int32(r.task.SpecID)
	case FieldIDPartition:
		tuple := r.task.PartitionTuple
		if tuple == nil {
			tuple = make([]any, len(f.Type.(*iceberg.StructType).Fields))
		}
		p.constant = tuple
	}
	return p, nil
}

// find returns the child of parent that holds field id, and the name
// mapping one level below it.
func (r *fileResolver) find(parent *parquet.Node, id int, mapping iceberg.NameMapping) (*parquet.Node, iceberg.NameMapping) {
	if r.byID {
		for _, c := range parent.Children {
			if c.HasFieldID && int(c.FieldID) == id {
				return c, nil
			}
		}
		return nil, nil
	}
	for _, mf := range mapping {
		if mf.FieldID == nil || *mf.FieldID != id {
			continue
		}
		for _, c := range parent.Children {
			for _, name := range mf.Names {
				if c.Name == name {
					return c, mf.Fields
				}
			}
		}
	}
	return nil, nil
}

func subMapping(m iceberg.NameMapping, name string) iceberg.NameMapping {
	if mf, ok := m.Find(name); ok {
		return mf.Fields
	}
	return nil
}

// missingValue is what stands in for a field the file lacks.
func (r *fileResolver) missingValue(f iceberg.NestedField) any {
	if v, ok := r.task.IdentityPartition[f.ID]; ok {
		return v
	}
	return f.InitialDefault
}

// planMissingChildren gives a missing struct's fields their own defaults
// when the struct itself has none.
func (r *fileResolver) planMissingChildren(p *columnPlan) error {
	st, ok := p.field.Type.(*iceberg.StructType)
	if !ok || p.constant != nil {
		return nil
	}
	for _, cf := range st.Fields {
		target, err := arrowschema.ArrowType(cf.Type)
		if err != nil {
			return err
		}
		cp := &columnPlan{field: cf, target: target, constant: r.missingValue(cf)}
		if err := r.planMissingChildren(cp); err != nil {
			return err
		}
		p.children = append(p.children, cp)
	}
	return nil
}

// fileWidth is the type to decode a leaf as: target, unless the file holds
// the narrower type of a promotion.
func fileWidth(n *parquet.Node, target arrow.DataType) arrow.DataType {
	switch target.ID() {
	case arrow.INT64:
		// An unsigned 32-bit column is widened as it is decoded, with
		// zeros; the int→long kernel would extend its sign.
		unsigned32 := n.Logical.Kind == parquet.LogicalInteger && !n.Logical.Signed && n.Logical.BitWidth == 32
		if n.Physical == parquet.Int32 && n.Logical.Kind != parquet.LogicalDecimal && !unsigned32 {
			return arrow.PrimitiveTypes.Int32
		}
	case arrow.FLOAT64:
		if n.Physical == parquet.Float {
			return arrow.PrimitiveTypes.Float32
		}
	case arrow.TIMESTAMP:
		if n.Logical.Kind == parquet.LogicalDate {
			return arrow.FixedWidthTypes.Date32
		}
	case arrow.DECIMAL128:
		if n.Logical.Kind == parquet.LogicalDecimal && n.Logical.Precision > 0 && int32(n.Logical.Precision) < target.(*arrow.Decimal128Type).Precision {
			return &arrow.Decimal128Type{Precision: int32(n.Logical.Precision), Scale: target.(*arrow.Decimal128Type).Scale}
		}
	}
	return target
}

// fieldsRead are the top-level fields a task reads from its file, once
// each: the whole fields its filter and equality deletes read first, so
// that a struct the projection pruned is still named whole, then its
// output fields.
func (t *Task) fieldsRead() []iceberg.NestedField {
	var out []iceberg.NestedField
	seen := map[int]bool{}
	for _, list := range [][]iceberg.NestedField{t.FilterFields, t.EqualityFields, t.Fields} {
		for _, f := range list {
			if !seen[f.ID] {
				seen[f.ID] = true
				out = append(out, f)
			}
		}
	}
	return out
}
