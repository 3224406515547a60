package maintain

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/writer/ops"
)

// With write.statistics.on-commit, an append's statistics are the
// earlier snapshot's sketches merged with the appended rows' alone: the
// first append's data files are deleted from disk before the second, and
// the merge still gives each column its distinct count (exactly below k,
// within 5% above). A delete since the last statistics makes the next
// update a full computation.
func TestStatisticsKeptCurrentOnCommit(t *testing.T) {
	ctx := context.Background()
	schema := statsSchema()
	dir := filepath.Join(t.TempDir(), "tbl")
	tbl, err := table.Create(ctx, nil, dir, schema, nil, nil, map[string]string{PropStatisticsOnCommit: "true"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	first, second := statsRows(0, 9000), statsRows(9000, 9000)
	if _, err := ops.Append(ctx, tbl, rowstest.Reader(t, schema, first), table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := StatisticsOnCommit(ctx, tbl)
	if err != nil || res == nil || res.MergedFrom != 0 {
		t.Fatalf("first statistics: %+v %v", res, err)
	}
	base := res.SnapshotID
	aside := t.TempDir()
	var firstFiles []string
	for _, f := range rowstest.FilesUnder(t, filepath.Join(dir, "data")) {
		firstFiles = append(firstFiles, filepath.Join(dir, "data", f))
	}
	for i, f := range firstFiles {
		if err := os.Rename(f, filepath.Join(aside, strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ops.Append(ctx, tbl, rowstest.Reader(t, schema, second), table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err = StatisticsOnCommit(ctx, tbl)
	if err != nil {
		t.Fatalf("merging without reading the first append's files: %v", err)
	}
	if res.MergedFrom != base || res.SnapshotID != *tbl.Metadata.CurrentSnapshotID || len(res.NDV) != 6 {
		t.Fatalf("second statistics: %+v", res)
	}
	all := append(first, second...)
	if n := distinct(all, func(r []any) any { return r[1] }); res.NDV["name"] != n {
		t.Errorf("name: merged ndv %d, %d distinct", res.NDV["name"], n)
	}
	if n := distinct(all, func(r []any) any { return r[3] }); res.NDV["day"] != n {
		t.Errorf("day: merged ndv %d, %d distinct", res.NDV["day"], n)
	}
	if got := float64(res.NDV["id"]); math.Abs(got-18_000) > 0.05*18_000 {
		t.Errorf("id: merged ndv %v of 18,000", got)
	}
	if len(tbl.Metadata.Statistics) != 2 {
		t.Fatalf("%d statistics files registered, want one per snapshot", len(tbl.Metadata.Statistics))
	}
	// Already current: nothing written.
	again, err := UpdateStatistics(ctx, tbl, StatisticsOptions{})
	if err != nil || again.Path != res.Path || again.NDV["name"] != res.NDV["name"] {
		t.Fatalf("update of a current snapshot: %+v %v", again, err)
	}

	// A delete since: the next update reads the whole table.
	for i, f := range firstFiles {
		if err := os.Rename(filepath.Join(aside, strconv.Itoa(i)), f); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ops.DeleteRows(ctx, tbl, rowstest.Pred(t, expr.OpLt, "id", int64(17_950)), ops.RowOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ops.Append(ctx, tbl, rowstest.Reader(t, schema, statsRows(18_000, 10)), table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err = StatisticsOnCommit(ctx, tbl)
	if err != nil || res.MergedFrom != 0 || res.NDV["id"] != 60 {
		t.Fatalf("after a delete: %+v %v (want a full read: 60 ids)", res, err)
	}

	// No property: nothing happens.
	plain, err := table.Create(ctx, nil, filepath.Join(t.TempDir(), "plain"), schema, nil, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ops.Append(ctx, plain, rowstest.Reader(t, schema, first[:10]), table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if res, err := StatisticsOnCommit(ctx, plain); res != nil || err != nil || plain.Metadata.Statistics != nil {
		t.Fatalf("a table without %s: %+v %v", PropStatisticsOnCommit, res, err)
	}
}
