package manifest

import (
	"maps"
	"reflect"
	"testing"
)

// The pair iterators yield exactly what Maps holds, in ascending id, and
// stop when told.
func TestMetricsPairsAreTheMaps(t *testing.T) {
	in := MetricMaps{
		ColumnSizes:     map[int]int64{3: 30, 1: 10, 200: 2000},
		ValueCounts:     map[int]int64{1: 5},
		NullValueCounts: map[int]int64{2: 0, 1: 1},
		LowerBounds:     map[int][]byte{7: {1, 2}, 1: {}},
		UpperBounds:     map[int][]byte{7: {9}},
	}
	m := MetricsOf(in)
	for name, c := range map[string]struct {
		got  func(func(int, int64) bool)
		want map[int]int64
	}{"sizes": {m.ColumnSizes(), in.ColumnSizes}, "values": {m.ValueCounts(), in.ValueCounts}, "nulls": {m.NullCounts(), in.NullValueCounts}, "nans": {m.NaNCounts(), nil}} {
		last := -1
		got := map[int]int64{}
		for id, v := range c.got {
			if id <= last {
				t.Errorf("%s: id %d after %d", name, id, last)
			}
			last, got[id] = id, v
		}
		if len(got) != len(c.want) || (len(got) > 0 && !maps.Equal(got, c.want)) {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
	lower := map[int][]byte{}
	for id, b := range m.LowerBounds() {
		lower[id] = b
	}
	if !reflect.DeepEqual(lower, map[int][]byte{1: {}, 7: {1, 2}}) {
		t.Errorf("lower bounds %v", lower)
	}
	n := 0
	for range m.ColumnSizes() {
		n++
		break
	}
	if n != 1 {
		t.Fatal("a stopped iteration went on")
	}
}
