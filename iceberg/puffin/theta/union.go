package theta

// Union merges sketches as Java's theta Union does: theta is the smallest
// of the sketches' thetas (and of what the union's own bound sketch
// lowers it to), the hashes below it are kept, and the result is trimmed
// to k. Sketches of the same data merge into the same result in any
// order, so the sketch of a table is the union of its files' sketches.
type Union struct {
	gadget *Sketch
	theta  int64
}

// NewUnion returns an empty union of nominal size 2^DefaultLgK.
func NewUnion() *Union {
	return &Union{gadget: New(), theta: maxTheta}
}

// Add merges c into the union.
func (u *Union) Add(c *Compact) {
	if c == nil || c.empty {
		return
	}
	u.gadget.empty = false
	u.theta = min(u.theta, c.theta, u.gadget.theta)
	for _, h := range c.hashes {
		if h >= u.theta || h >= u.gadget.theta {
			break // hashes are sorted
		}
		u.gadget.UpdateHash(h)
	}
	u.theta = min(u.theta, u.gadget.theta)
}

// Result is the union so far, trimmed to k hashes.
func (u *Union) Result() *Compact {
	theta := min(u.theta, u.gadget.theta)
	all := u.gadget.hashes()
	n := 0
	for n < len(all) && all[n] < theta {
		n++
	}
	kept := all[:n]
	if k := 1 << u.gadget.lgK; len(kept) > k {
		theta = kept[k]
		kept = kept[:k]
	}
	return newCompact(theta, kept, u.gadget.empty)
}
