package parquet

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// asmNode is one requested array in a batch. Every node reads the levels of
// one leaf below it (all leaves under a node agree on the levels that
// concern it) and turns them into Arrow validity and offsets:
//
//   - a level entry is a slot of this node when def >= slotDef and
//     rep <= slotRep (the levels of the nearest repeated ancestor: lower
//     definition means an ancestor is null or an empty list; higher
//     repetition means the entry continues an element deeper down);
//   - the slot is valid when def >= validDef;
//   - for lists and maps, an entry is an element when def >= elemDef and
//     rep <= elemRep (the repeated node's levels).
type asmNode struct {
	kind             NodeKind
	node             *Node
	typ              arrow.DataType
	slotDef, slotRep int
	validDef         int
	elemDef, elemRep int
	children         []*asmNode
	leaf             *LeafReader // primitive nodes
	levels           *LeafReader // whose levels drive this node
}

// planNode builds the asm tree for a resolved column in the context of its
// nearest repeated ancestor's levels.
func planNode(col Column, slotDef, slotRep int, newLeaf func(n *Node, c *conversion, slotDef int) *LeafReader) (*asmNode, error) {
	n := col.Node
	a := &asmNode{kind: n.Kind, node: n, typ: col.Type, slotDef: slotDef, slotRep: slotRep, validDef: n.DefLevel}
	switch n.Kind {
	case KindPrimitive:
		conv, err := planConversion(n, col.Type)
		if err != nil {
			return nil, err
		}
		a.leaf = newLeaf(n, conv, slotDef)
		a.levels = a.leaf
		return a, nil
	case KindList, KindMap:
		r := n.repeated
		if r == n {
			a.validDef = slotDef // a bare repeated field is a list that is never null
		}
		a.elemDef, a.elemRep = r.DefLevel, r.RepLevel
		slotDef, slotRep = r.DefLevel, r.RepLevel
	}
	for _, c := range col.Children {
		child, err := planNode(c, slotDef, slotRep, newLeaf)
		if err != nil {
			return nil, err
		}
		a.children = append(a.children, child)
	}
	if len(a.children) == 0 {
		return nil, fmt.Errorf("struct %s: select at least one field", n.DottedPath())
	}
	a.levels = a.children[0].levels
	a.levels.keepLevels = true
	return a, nil
}

// build assembles this node's array for the batch just decoded.
func (a *asmNode) build(mem memory.Allocator) (arrow.ArrayData, error) {
	if a.kind == KindPrimitive {
		return a.leaf.out.finish(a.typ), nil
	}
	children := make([]arrow.ArrayData, 0, len(a.children))
	release := func() {
		for _, c := range children {
			c.Release()
		}
	}
	for _, c := range a.children {
		d, err := c.build(mem)
		if err != nil {
			release()
			return nil, err
		}
		children = append(children, d)
	}
	var d arrow.ArrayData
	var err error
	if a.kind == KindStruct {
		d, err = a.buildStruct(mem, children)
	} else {
		d, err = a.buildList(mem, children)
	}
	release()
	return d, err
}

func (a *asmNode) buildStruct(mem memory.Allocator, children []arrow.ArrayData) (arrow.ArrayData, error) {
	defs, reps := a.levels.defs, a.levels.reps
	validity := outBuf{mem: mem}
	slots, nulls := 0, 0
	slotDef, validDef := uint8(a.slotDef), uint8(a.validDef)
	for i, d := range defs {
		if d < slotDef || reps != nil && int(reps[i]) > a.slotRep {
			continue
		}
		if d < validDef {
			if validity.b == nil {
				validity.reserve((len(defs)+7)/8, 0)
				clear(validity.b)
				setBits(validity.b, 0, slots)
			}
			nulls++
		} else if validity.b != nil {
			setBit(validity.b, slots, true)
		}
		slots++
	}
	for i, c := range children {
		if c.Len() != slots {
			validity.free()
			return nil, fmt.Errorf("struct %s: field %s has %d values for %d slots", a.node.DottedPath(), a.children[i].node.Name, c.Len(), slots)
		}
	}
	return newDataOwning(a.typ, slots, []*memory.Buffer{validity.buffer((slots + 7) / 8)}, children, nulls), nil
}

func (a *asmNode) buildList(mem memory.Allocator, children []arrow.ArrayData) (arrow.ArrayData, error) {
	defs, reps := a.levels.defs, a.levels.reps
	if reps == nil {
		return nil, fmt.Errorf("list %s: leaf %s carries no repetition levels", a.node.DottedPath(), a.levels.Node.DottedPath())
	}
	offsets := outBuf{mem: mem}
	offsets.reserve(4*(len(defs)+1), 0)
	validity := outBuf{mem: mem}
	offs := offsets.b
	slots, nulls, elems := 0, 0, 0
	slotDef, validDef, elemDef := uint8(a.slotDef), uint8(a.validDef), uint8(a.elemDef)
	for i, d := range defs {
		r := int(reps[i])
		if d >= slotDef && r <= a.slotRep {
			binary.LittleEndian.PutUint32(offs[4*slots:], uint32(elems))
			if d < validDef {
				if validity.b == nil {
					validity.reserve((len(defs)+7)/8, 0)
					clear(validity.b)
					setBits(validity.b, 0, slots)
				}
				nulls++
			} else if validity.b != nil {
				setBit(validity.b, slots, true)
			}
			slots++
			if d >= elemDef {
				elems++
			}
		} else if r == a.elemRep && d >= elemDef {
			if slots == 0 {
				offsets.free()
				validity.free()
				return nil, fmt.Errorf("list %s: an element continues a list that never started", a.node.DottedPath())
			}
			elems++
		}
	}
	binary.LittleEndian.PutUint32(offs[4*slots:], uint32(elems))
	fail := func(err error) (arrow.ArrayData, error) {
		offsets.free()
		validity.free()
		return nil, err
	}
	var child arrow.ArrayData
	if a.kind == KindMap {
		for i, c := range children {
			if c.Len() != elems {
				return fail(fmt.Errorf("map %s: %s has %d values for %d entries", a.node.DottedPath(), a.children[i].node.Name, c.Len(), elems))
			}
			if i == 0 && c.NullN() > 0 {
				return fail(fmt.Errorf("map %s has null keys", a.node.DottedPath()))
			}
		}
		entries := a.typ.(*arrow.MapType).Elem()
		child = array.NewData(entries, elems, []*memory.Buffer{nil}, children, 0, 0)
		defer child.Release()
	} else {
		child = children[0]
		if child.Len() != elems {
			return fail(fmt.Errorf("list %s: element has %d values for %d entries", a.node.DottedPath(), child.Len(), elems))
		}
	}
	bufs := []*memory.Buffer{validity.buffer((slots + 7) / 8), offsets.buffer(4 * (slots + 1))}
	return newDataOwning(a.typ, slots, bufs, []arrow.ArrayData{child}, nulls), nil
}

// newDataOwning builds ArrayData and drops our references to the buffers,
// leaving the ArrayData their only owner.
func newDataOwning(typ arrow.DataType, length int, bufs []*memory.Buffer, children []arrow.ArrayData, nulls int) arrow.ArrayData {
	d := array.NewData(typ, length, bufs, children, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	return d
}
