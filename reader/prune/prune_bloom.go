package prune

import (
	"math"

	"github.com/cespare/xxhash/v2"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/expr/bounds"
)

// bloomMayMatch checks = and in against the column's bloom filter. A
// column whose dictionary was read needs none: the dictionary answered
// exactly.
func (p *rowGroupPruner) bloomMayMatch(pred *prunePredicate, c *pruneColumn) (bool, error) {
	if op := pred.leaf.Op; op != expr.OpEq && op != expr.OpIn {
		return true, nil
	}
	if c.dict != nil {
		return true, nil
	}
	if !c.bloomRead {
		c.bloomRead = true
		b, err := p.f.ReadBloomFilter(c.chunk)
		if err != nil {
			return false, err
		}
		c.bloom = b
	}
	if c.bloom == nil {
		return true, nil
	}
	var scratch [32]byte
	lits := pred.leaf.Literals()
	if len(lits) == 0 {
		return true, nil // literals that did not convert decide nothing
	}
	for i := range lits {
		lit := &lits[i]
		enc, absent, ok := c.dec.plainLiteral(scratch[:0], lit)
		if !ok {
			return true, nil
		}
		if absent {
			continue
		}
		if c.bloom.MayContain(xxhash.Sum64(enc)) {
			return true, nil
		}
		if c.dec.domain == bounds.DomainFloat && lit.Float == 0 {
			// -0 equals +0 but hashes differently
			other := bounds.Value{Float: math.Copysign(0, -1)}
			if math.Signbit(lit.Float) {
				other.Float = 0
			}
			if enc, _, _ = c.dec.plainLiteral(scratch[:0], &other); c.bloom.MayContain(xxhash.Sum64(enc)) {
				return true, nil
			}
		}
	}
	return false, nil
}
