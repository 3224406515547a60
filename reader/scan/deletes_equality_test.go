package scan

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/kernels"
)

// keySet builds an equality delete set of (a, b) long keys, in the given
// order, and their Keys for probing.
func keySet(t *testing.T, a, b []int64) (*equalityDeletes, *kernels.Keys, func()) {
	t.Helper()
	mem := memory.NewGoAllocator()
	ab, bb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
	ab.AppendValues(a, nil)
	bb.AppendValues(b, nil)
	cols := []arrow.Array{ab.NewArray(), bb.NewArray()}
	keys, err := kernels.NewKeys(cols)
	if err != nil {
		t.Fatal(err)
	}
	e := &equalityDeletes{}
	e.add(keys, nil)
	e.index()
	return e, keys, func() { cols[0].Release(); cols[1].Release() }
}

// A set narrowed to [lo, hi] on its first column holds exactly the keys
// within it: every one of those is found, no other is, for keys given in
// order and shuffled, and for ranges holding none, few and most keys.
func TestEqualityNarrowHoldsTheRange(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 5000
	a, b := make([]int64, n), make([]int64, n)
	for i := range a {
		a[i] = int64(i/3) * 7 // runs of equal first values
		b[i] = r.Int64N(100)
	}
	for _, shuffled := range []bool{false, true} {
		if shuffled {
			r.Shuffle(n, func(i, j int) { a[i], a[j] = a[j], a[i]; b[i], b[j] = b[j], b[i] })
		}
		e, keys, release := keySet(t, a, b)
		hashes := keys.Hash(keyHashSeed, nil)
		var scratch equalityDeletes
		for trial := 0; trial < 60; trial++ {
			lo := r.Int64N(int64(n/3*7)) - 50
			hi := lo + r.Int64N(int64(n/3*7)/(1+int64(trial%4)*10))
			set := e.narrow(lo, hi, &scratch)
			inRange := 0
			for i := range a {
				if a[i] >= lo && a[i] <= hi {
					inRange++
				}
			}
			if set == nil {
				if inRange != 0 {
					t.Fatalf("[%d, %d]: no set, yet %d keys lie within", lo, hi, inRange)
				}
				continue
			}
			whole := set == e
			keep := make([]byte, (n+7)/8)
			for i := range keep {
				keep[i] = 0xff
			}
			probe := eqProbe{hashes: hashes}
			cleared := set.probe(keys, keep, &probe)
			for i := range a {
				found := keep[i>>3]&(1<<(i&7)) == 0
				if want := whole || (a[i] >= lo && a[i] <= hi); found != want {
					t.Fatalf("shuffled %v, [%d, %d] (whole %v): key %d (%d, %d) found %v", shuffled, lo, hi, whole, i, a[i], b[i], found)
				}
			}
			if !whole && cleared != inRange {
				t.Fatalf("[%d, %d]: %d cleared, %d in range", lo, hi, cleared, inRange)
			}
		}
		release()
	}
}

// Keys whose first column is null (or not an integer) cannot be ranged:
// such a set is never narrowed, and still finds every key.
func TestEqualityWithNullFirstKeysIsNotNarrowed(t *testing.T) {
	mem := memory.NewGoAllocator()
	ab := array.NewInt64Builder(mem)
	ab.AppendValues([]int64{1, 0, 3}, []bool{true, false, true})
	col := ab.NewArray()
	defer col.Release()
	keys, err := kernels.NewKeys([]arrow.Array{col})
	if err != nil {
		t.Fatal(err)
	}
	e := &equalityDeletes{}
	e.add(keys, nil)
	e.index()
	if e.keyFirsts != nil {
		t.Fatal("a set with a null first key was ranged")
	}
	var scratch equalityDeletes
	if set := e.narrow(100, 200, &scratch); set != e {
		t.Fatal("a set that cannot be ranged was narrowed")
	}
	keep := []byte{0xff}
	if cleared := e.probe(keys, keep, &eqProbe{hashes: keys.Hash(keyHashSeed, nil)}); cleared != 3 {
		t.Fatalf("%d of 3 keys found", cleared)
	}
}
