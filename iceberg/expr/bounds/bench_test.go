package bounds

import (
	"testing"

	"github.com/floedb/floe/iceberg/expr"
)

// What a Parquet dictionary walk pays per entry: one summary of one exact
// value, judged by a prepared leaf.
func BenchmarkLeafPerDictionaryEntry(b *testing.B) {
	ev := compileB(b, "i in (3, 17, 40000)")
	leaf := ev.Leaves()[0]
	entries := make([]Value, 1024)
	for i := range entries {
		entries[i] = Value{Int: int64(i * 7)}
	}
	for b.Loop() {
		hits := 0
		for i := range entries {
			s := Summary{Lower: entries[i], Upper: entries[i], HasLower: true, HasUpper: true, Exact: true,
				Values: 1, HasValues: true, HasNulls: true, HasNaNs: true}
			if leaf.MightMatch(&s) {
				hits++
			}
		}
		if hits != 0 {
			b.Fatal(hits)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(entries)), "ns/entry")
}

func compileB(b *testing.B, filter string) *Evaluator {
	e, err := expr.ParseText(filter)
	if err != nil {
		b.Fatal(err)
	}
	bound, err := expr.Bind(e, testSchema(), false)
	if err != nil {
		b.Fatal(err)
	}
	ev, err := New(bound)
	if err != nil {
		b.Fatal(err)
	}
	return ev
}
