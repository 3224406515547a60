package writer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
)

// TestParallelColumnsCostliestFirst: with columns written in parallel, a
// column whose values cost far more than the others' (long random text
// beside integers) is ranked among the first to start, though it comes
// last in the schema; and the file still holds the rows.
func TestParallelColumnsCostliestFirst(t *testing.T) {
	b := &schemaBuilder{}
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		b.field("a", iceberg.LongType{}, true),
		b.field("b", iceberg.IntType{}, false),
		b.field("c", iceberg.LongType{}, false),
		b.field("d", iceberg.IntType{}, false),
		b.field("text", iceberg.StringType{}, false),
	})
	r := rand.New(rand.NewPCG(8, 9))
	letters := "abcdefghijklmnopqrstuvwxyz "
	rows := make([][]any, 40_000)
	for i := range rows {
		var sb strings.Builder
		for range 600 {
			sb.WriteByte(letters[r.IntN(len(letters))])
		}
		rows[i] = []any{int64(i), int32(i % 3), int64(i * 7), int32(i), sb.String()}
	}
	opts := DefaultOptions()
	opts.Parallelism = 2
	w, err := New(context.Background(), fileio.Local{}, filepath.Join(t.TempDir(), "data"), schema, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	for start := 0; start < len(rows); start += 8000 {
		rec := buildRecord(t, schema, rows[start:start+8000])
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	text := len(w.leaves) - 1
	if rank := indexOf(w.order, text); rank < 0 || rank > 1 {
		costs := make([]string, len(w.leaves))
		for i, lw := range w.leaves {
			costs[i] = fmt.Sprintf("%s %.1f ns", lw.leaf.field.Name, lw.cost)
		}
		t.Errorf("the text column starts %dth (order %v; costs %v)", rank+1, w.order, costs)
	}
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	compareRows(t, "floe reader", schema, rows, readFloe(t, files[0].FilePath, schema))
}

func indexOf(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
