package main

import "testing"

// sameRows tells answers apart by any value, doubles to 1e-9.
func TestSameRows(t *testing.T) {
	a := [][]any{{"A", int64(3), 1.0}}
	if !sameRows(a, [][]any{{"A", int64(3), 1.0 + 1e-12}}) {
		t.Error("doubles a rounding apart differ")
	}
	for _, b := range [][][]any{{{"B", int64(3), 1.0}}, {{"A", int64(4), 1.0}}, {{"A", int64(3), 1.1}}, {}} {
		if sameRows(a, b) {
			t.Errorf("%v and %v are the same", a, b)
		}
	}
}
