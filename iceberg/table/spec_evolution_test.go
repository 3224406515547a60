package table

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/expr"
)

// Spec and sort-order changes racing other writers, each from a handle
// opened before any of them: appends, whatever spec their files were
// written under, never conflict with a spec change and land under their
// own spec; a second spec (or sort-order) change built on the replaced
// default conflicts and commits nothing. (internal/committest evolves
// tables other engines wrote and reads them back through scans.)
func TestSpecChangesRacingAppendsFromStaleHandles(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, &byInt, nil)
	evolver, appender, rival, sorter, rivalSorter := reopen(t, tbl), reopen(t, tbl), reopen(t, tbl), reopen(t, tbl), reopen(t, tbl)

	oldFiles := writeFiles(t, t.TempDir(), byInt, rowsIn(1, 0, 40, 1, 2), 10)
	if _, err := appender.Append(ctx, oldFiles, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	// Built on the version before the append: the default spec is the
	// same, so it is rebuilt and commits.
	if _, err := evolver.Apply(ctx, new(action.UpdateSpec).AddField("id", iceberg.BucketTransform{N: 4}, "")); err != nil {
		t.Fatalf("a spec change after an append: %v", err)
	}
	newSpec := *evolver.Metadata.DefaultSpec()
	if newSpec.ID != 1 || len(newSpec.Fields) != 2 || newSpec.Fields[1].Name != "id_bucket_4" || newSpec.Fields[1].FieldID != 1001 {
		t.Fatalf("new default spec %+v", newSpec)
	}

	before := metadataFiles(t, tbl)
	_, err := rival.Apply(ctx, new(action.UpdateSpec).AddField("l", iceberg.TruncateTransform{Width: 10}, ""))
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("a second spec change from the stale base: %v, want a conflict", err)
	}
	if got := metadataFiles(t, tbl); got != before {
		t.Fatalf("the refused spec change committed: %d versions, had %d", got, before)
	}

	// The stale appender's files were written under spec 0, which the
	// table still has: they land under it; files written under the new
	// spec land under that.
	lateOld := writeFiles(t, t.TempDir(), byInt, rowsIn(2, 100, 20, 3), 10)
	if _, err := appender.Append(ctx, lateOld, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	newFiles := writeFiles(t, t.TempDir(), newSpec, rowsIn(3, 200, 40, 1, 3), 10)
	if _, err := appender.Append(ctx, newFiles, CommitOptions{}); err != nil {
		t.Fatal(err)
	}

	if _, err := sorter.Apply(ctx, new(action.ReplaceSortOrder).Asc("ts", iceberg.DayTransform{}, "").Desc("id", nil, "")); err != nil {
		t.Fatalf("a sort-order change after a spec change: %v", err)
	}
	if _, err := rivalSorter.Apply(ctx, new(action.ReplaceSortOrder).Asc("s", nil, "")); !errors.Is(err, ErrConflict) {
		t.Fatalf("a second sort-order change from the stale base: %v, want a conflict", err)
	}

	fresh := reopen(t, tbl)
	md := fresh.Metadata
	if md.DefaultSpecID != 1 || md.DefaultSortOrderID != 1 || len(md.PartitionSpecs) != 2 || len(md.SortOrders) != 2 {
		t.Fatalf("default spec %d of %d, default sort order %d of %d", md.DefaultSpecID, len(md.PartitionSpecs), md.DefaultSortOrderID, len(md.SortOrders))
	}
	plan, err := fresh.PlanFiles(ctx, SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	specOf := map[string]int{}
	for _, task := range plan.Tasks {
		specOf[task.File.FilePath] = task.File.SpecID
		if want := len(md.SpecByID(task.File.SpecID).Fields); len(task.File.Partition) != want {
			t.Fatalf("file %s of spec %d has %d partition values", task.File.FilePath, task.File.SpecID, len(task.File.Partition))
		}
	}
	for _, f := range append(append(slices.Clone(oldFiles), lateOld...), newFiles...) {
		if got, ok := specOf[f.FilePath]; !ok || got != f.SpecID {
			t.Fatalf("file %s written under spec %d is live under spec %d (%v)", f.FilePath, f.SpecID, got, ok)
		}
	}

	// i = 3 holds lateOld's rows (spec 0, partition 3) and newFiles' rows
	// of partition 3 (spec 1, (3, bucket)); every other file is pruned by
	// its own spec's tuple.
	filter, err := expr.NewPredicate(expr.OpEq, "i", int64(3))
	if err != nil {
		t.Fatal(err)
	}
	pruned, err := fresh.PlanFilesFiltered(ctx, SnapshotSelector{}, filter, false)
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, task := range pruned.Tasks {
		got = append(got, task.File.FilePath)
	}
	for _, f := range append(append(slices.Clone(oldFiles), lateOld...), newFiles...) {
		if f.Partition[0] == int32(3) {
			want = append(want, f.FilePath)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("i = 3 plans %v, want %v", got, want)
	}
}
