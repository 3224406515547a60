package scan

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/kernels"
)

// changeMatch holds one snapshot's deleted and inserted rows to match
// them: a row deleted and inserted with every column equal was carried
// over (a copy-on-write rewrite) and is no change, as Java's
// RemoveCarryoverIterator drops it; of what remains, one deleted and one
// inserted row with the same identifier are an update (Java's
// ComputeUpdateIterator). Rows are compared as equality-delete keys are
// (kernels.Keys: null equals null, NaN equals NaN); nested columns by
// their canonical text.
type changeMatch struct {
	deleted, inserted []*sideBatch
	// held is the bytes of the rows held; limit, when not 0, bounds it
	// (ReadOptions.MemoryLimit).
	held, limit int64
	snapshot    int64
}

// sideBatch is a batch of one side: its table columns (held) and each
// row's change type ("" once matched away).
type sideBatch struct {
	cols  []arrow.Array
	types []string
	keys  *kernels.Keys
	hash  []uint64
}

func (m *changeMatch) add(data []arrow.Array, n int, inserted bool) error {
	b := &sideBatch{cols: make([]arrow.Array, len(data)), types: make([]string, n)}
	for i, c := range data {
		c.Retain()
		b.cols[i] = c
		m.held += dataBytes(c.Data())
	}
	change := ChangeDelete
	if inserted {
		change = ChangeInsert
		m.inserted = append(m.inserted, b)
	} else {
		m.deleted = append(m.deleted, b)
	}
	for i := range b.types {
		b.types[i] = change
	}
	if m.limit > 0 && m.held > m.limit {
		return errkind.Errorf(errkind.Unsupported, "changelog: snapshot %d both deletes and inserts rows, which are matched in memory, and they pass the memory limit of %d bytes; read its changes without the limit, or a narrower range with a filter", m.snapshot, m.limit)
	}
	return nil
}

func (m *changeMatch) release() {
	for _, side := range [][]*sideBatch{m.deleted, m.inserted} {
		for _, b := range side {
			releaseAll(b.cols)
			if b.keys != nil {
				b.keys = nil
			}
		}
	}
}

// rowRef is a row of a side: its batch and row.
type rowRef struct{ batch, row int32 }

// match drops carried-over rows and, with key columns, marks updates.
func (m *changeMatch) match(keyColumns []int) error {
	held, err := m.prepare(nil)
	if err != nil {
		return err
	}
	defer releaseAll(held)
	byHash := map[uint64][]rowRef{}
	for bi, b := range m.deleted {
		for r, h := range b.hash {
			byHash[h] = append(byHash[h], rowRef{int32(bi), int32(r)})
		}
	}
	for _, b := range m.inserted {
		for r, h := range b.hash {
			cands := byHash[h]
			for ci, c := range cands {
				d := m.deleted[c.batch]
				if d.keys.Equal(int(c.row), b.keys, r) {
					d.types[c.row], b.types[r] = "", ""
					cands[ci] = cands[len(cands)-1]
					byHash[h] = cands[:len(cands)-1]
					break
				}
			}
		}
	}
	if len(keyColumns) == 0 {
		return nil
	}
	keyHeld, err := m.prepare(keyColumns)
	if err != nil {
		return err
	}
	defer releaseAll(keyHeld)
	type pair struct {
		del, ins []rowRef
	}
	byKey := map[uint64]*pair{}
	at := func(h uint64) *pair {
		p := byKey[h]
		if p == nil {
			p = &pair{}
			byKey[h] = p
		}
		return p
	}
	for bi, b := range m.deleted {
		for r, h := range b.hash {
			if b.types[r] != "" {
				p := at(h)
				p.del = append(p.del, rowRef{int32(bi), int32(r)})
			}
		}
	}
	for bi, b := range m.inserted {
		for r, h := range b.hash {
			if b.types[r] != "" {
				p := at(h)
				p.ins = append(p.ins, rowRef{int32(bi), int32(r)})
			}
		}
	}
	for _, p := range byKey {
		if len(p.del) != 1 || len(p.ins) != 1 {
			continue
		}
		d, i := m.deleted[p.del[0].batch], m.inserted[p.ins[0].batch]
		if !d.keys.Equal(int(p.del[0].row), i.keys, int(p.ins[0].row)) {
			continue // a hash collision of two identifiers
		}
		d.types[p.del[0].row] = ChangeUpdateBefore
		i.types[p.ins[0].row] = ChangeUpdateAfter
	}
	return nil
}

// prepare builds every side batch's keys and row hashes over the columns
// (nil: all), nested columns as their canonical text; it returns the
// arrays it made, which must outlive the keys.
func (m *changeMatch) prepare(columns []int) ([]arrow.Array, error) {
	var made []arrow.Array
	for _, side := range [][]*sideBatch{m.deleted, m.inserted} {
		for _, b := range side {
			var cols []arrow.Array
			pick := columns
			if pick == nil {
				pick = make([]int, len(b.cols))
				for i := range pick {
					pick[i] = i
				}
			}
			for _, i := range pick {
				c := b.cols[i]
				if nestedType(c.DataType()) {
					c = canonicalText(c)
					made = append(made, c)
				}
				cols = append(cols, c)
			}
			keys, err := kernels.NewKeys(cols)
			if err != nil {
				releaseAll(made)
				return nil, err
			}
			b.keys = keys
			b.hash = keys.Hash(0x6368616e6765, nil)
		}
	}
	return made, nil
}

func nestedType(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.STRUCT, arrow.LIST, arrow.LARGE_LIST, arrow.MAP, arrow.FIXED_SIZE_LIST:
		return true
	}
	return false
}

// canonicalText is a nested column as one string per row (Arrow's value
// text, null for a null), to compare nested values as keys.
func canonicalText(a arrow.Array) arrow.Array {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.Append(a.ValueStr(i))
	}
	return b.NewArray()
}
