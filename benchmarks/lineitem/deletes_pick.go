package lineitem

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
)

// Salts of the random streams choosing deleted rows, so they differ from
// the data's stream and from each other.
const (
	positionSalt = 0x706f736974696f6e // "position"
	equalitySalt = 0x657175616c697479 // "equality"
)

// filePicks are one data file's chosen deletes and the sums the expected
// answers are made of.
type filePicks struct {
	rows       int64
	sumPartKey int64
	// positions are the rows deleted by position (sorted), and
	// positionSum their l_partkey total.
	positions   []int64
	positionSum int64
	// keys are the (l_orderkey, l_partkey) pairs deleted by equality, in
	// row order; each matches exactly one row of the table.
	keys        [][2]int64
	equalitySum int64
}

// pickDeletes replays the generator file by file (in parallel) and picks
// a tenth of each file's rows to delete by position, and a tenth of the
// table's rows (shared out over the files) to delete by equality.
func pickDeletes(p Params) ([]*filePicks, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	out := make([]*filePicks, p.Files)
	keysTotal := p.Rows / 10
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), p.Files) {
		wg.Go(func() {
			var cols columns
			for i := range next {
				first := int64(i) * p.Rows / int64(p.Files)
				end := int64(i+1) * p.Rows / int64(p.Files)
				keys := int64(i+1)*keysTotal/int64(p.Files) - int64(i)*keysTotal/int64(p.Files)
				g := newGenerator(p.Seed, i, first, p.Rows)
				g.fill(&cols, int(end-first))
				out[i] = pickFile(&cols, p.Seed, i, int(keys))
			}
		})
	}
	for i := range p.Files {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, fp := range out {
		if fp == nil {
			return nil, errors.New("lineitem: a file's deletes were not picked")
		}
	}
	return out, nil
}

func pickFile(c *columns, seed uint64, file, keys int) *filePicks {
	n := len(c.orderKey)
	fp := &filePicks{rows: int64(n)}
	for _, v := range c.partKey {
		fp.sumPartKey += v
	}

	r := rand.New(rand.NewPCG(seed^positionSalt, uint64(file)))
	fp.positions = make([]int64, 0, n/10)
	selectSorted(r, n, n/10, func(i int) {
		fp.positions = append(fp.positions, int64(i))
		fp.positionSum += c.partKey[i]
	})

	// An order may hold the same part twice, so only rows whose key is
	// unique (within their order, hence in the table: orders never span
	// files) are candidates, and every key deletes exactly one row.
	unique := uniqueKeyRows(c)
	r = rand.New(rand.NewPCG(seed^equalitySalt, uint64(file)))
	fp.keys = make([][2]int64, 0, keys)
	selectSorted(r, len(unique), min(keys, len(unique)), func(j int) {
		i := unique[j]
		fp.keys = append(fp.keys, [2]int64{c.orderKey[i], c.partKey[i]})
		fp.equalitySum += c.partKey[i]
	})
	return fp
}

// uniqueKeyRows lists the rows whose (l_orderkey, l_partkey) no other row
// has. Rows of an order are adjacent and orders have at most seven lines.
func uniqueKeyRows(c *columns) []int32 {
	out := make([]int32, 0, len(c.orderKey))
	for start := 0; start < len(c.orderKey); {
		end := start + 1
		for end < len(c.orderKey) && c.orderKey[end] == c.orderKey[start] {
			end++
		}
		for i := start; i < end; i++ {
			dup := false
			for j := start; j < end; j++ {
				if j != i && c.partKey[j] == c.partKey[i] {
					dup = true
					break
				}
			}
			if !dup {
				out = append(out, int32(i))
			}
		}
		start = end
	}
	return out
}

// selectSorted calls pick with k distinct indexes of [0, n), in increasing
// order, each k-subset equally likely (Knuth's selection sampling).
func selectSorted(r *rand.Rand, n, k int, pick func(int)) {
	for i := 0; i < n && k > 0; i++ {
		if r.IntN(n-i) < k {
			pick(i)
			k--
		}
	}
}
