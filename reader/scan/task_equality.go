package scan

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/kernels"
	"github.com/floedb/floe/reader/prune"
)

// narrowEquality sets eqActive for the current row group: each equality
// delete set cut down to the keys whose first column lies within the row
// group's bounds on that column. Tables that take equality deletes are
// often sorted by their key, so a row group then probes a set small
// enough to stay in cache, or none at all.
func (r *taskReader) narrowEquality() {
	if r.deletes == nil || len(r.deletes.equality) == 0 {
		return
	}
	if r.eqActive == nil {
		r.eqActive = make([]*equalityDeletes, len(r.deletes.equality))
		r.eqNarrowed = make([]equalityDeletes, len(r.deletes.equality))
	}
	for e, eq := range r.deletes.equality {
		r.eqActive[e] = nil
		if eq.keyFirsts != nil {
			p := r.plans[r.eqColumns[e][0]]
			if p.node != nil && p.meta == 0 {
				if lo, hi, ok := prune.ChunkIntRange(r.file, r.rowGroup, p.node, p.field.Type); ok {
					r.eqActive[e] = eq.narrow(lo, hi, &r.eqNarrowed[e])
					continue
				}
			}
		}
		r.eqActive[e] = eq.whole()
	}
}

// probeEquality clears the bits of kept rows whose keys equality delete
// set e holds and returns the rows still kept.
func (r *taskReader) probeEquality(e int, cols []arrow.Array, keep []byte, kept int) (int, error) {
	var eq *equalityDeletes
	if r.eqActive != nil {
		eq = r.eqActive[e]
	} else {
		eq = r.deletes.equality[e].whole()
	}
	if eq == nil {
		return kept, nil
	}
	keyCols := make([]arrow.Array, len(r.eqColumns[e]))
	for i, c := range r.eqColumns[e] {
		keyCols[i] = cols[c]
	}
	keys, err := kernels.NewKeys(keyCols)
	if err != nil {
		return kept, err
	}
	r.eqProbe.hashes = keys.Hash(keyHashSeed, r.eqProbe.hashes)
	kept -= eq.probe(keys, keep, &r.eqProbe)
	return kept, nil
}
