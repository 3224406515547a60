package parquet

import (
	"slices"
	"testing"
)

// Slices carved one after another from a block never reach into each
// other, even when one is appended past what it was carved for; a list
// longer than arenaList gets its own slice.
func TestCarveKeepsSlicesApart(t *testing.T) {
	var pool []Encoding
	a := carve(&pool, 3)
	a = append(a, 1, 2, 3)
	b := carve(&pool, 2)
	b = append(b, 7, 8)
	a = append(a, 4) // past its carve: moves, leaving b alone
	if !slices.Equal(a, []Encoding{1, 2, 3, 4}) || !slices.Equal(b, []Encoding{7, 8}) {
		t.Fatalf("a = %v, b = %v", a, b)
	}
	long := carve(&pool, arenaList+1)
	if cap(pool)-len(pool) != arenaBlock-5 {
		t.Errorf("a long list took %d elements of the block", arenaBlock-5-(cap(pool)-len(pool)))
	}
	long = append(long, make([]Encoding, arenaList+1)...)
	if len(long) != arenaList+1 {
		t.Errorf("long list: %d elements", len(long))
	}
	var empty []Encoding
	if carve(&empty, 0) == nil || carve(&pool, 0) == nil {
		t.Error("an empty list carved as nil: a footer's empty list would read as none")
	}
	var arena chunkArena
	s1, s2 := arena.statistics(), arena.statistics()
	s1.NullCount = 5
	if s2.NullCount != 0 || s1 == s2 {
		t.Error("two statistics share their memory")
	}
	if x, y := arena.name([]byte("l_orderkey")), arena.name([]byte("l_orderkey")); x != y || len(arena.names) != 1 {
		t.Errorf("names: %q, %q, %d interned", x, y, len(arena.names))
	}
}
