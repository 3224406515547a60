package scan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/reader/prune"
)

// bindFilter binds the task's filter to this file's columns. A column the
// file does not store but that holds one value for all its rows (a
// missing or unmapped column: its initial-default or null; an identity
// partition's value) is decided here, by that value (expr.FoldConstants),
// so no pruning level and no kernel ever sees a predicate on it: the
// file's statistics say nothing of it, and a required flag it cannot
// honour must not fold "is null" away. The predicates left read output
// columns where the scan returns them whole, hidden ones otherwise; a
// field inside a struct reads the struct's column, cut down to the field.
func (r *taskReader) bindFilter(resolver *fileResolver) error {
	e := r.task.Filter
	if e == nil {
		return nil
	}
	schema := iceberg.NewSchema(0, r.task.FilterFields)
	constants := map[int]any{}
	decided := map[int]bool{}
	var planErr error
	expr.WalkPredicates(e, func(pe expr.Expr) {
		p, ok := pe.(*expr.Predicate)
		if !ok || planErr != nil {
			return
		}
		f, err := findColumn(schema, p.Column, r.task.CaseInsensitive)
		if err != nil || decided[f.ID] {
			return // Bind reports the error
		}
		decided[f.ID] = true
		v, constant, err := r.constantValue(resolver, schema, f)
		if err != nil {
			planErr = err
		} else if constant {
			constants[f.ID] = v
		}
	})
	if planErr != nil {
		return planErr
	}
	bound, err := expr.BindNullable(e, schema, r.task.CaseInsensitive, func(id int) bool {
		_, ok := constants[id]
		return ok
	})
	if err != nil {
		return err
	}
	folded := expr.FoldConstants(expr.RewriteNot(bound), func(id int) (any, bool) {
		v, ok := constants[id]
		return v, ok
	})
	r.filter = nil
	if _, all := folded.(expr.AlwaysTrue); all {
		return nil
	}
	c := &filterCompiler{seen: map[int]*filterNode{}, columnOf: func(field iceberg.NestedField) (int, []int, error) {
		idx, path, err := r.filterColumn(resolver, schema, field)
		if len(path) == 0 {
			path = nil
		}
		return idx, path, err
	}}
	root, err := expr.Visit[*filterNode](folded, c)
	if err != nil {
		return err
	}
	pruner, err := prune.Compile(r.file, folded, r.pruneColumns(c.seen))
	if err != nil {
		return err
	}
	r.filter = &rowFilter{expr: folded, root: root, pruner: pruner, mem: r.mem}
	r.splitConjuncts()
	return nil
}

// fieldPath is the chain of fields from the top level of schema down to
// f.
func fieldPath(schema *iceberg.Schema, f iceberg.NestedField) []iceberg.NestedField {
	path := []iceberg.NestedField{f}
	for parent := schema.ParentID(f.ID); parent != 0; parent = schema.ParentID(parent) {
		pf, _ := schema.FindField(parent)
		path = append([]iceberg.NestedField{pf}, path...)
	}
	return path
}

// constantValue reports whether field f reads as one value for every row
// of the file, and which: when the file lacks it, or lacks a struct
// above it while every struct between the top and that one is required
// (an optional struct the file has may be null in some rows, and its
// missing field with it).
func (r *taskReader) constantValue(resolver *fileResolver, schema *iceberg.Schema, f iceberg.NestedField) (any, bool, error) {
	path := fieldPath(schema, f)
	top, err := resolver.plan(path[0], r.file.Root, resolver.mapping)
	if err != nil {
		return nil, false, err
	}
	p := top
	for depth := 0; ; depth++ {
		if p.meta != 0 {
			return nil, false, nil
		}
		if p.node == nil {
			// Missing from here down: every field below has its own
			// default planned (planMissingChildren), unless the struct
			// has a default of its own, which is left to the kernels.
			for _, next := range path[depth+1:] {
				if p = childPlan(p, next.ID); p == nil {
					return nil, false, nil
				}
			}
			return p.constant, true, nil
		}
		if depth == len(path)-1 || !p.field.Required {
			return nil, false, nil
		}
		if p = childPlan(p, path[depth+1].ID); p == nil {
			return nil, false, nil
		}
	}
}

func childPlan(p *columnPlan, id int) *columnPlan {
	for _, c := range p.children {
		if c.field.ID == id {
			return c
		}
	}
	return nil
}

// filterColumn finds the column a predicate on f reads: the plan index of
// its top-level column, and the child indexes from there down to f (none
// for a top-level field). An output column serves when it holds f (a
// struct may have been projected without it); else a hidden column is
// planned, a struct cut down to the path to f.
func (r *taskReader) filterColumn(resolver *fileResolver, schema *iceberg.Schema, f iceberg.NestedField) (int, []int, error) {
	path := fieldPath(schema, f)
	for i, pl := range r.plans {
		if pl.meta != 0 || pl.field.ID != path[0].ID {
			continue
		}
		if len(path) == 1 {
			if !iceberg.IsNested(pl.field.Type) {
				return i, nil, nil
			}
			continue
		}
		if idx, ok := childIndexes(pl, path[1:]); ok {
			return i, idx, nil
		}
	}
	top := path[0]
	if len(path) > 1 {
		top = narrowedTo(path)
	}
	i, err := r.hiddenColumn(resolver, top)
	if err != nil {
		return 0, nil, err
	}
	idx := make([]int, len(path)-1) // each narrowed struct holds one field
	return i, idx, nil
}

// childIndexes are the positions of path's fields among the children of
// the plans from p down.
func childIndexes(p *columnPlan, path []iceberg.NestedField) ([]int, bool) {
	var out []int
	for _, f := range path {
		found := false
		for j, c := range p.children {
			if c.field.ID == f.ID {
				out, p, found = append(out, j), c, true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return out, true
}

// narrowedTo is the top-level field of path with every struct on the way
// cut down to the one field on the path.
func narrowedTo(path []iceberg.NestedField) iceberg.NestedField {
	f := path[len(path)-1]
	for i := len(path) - 2; i >= 0; i-- {
		parent := path[i]
		parent.Type = &iceberg.StructType{Fields: []iceberg.NestedField{f}}
		f = parent
	}
	return f
}

// structLeaf is the field at path inside a struct column, null in every
// row where it or a struct above it is null: the value a filter on the
// field sees. The values are the child's own buffers; only the validity
// bitmap is new where a struct has nulls.
func structLeaf(col arrow.Array, path []int, mem memory.Allocator) (arrow.Array, error) {
	cur := col
	cur.Retain()
	for _, i := range path {
		s, ok := cur.(*array.Struct)
		if !ok {
			cur.Release()
			return nil, fmt.Errorf("filter: column of type %s is not a struct", cur.DataType())
		}
		child := s.Field(i)
		next, err := withParentNulls(child, s, mem)
		cur.Release()
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// withParentNulls is child, also null where parent is.
func withParentNulls(child arrow.Array, parent arrow.Array, mem memory.Allocator) (arrow.Array, error) {
	if parent.NullN() == 0 {
		child.Retain()
		return child, nil
	}
	n := child.Len()
	off := child.Data().Offset()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(off + n))))
	out := buf.Bytes()
	parentBits := parent.NullBitmapBytes()
	if childBits := child.NullBitmapBytes(); childBits != nil && child.NullN() > 0 {
		bitutil.BitmapAnd(parentBits, childBits, int64(parent.Data().Offset()), int64(off), out, int64(off), int64(n))
	} else {
		bitutil.CopyBitmap(parentBits, parent.Data().Offset(), n, out, off)
	}
	d := child.Data()
	buffers := append([]*memory.Buffer{buf}, d.Buffers()[1:]...)
	data := array.NewData(d.DataType(), n, buffers, d.Children(), array.UnknownNullCount, off)
	buf.Release()
	a := array.MakeFromData(data)
	data.Release()
	return a, nil
}
