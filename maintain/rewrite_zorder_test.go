package maintain

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/writer/ops"
)

// xySchema has a unique id (rows compare in its order), two int columns to z-order and a string to carry along.
var xySchema = iceberg.NewSchema(0, []iceberg.NestedField{
	{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
	{ID: 2, Name: "x", Type: iceberg.IntType{}, Required: true},
	{ID: 3, Name: "y", Type: iceberg.LongType{}},
	{ID: 4, Name: "tag", Type: iceberg.StringType{}},
	{ID: 5, Name: "pt", Type: &iceberg.StructType{Fields: []iceberg.NestedField{{ID: 6, Name: "a", Type: iceberg.IntType{}}}}},
})

// xyTable is an unpartitioned table of 40 small files of 2,000 rows with
// random x and y in [0, 10000) (some y null).
func xyTable(t *testing.T) (*table.Table, [][]any) {
	t.Helper()
	tbl, err := table.Create(context.Background(), nil, filepath.Join(t.TempDir(), "xy"), xySchema, nil, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var all [][]any
	for f := range 40 {
		var rows [][]any
		for i := range 2000 {
			var y any = int64(r.IntN(10000))
			if i%97 == 0 {
				y = nil
			}
			rows = append(rows, []any{int64(len(all) + i), int32(r.IntN(10000)), y, "r" + string(rune('a'+f%26)), nil})
		}
		rr := rowstest.Reader(t, xySchema, rows)
		_, err := ops.Append(context.Background(), tbl, rr, table.CommitOptions{})
		rr.Release()
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, rows...)
	}
	return tbl, all
}

// filesAdmitting is, per column (x, y), the share of the table's files
// whose bounds admit an equality filter's value, averaged over values
// spread over the range (the files a scan with that filter reads), and
// the number of files.
func filesAdmitting(t *testing.T, tbl *table.Table) ([2]float64, int) {
	t.Helper()
	files := liveFiles(t, tbl).Tasks
	var share [2]float64
	for c, id := range []int{2, 3} { // x, y
		var admitted, probes int
		for v := int64(50); v < 10000; v += 100 {
			probes++
			for _, task := range files {
				lo, okLo := task.File.Metrics.LowerBound(id)
				hi, okHi := task.File.Metrics.UpperBound(id)
				if !okLo || !okHi || boundInt(lo) <= v && v <= boundInt(hi) {
					admitted++ // no bounds: the file is read
				}
			}
		}
		share[c] = float64(admitted) / float64(probes*len(files))
	}
	return share, len(files)
}

// boundInt decodes an int (4 bytes) or long (8 bytes) bound.
func boundInt(b []byte) int64 {
	if len(b) == 4 {
		return int64(int32(binary.LittleEndian.Uint32(b)))
	}
	return int64(binary.LittleEndian.Uint64(b))
}

// Z-order compaction keeps every row and clusters them so files' bounds
// on each column overlap far less than bin-pack's, whose files each hold
// rows from all over the range.
func TestRewriteZOrderClustersBounds(t *testing.T) {
	ctx := context.Background()
	const target = 8 << 10 // files of 4,096 rows (the writer's smallest piece)
	measure := func(opts RewriteDataFilesOptions) ([2]float64, int) {
		tbl, rows := xyTable(t)
		opts.RewriteAll, opts.TargetFileSizeBytes = true, target
		if _, err := RewriteDataFiles(ctx, tbl, opts); err != nil {
			t.Fatal(err)
		}
		tbl = reopen(t, tbl)
		rowstest.CheckRows(t, opts.Strategy, tbl, rows)
		for _, task := range liveFiles(t, tbl).Tasks {
			if task.File.SortOrderID != nil && *task.File.SortOrderID != 0 {
				t.Fatalf("%s: sort_order_id %d", task.Path, *task.File.SortOrderID)
			}
		}
		return filesAdmitting(t, tbl)
	}
	bin, binFiles := measure(RewriteDataFilesOptions{Strategy: StrategyBinPack})
	for _, strategy := range []string{StrategyZOrder, StrategyHilbert} {
		z, zFiles := measure(RewriteDataFilesOptions{Strategy: strategy, ZOrderColumns: []string{"x", "y"}})
		t.Logf("share of files admitting an equality value on x, y: binpack %.2f of %d files, %s %.2f of %d", bin, binFiles, strategy, z, zFiles)
		if binFiles < 8 || zFiles < 8 {
			t.Fatalf("too few files to measure: %d, %d", binFiles, zFiles)
		}
		// Bin-pack's files each hold rows from all over the range and
		// admit nearly every value; z-order's and Hilbert's a fraction
		// on both columns (a sort by x alone would cut x's share, not
		// y's).
		for c, name := range []string{"x", "y"} {
			if z[c] > bin[c]/2 {
				t.Fatalf("%s, column %s: files admit %.2f of values each, bin-pack's %.2f: not clustered", strategy, name, z[c], bin[c])
			}
		}
	}
}

// The Hilbert order of an 8×8 grid visits every point once, each a step
// from the last (the Z curve jumps); over one column it is that column's
// order.
func TestHilbertOrderIsAPath(t *testing.T) {
	const side = 8
	var xs, ys []uint64
	for x := range side {
		for y := range side {
			// keys as orderedKeys makes them: sign bit flipped
			xs, ys = append(xs, uint64(x)^1<<63), append(ys, uint64(y)^1<<63)
		}
	}
	rows := make([]int32, len(xs))
	for i := range rows {
		rows[i] = int32(len(rows) - 1 - i)
	}
	keys := [][]uint64{slices.Clone(xs), slices.Clone(ys)}
	hilbertTranspose(keys)
	sortByWords(rows, interleave(keys, rows))
	seen := map[int32]bool{}
	for i, r := range rows {
		seen[r] = true
		if i == 0 {
			continue
		}
		p := rows[i-1]
		dx, dy := int64(xs[r]-xs[p]), int64(ys[r]-ys[p])
		if dx*dx+dy*dy != 1 {
			t.Fatalf("step %d: (%d,%d) → (%d,%d)", i, xs[p]^1<<63, ys[p]^1<<63, xs[r]^1<<63, ys[r]^1<<63)
		}
	}
	if len(seen) != side*side {
		t.Fatalf("%d points visited", len(seen))
	}
	one := [][]uint64{{3 ^ 1<<63, 1 ^ 1<<63, 2 ^ 1<<63}}
	hilbertTranspose(one)
	order := []int32{0, 1, 2}
	sortByWords(order, interleave(one, order))
	if !slices.Equal(order, []int32{1, 2, 0}) {
		t.Fatalf("one column: %v", order)
	}
}

// The keys of (x, y) in 0..3 follow the Z curve: x's bit above y's at
// each level.
func TestZOrderInterleaving(t *testing.T) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "x", Type: arrow.PrimitiveTypes.Int32}, {Name: "y", Type: arrow.PrimitiveTypes.Int64},
	}, nil))
	defer b.Release()
	var pts [][2]int
	for x := range 4 {
		for y := range 4 {
			pts = append(pts, [2]int{x, y})
		}
	}
	rand.New(rand.NewPCG(3, 4)).Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
	for _, p := range pts {
		b.Field(0).(*array.Int32Builder).Append(int32(p[0]))
		b.Field(1).(*array.Int64Builder).Append(int64(p[1]))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	rows := make([]int32, len(pts))
	for i := range rows {
		rows[i] = int32(i)
	}
	if err := zorderRowOrder([]string{"x", "y"}, false)(rec, rows); err != nil {
		t.Fatal(err)
	}
	var got [][2]int
	for _, r := range rows {
		got = append(got, pts[r])
	}
	// Z curve, x the more significant bit of each pair.
	want := [][2]int{
		{0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3},
		{2, 0}, {2, 1}, {3, 0}, {3, 1}, {2, 2}, {2, 3}, {3, 2}, {3, 3},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("order %v\nwant  %v", got, want)
	}
	// Three columns take the generic path: same rule.
	keys := [][]uint64{{1 << 63}, {0}, {1 << 62}}
	w := interleave(keys, []int32{0})
	if w[0][0] != 1<<63|1<<58 || w[1][0] != 0 || w[2][0] != 0 {
		t.Fatalf("three columns: %x %x %x", w[0][0], w[1][0], w[2][0])
	}
	// Negative before positive, floats by value, strings by prefix.
	for _, c := range []struct {
		a    arrow.Array
		want []int32
	}{
		{arrayOf(t, []int64{5, -3, 0, -9}), []int32{3, 1, 2, 0}},
		{arrayOf(t, []float64{0.5, -2, 3, -0.25}), []int32{1, 3, 0, 2}},
		{arrayOf(t, []string{"pear", "apple", "", "apricot"}), []int32{2, 1, 3, 0}},
	} {
		k, err := orderedKeys(c.a)
		c.a.Release()
		if err != nil {
			t.Fatal(err)
		}
		order := []int32{0, 1, 2, 3}
		sortByWords(order, [][]uint64{{k[0], k[1], k[2], k[3]}})
		if !slices.Equal(order, c.want) {
			t.Fatalf("%T: order %v, want %v", c.a, order, c.want)
		}
	}
}

func arrayOf[T int64 | float64 | string](t *testing.T, vs []T) arrow.Array {
	t.Helper()
	switch vs := any(vs).(type) {
	case []int64:
		b := array.NewInt64Builder(memory.DefaultAllocator)
		defer b.Release()
		b.AppendValues(vs, nil)
		return b.NewArray()
	case []float64:
		b := array.NewFloat64Builder(memory.DefaultAllocator)
		defer b.Release()
		b.AppendValues(vs, nil)
		return b.NewArray()
	default:
		b := array.NewStringBuilder(memory.DefaultAllocator)
		defer b.Release()
		b.AppendValues(any(vs).([]string), nil)
		return b.NewArray()
	}
}

// Z-order needs top-level ordered primitive columns, and only z-order
// takes them.
func TestRewriteZOrderRefusals(t *testing.T) {
	ctx := context.Background()
	tbl, _ := xyTable(t)
	for _, opts := range []RewriteDataFilesOptions{
		{Strategy: StrategyZOrder},
		{Strategy: StrategyHilbert},
		{Strategy: StrategyHilbert, ZOrderColumns: []string{"pt"}},
		{Strategy: StrategyZOrder, ZOrderColumns: []string{"x", "nope"}},
		{Strategy: StrategyZOrder, ZOrderColumns: []string{"pt"}},
		{Strategy: StrategyZOrder, ZOrderColumns: []string{"pt.a"}},
		{Strategy: StrategyZOrder, ZOrderColumns: []string{"x", "x"}},
		{Strategy: StrategyBinPack, ZOrderColumns: []string{"x"}},
		{Strategy: StrategyZOrder, ZOrderColumns: []string{"x"}, SortOrderID: new(int)},
	} {
		if _, err := RewriteDataFiles(ctx, tbl, opts); errkind.Of(err) != errkind.InvalidArgument {
			t.Fatalf("%+v: %v", opts, err)
		}
	}
	// Identity partition columns are constant in a group: dropped, and
	// refused when nothing else is left (smallFilesTable partitions by b).
	parted, _ := smallFilesTable(t, 2, 100, 50)
	if _, err := RewriteDataFiles(ctx, parted, RewriteDataFilesOptions{Strategy: StrategyZOrder, ZOrderColumns: []string{"b"}}); errkind.Of(err) != errkind.InvalidArgument {
		t.Fatalf("only an identity partition column: %v", err)
	}
	plan, err := PlanRewrite(ctx, parted, RewriteDataFilesOptions{Strategy: StrategyZOrder, ZOrderColumns: []string{"b", "i"}, RewriteAll: true})
	if err != nil || len(plan.Groups) == 0 || !slices.Equal(plan.Groups[0].ZOrderColumns, []string{"i"}) {
		t.Fatalf("identity partition column kept: %+v, %v", plan, err)
	}
	if n := len(liveFiles(t, tbl).Tasks); n != 40 {
		t.Fatalf("a refused compaction changed the table: %d files", n)
	}
}

// Z-order and Hilbert over columns of every ordered type the standard
// schema has (the generic interleave of many columns) on a v3 table with
// deletion vectors: rows and their lineage unchanged, the group's curve
// carried through the plan's JSON.
func TestRewriteZOrderManyTypesKeepsLineage(t *testing.T) {
	ctx := context.Background()
	cols := []string{"s", "d", "dt", "ts", "tstz", "dec", "wdec", "b", "i", "l"}
	for _, strategy := range []string{StrategyZOrder, StrategyHilbert} {
		tbl, _ := smallFilesTable(t, 3, 400, 40)
		deleteByPosition(t, tbl, pred(t, expr.OpLt, "id", int64(25)))
		opts := RewriteDataFilesOptions{Strategy: strategy, ZOrderColumns: cols, RewriteAll: true}
		plan, err := PlanRewrite(ctx, tbl, opts)
		if err != nil || len(plan.Groups) == 0 {
			t.Fatalf("%s plan: %v", strategy, err)
		}
		raw, err := json.Marshal(plan.Groups[0])
		if err != nil {
			t.Fatal(err)
		}
		var g FileGroup
		// b, the identity partition column, is dropped.
		if err := json.Unmarshal(raw, &g); err != nil || !slices.Equal(g.ZOrderColumns, slices.DeleteFunc(slices.Clone(cols), func(c string) bool { return c == "b" })) ||
			g.Hilbert != (strategy == StrategyHilbert) || g.SortOrderID != nil {
			t.Fatalf("%s group round trip: columns %v hilbert %v order %v, %v", strategy, g.ZOrderColumns, g.Hilbert, g.SortOrderID, err)
		}
		before := rowsWithLineage(t, tbl)
		if _, err := RewriteDataFiles(ctx, tbl, opts); err != nil {
			t.Fatalf("%s: %v", strategy, err)
		}
		if after := rowsWithLineage(t, reopen(t, tbl)); !slices.Equal(after, before) {
			t.Fatalf("%s: rows or their lineage changed", strategy)
		}
	}
}
