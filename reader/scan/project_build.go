package scan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/kernels"
	"github.com/floedb/floe/reader/parquet"
)

// request is the decoder column for a plan whose node the file has. Groups
// are requested with derived types; build gives them the table's names,
// ids and nullability afterwards, without copying buffers.
func (p *columnPlan) request() parquet.Column {
	col := parquet.Column{Node: p.node}
	switch p.field.Type.(type) {
	case *iceberg.StructType:
		for _, c := range p.children {
			if c.node != nil {
				col.Children = append(col.Children, c.request())
			}
		}
		if p.probe != nil {
			col.Children = []parquet.Column{{Node: p.probe}}
		}
	case *iceberg.ListType, *iceberg.MapType:
		for _, c := range p.children {
			col.Children = append(col.Children, c.request())
		}
	case iceberg.VariantType:
		// The whole group, as the struct it is: its types derived.
	default:
		col.Type = p.readAs
	}
	return col
}

// build turns the decoded array of a plan's node into the output array.
func (p *columnPlan) build(arr arrow.Array, mem memory.Allocator) (arrow.Array, error) {
	switch p.field.Type.(type) {
	case *iceberg.StructType:
		s, ok := arr.(*array.Struct)
		if !ok {
			return nil, fmt.Errorf("column %q: decoded %s, want a struct", p.field.Name, arr.DataType())
		}
		children := make([]arrow.ArrayData, 0, len(p.children))
		defer func() { parquet.ReleaseData(children) }()
		next := 0
		for _, c := range p.children {
			var child arrow.Array
			var err error
			if c.node != nil {
				child, err = c.build(s.Field(next), mem)
				next++
			} else {
				child, err = c.missing(s.Len(), mem)
			}
			if err != nil {
				return nil, err
			}
			children = append(children, child.Data())
			child.Data().Retain()
			child.Release()
		}
		d := s.Data()
		return parquet.WrapData(array.NewData(p.target, d.Len(), d.Buffers()[:1], children, d.NullN(), d.Offset())), nil
	case *iceberg.ListType:
		l, ok := arr.(*array.List)
		if !ok {
			return nil, fmt.Errorf("column %q: decoded %s, want a list", p.field.Name, arr.DataType())
		}
		elem, err := p.children[0].build(l.ListValues(), mem)
		if err != nil {
			return nil, err
		}
		defer elem.Release()
		d := l.Data()
		return parquet.WrapData(array.NewData(p.target, d.Len(), d.Buffers(), []arrow.ArrayData{elem.Data()}, d.NullN(), d.Offset())), nil
	case *iceberg.MapType:
		m, ok := arr.(*array.Map)
		if !ok {
			return nil, fmt.Errorf("column %q: decoded %s, want a map", p.field.Name, arr.DataType())
		}
		keys, err := p.children[0].build(m.Keys(), mem)
		if err != nil {
			return nil, err
		}
		defer keys.Release()
		items, err := p.children[1].build(m.Items(), mem)
		if err != nil {
			return nil, err
		}
		defer items.Release()
		mt := p.target.(*arrow.MapType)
		entries := m.ListValues().Data()
		entryData := array.NewData(mt.Elem(), entries.Len(), entries.Buffers()[:1], []arrow.ArrayData{keys.Data(), items.Data()}, entries.NullN(), entries.Offset())
		defer entryData.Release()
		d := m.Data()
		return parquet.WrapData(array.NewData(p.target, d.Len(), d.Buffers(), []arrow.ArrayData{entryData}, d.NullN(), d.Offset())), nil
	case iceberg.VariantType:
		s, ok := arr.(*array.Struct)
		if !ok {
			return nil, fmt.Errorf("column %q: decoded %s, want a variant group", p.field.Name, arr.DataType())
		}
		return parquet.BuildVariant(s, p.node, p.target, mem)
	}
	if arrow.TypeEqual(arr.DataType(), p.target) {
		arr.Retain()
		return arr, nil
	}
	return kernels.Promote(arr, p.target, mem)
}

// missing builds the column of a field the file lacks: its constant, or,
// for a struct without a value of its own, a struct of its fields' values.
func (p *columnPlan) missing(n int, mem memory.Allocator) (arrow.Array, error) {
	if _, ok := p.field.Type.(*iceberg.StructType); ok && p.constant == nil && len(p.children) > 0 {
		children := make([]arrow.ArrayData, 0, len(p.children))
		defer func() { parquet.ReleaseData(children) }()
		allNull := true
		for _, c := range p.children {
			a, err := c.missing(n, mem)
			if err != nil {
				return nil, err
			}
			allNull = allNull && a.NullN() == n
			children = append(children, a.Data())
			a.Data().Retain()
			a.Release()
		}
		if allNull {
			// No field has a default: the struct itself is null, as Iceberg
			// reads a column added after the file was written.
			return kernels.Nulls(p.target, n, mem)
		}
		return parquet.WrapData(array.NewData(p.target, n, []*memory.Buffer{nil}, children, 0, 0)), nil
	}
	v, err := kernelValue(p.field.Type, p.constant)
	if err != nil {
		return nil, fmt.Errorf("column %q: %w", p.field.Name, err)
	}
	return kernels.Constant(p.target, v, n, mem)
}

// kernelValue converts a canonical Iceberg value into the form
// kernels.Constant takes.
func kernelValue(t iceberg.Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t := t.(type) {
	case iceberg.DecimalType:
		d, ok := v.(iceberg.Decimal)
		if !ok {
			return nil, fmt.Errorf("value %v is not a decimal", v)
		}
		if d.Scale != t.Scale {
			var err error
			if d, err = d.Rescale(t.Scale); err != nil {
				return nil, err
			}
		}
		return decimal128.New(d.Hi, d.Lo), nil
	case *iceberg.StructType:
		vals, ok := v.([]any)
		if !ok || len(vals) != len(t.Fields) {
			return nil, fmt.Errorf("value %v does not fit %s", v, t)
		}
		out := make([]any, len(vals))
		for i, f := range t.Fields {
			var err error
			if out[i], err = kernelValue(f.Type, vals[i]); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *iceberg.ListType:
		vals, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("value %v is not a list", v)
		}
		out := make([]any, len(vals))
		for i := range vals {
			var err error
			if out[i], err = kernelValue(t.Element, vals[i]); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *iceberg.MapType:
		m, ok := v.(iceberg.MapValue)
		if !ok {
			return nil, fmt.Errorf("value %v is not a map", v)
		}
		out := kernels.MapValue{Keys: make([]any, len(m.Keys)), Values: make([]any, len(m.Values))}
		for i := range m.Keys {
			var err error
			if out.Keys[i], err = kernelValue(t.Key, m.Keys[i]); err != nil {
				return nil, err
			}
			if out.Values[i], err = kernelValue(t.Value, m.Values[i]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return v, nil
}
