package ops

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
)

// Every lookup layout gives the upsert's result: a table of 300 rows
// (ids -450, -447, ... in three files) upserted with 60 existing and 60
// new keys and 10 unchanged rows, joined on keys that pick each layout — dense ids, ids spread
// to the int64 extremes, a string, and two columns. The table then reads
// the model's rows, and a key given twice is refused in every layout.
func TestUpsertKeyLayouts(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "name", Type: iceberg.StringType{}, Required: true},
		{ID: 3, Name: "v", Type: iceberg.LongType{}},
	})
	name := func(id int64) string { return fmt.Sprintf("n%d", id) }
	base := make([][]any, 300)
	for i := range base {
		id := int64(-450 + 3*i)
		base[i] = []any{id, name(id), int64(i)}
	}
	cases := []struct {
		layout   lookupLayout
		joinCols []string
		// existing picks base rows replaced; fresh the new keys.
		existing func(i int) int
		fresh    func(i int) int64
	}{
		// ids -450..-273 existing, -449..-272 new: a span of 178 for
		// 120 keys.
		{lookupDense, []string{"id"}, func(i int) int { return i }, func(i int) int64 { return int64(-449 + 3*i) }},
		{lookupWord, []string{"id"}, func(i int) int { return 5 * i }, func(i int) int64 {
			switch i {
			case 0:
				return math.MinInt64
			case 1:
				return math.MaxInt64
			}
			return int64(i) << 40
		}},
		{lookupHashed, []string{"name"}, func(i int) int { return 4 * i }, func(i int) int64 { return int64(1_000 + i) }},
		{lookupHashed, []string{"id", "name"}, func(i int) int { return 4*i + 1 }, func(i int) int64 { return int64(2_000 + i) }},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("layout %d on %s", tc.layout, strings.Join(tc.joinCols, ",")), func(t *testing.T) {
			ctx := context.Background()
			tbl, err := table.Create(ctx, nil, filepath.Join(t.TempDir(), "tbl"), schema, nil, nil, nil, 2)
			if err != nil {
				t.Fatal(err)
			}
			appendInChunks(t, tbl, base, 100)
			var input [][]any
			replaced := map[int64]bool{}
			for i := range 60 {
				r := base[tc.existing(i)]
				replaced[r[0].(int64)] = true
				input = append(input, []any{r[0], r[1], int64(-1 - i)})
				id := tc.fresh(i)
				input = append(input, []any{id, name(id), int64(1_000_000 + i)})
			}
			// Ten rows given unchanged: neither updated nor written.
			for i := 61; len(input) < 130; i++ {
				if !replaced[base[i][0].(int64)] {
					input = append(input, slices.Clone(base[i]))
				}
			}
			keys, err := joinFields(schema, tc.joinCols, false)
			if err != nil {
				t.Fatal(err)
			}
			rr := rowstest.Reader(t, schema, input)
			in, err := readUpsertInput(rr, schema, keys)
			rr.Release()
			if err != nil {
				t.Fatal(err)
			}
			if got := in.lookup.layout; got != tc.layout {
				t.Fatalf("layout %d, want %d", got, tc.layout)
			}
			in.release()

			dup := append(slices.Clone(input), slices.Clone(input[7]))
			rr = rowstest.Reader(t, schema, dup)
			_, err = Upsert(ctx, tbl, rr, upsertOpts("", tc.joinCols...))
			rr.Release()
			if !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), "same key") {
				t.Fatalf("a key given twice: %v", err)
			}

			rr = rowstest.Reader(t, schema, input)
			res, err := Upsert(ctx, tbl, rr, upsertOpts("", tc.joinCols...))
			rr.Release()
			if err != nil {
				t.Fatal(err)
			}
			if res.RowsUpdated != 60 || res.RowsInserted != 60 {
				t.Fatalf("result %+v: want 60 updated, 60 inserted", res)
			}
			want := append(keepRows(schema, base, func(r []any) bool { return replaced[r[0].(int64)] }), input[:120]...)
			sortRows(schema, want)
			checkRows(t, "after the upsert", tbl, want)
		})
	}
}
