package table

import (
	"context"
	"errors"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/metadata"
)

// Append then Overwrite(AlwaysTrue) on the same branch, one transaction,
// no other writer: the overwrite's conflict check sees step 1's snapshot
// as a concurrent change.
func TestTransactionReviewAppendThenOverwriteInOneTx(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	old := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 10), 10)
	if _, err := tbl.Append(ctx, old, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	a := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 10), 10)
	b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(3, 200, 10), 10)
	tx := tbl.Transaction()
	if err := tx.Append(a, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Overwrite(expr.AlwaysTrue{}, b, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatalf("append+overwrite in one transaction, no concurrent writer: %v (conflict=%v)", err, errors.Is(err, ErrConflict))
	}
}

// Append then RequireColumn in one transaction: the NullFree check
// requires main at the head the earlier step made (a snapshot only in
// this commit), contradicting the assert-ref-snapshot-id the append
// implies. A catalog that checks requirements (REST) refuses every attempt.
func TestTransactionReviewAppendThenRequireColumnRequirements(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	rows := rowsWithIDs(1, 0, 10)
	for i := range rows {
		rows[i][1] = int32(i)
	}
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rows, 10)
	var bad []string
	replayHook := testHookChanges
	testHookChanges = func(base *Table, c *metadata.Changes) {
		replayHook(base, c)
		for _, r := range c.Requirements() {
			if err := r.Check(base.Metadata); err != nil {
				bad = append(bad, err.Error())
			}
		}
	}
	defer func() { testHookChanges = replayHook }()
	tx := tbl.Transaction()
	if err := tx.Append(files, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tx.Add(new(action.UpdateSchema).RequireColumn("i"))
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Fatalf("requirements sent with the commit fail on its own base: %v", bad)
	}
}

// Two appends in one transaction, each given the transaction's token (as
// a caller passing the same CommitOptions to every step does): step 2
// finds the token in step 1's not-yet-committed snapshot, the build
// returns nothing, and Commit reports TokenFound with nothing committed.
func TestTransactionReviewSameTokenOnTwoSteps(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	a := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 10), 10)
	b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(3, 200, 10), 10)
	tx := tbl.TransactionWith(TransactionOptions{Token: "run-1"})
	opts := CommitOptions{Token: "run-1"}
	if err := tx.Append(a, opts); err != nil {
		t.Fatal(err)
	}
	if err := tx.Append(b, opts); err != nil {
		t.Fatal(err)
	}
	res, err := tx.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Committed || res.TokenFound || tbl.Metadata.CurrentSnapshot() == nil {
		t.Fatalf("nothing committed: %+v, current snapshot %v", res, tbl.Metadata.CurrentSnapshot())
	}
}

// RequireColumn then an Append of a file counting nulls in that column,
// one transaction: the NullFree check looks only at main before the
// append, so the committed version has a required column holding nulls.
func TestTransactionReviewRequireColumnThenAppendNulls(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(4, 0, 200), 200)
	if n, ok := files[0].Metrics.NullCount(2); !ok || n == 0 {
		t.Skipf("no nulls in column i: %d %v", n, ok)
	}
	tx := tbl.Transaction()
	tx.Add(new(action.UpdateSchema).RequireColumn("i"))
	if err := tx.Append(files, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(ctx); err == nil {
		f, _ := tbl.Metadata.CurrentSchema().FindFieldByName("i")
		t.Fatalf("committed: column i required=%v while %s holds nulls in it", f.Required, files[0].FilePath)
	}
}

// v3: two appends in one transaction, manifests merged by the second
// (min-count-to-merge 2): every live data file keeps a distinct row-id
// range and the table's next-row-id covers them.
func TestTransactionReviewV3RowIDsTwoAppendsMerged(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 3, nil, map[string]string{PropManifestMinCountToMerge: "2"})
	old := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 10), 10)
	if _, err := tbl.Append(ctx, old, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	a := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 20), 10)
	b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(3, 200, 30), 10)
	tx := tbl.Transaction()
	if err := tx.Append(a, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Append(b, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := tx.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := reopen(t, tbl).PlanFiles(ctx, SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	type rng struct{ lo, hi int64 }
	var rs []rng
	for _, task := range plan.Tasks {
		f := task.File
		if f.FirstRowID == nil {
			t.Fatalf("%s has no first row id", f.FilePath)
		}
		rs = append(rs, rng{*f.FirstRowID, *f.FirstRowID + f.RecordCount})
	}
	for i := range rs {
		for j := range rs {
			if i != j && rs[i].lo < rs[j].hi && rs[j].lo < rs[i].hi {
				t.Fatalf("row id ranges overlap: %v (snapshots %v)", rs, res.SnapshotIDs)
			}
		}
		if rs[i].hi > tbl.Metadata.NextRowID {
			t.Fatalf("range %v beyond next-row-id %d", rs[i], tbl.Metadata.NextRowID)
		}
	}
	if len(rs) != 6 || tbl.Metadata.NextRowID != 60 {
		t.Logf("files %d next-row-id %d ranges %v", len(rs), tbl.Metadata.NextRowID, rs)
	}
}

// A stale handle's schema change whose column another writer already
// dropped: the transaction began when "l" existed; the refusal should be
// the start-rule conflict, not an invalid argument from rebuilding on the
// newer schema.
func TestTransactionReviewStaleDropIsConflict(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	other := reopen(t, tbl)
	if _, err := other.Apply(ctx, new(action.UpdateSchema).DeleteColumn("l")); err != nil {
		t.Fatal(err)
	}
	_, err := tbl.Apply(ctx, new(action.UpdateSchema).DeleteColumn("l"))
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("want ErrConflict, got %v", err)
	}
}
