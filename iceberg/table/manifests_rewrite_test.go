package table

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/committest"
	"github.com/google/uuid"
)

// planShape is what a read of the table sees, one line per data file:
// path, sequence numbers, rows, row ids and the deletes applied.
func planShape(t *testing.T, tbl *Table) []string {
	t.Helper()
	plan, err := tbl.PlanFiles(context.Background(), SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, task := range plan.Tasks {
		var deletes []string
		for _, d := range task.Deletes {
			deletes = append(deletes, d.File.FilePath)
		}
		sort.Strings(deletes)
		first := "-"
		if task.File.FirstRowID != nil {
			first = fmt.Sprint(*task.File.FirstRowID)
		}
		out = append(out, fmt.Sprintf("%s seq=%d rows=%d first=%s deletes=%v",
			task.File.FilePath, task.DataSequenceNumber, task.File.RecordCount, first, deletes))
	}
	sort.Strings(out)
	return out
}

func TestRewriteManifestsClustersManyAppends(t *testing.T) {
	for _, version := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			ctx := context.Background()
			tbl := createTable(t, version, &byInt, nil)
			files := writeFiles(t, t.TempDir(), byInt, rowsIn(1, 0, 500, 0, 1, 2, 3, 4), 10)
			if len(files) != 50 {
				t.Fatalf("%d files", len(files))
			}
			// Appends in an order that spreads each partition over time.
			rng := []int{}
			for i := range files {
				rng = append(rng, (i*17)%len(files))
			}
			for _, i := range rng {
				if _, err := tbl.Append(ctx, files[i:i+1], CommitOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			if version == 2 {
				dir := t.TempDir()
				for k, f := range files[:2] {
					del, err := committest.WritePositionDeletes(filepath.Join(dir, fmt.Sprintf("pos%d.parquet", k)), 0, f.Partition,
						[]committest.Position{{Path: f.FilePath, Pos: 1}})
					if err != nil {
						t.Fatal(err)
					}
					if _, err := tbl.RowDelta(ctx, nil, []manifest.DataFile{del}, CommitOptions{}); err != nil {
						t.Fatal(err)
					}
				}
			}
			before := planShape(t, tbl)
			head := tbl.Metadata.CurrentSnapshot()
			oldList, err := tbl.ManifestList(ctx, head)
			if err != nil {
				t.Fatal(err)
			}
			var size int64
			for _, mf := range oldList {
				if mf.Content == manifest.ManifestContentData {
					size += mf.Length
				}
			}

			res, err := tbl.RewriteManifests(ctx, RewriteManifestsOptions{TargetSizeBytes: size / 4})
			if err != nil {
				t.Fatal(err)
			}
			fresh := reopen(t, tbl)
			snap := fresh.Metadata.CurrentSnapshot()
			if snap.SnapshotID != res.SnapshotID || snap.Summary["operation"] != OpReplace {
				t.Fatalf("snapshot %d %v", snap.SnapshotID, snap.Summary)
			}
			for _, k := range []string{"total-data-files", "total-records", "total-delete-files", "total-files-size"} {
				if snap.Summary[k] != head.Summary[k] {
					t.Errorf("summary %s %s, was %s", k, snap.Summary[k], head.Summary[k])
				}
			}
			if got := planShape(t, fresh); !slices.Equal(got, before) {
				t.Fatalf("plan changed:\n%v\nwas\n%v", got, before)
			}
			list, err := fresh.ManifestList(ctx, snap)
			if err != nil {
				t.Fatal(err)
			}
			var data []manifest.ManifestFile
			deletes := 0
			for _, mf := range list {
				if mf.Content == manifest.ManifestContentData {
					data = append(data, mf)
				} else {
					deletes++
				}
			}
			if len(data) < 3 || len(data) > 5 {
				t.Fatalf("%d data manifests from 50, want about 4", len(data))
			}
			if wantDeletes := map[int]int{2: 1, 3: 0}[version]; deletes != wantDeletes {
				t.Fatalf("%d delete manifests, want %d", deletes, wantDeletes)
			}
			if summaryInt(t, snap.Summary, "manifests-replaced") != int64(len(oldList)) ||
				summaryInt(t, snap.Summary, "manifests-created") != int64(len(list)) ||
				summaryInt(t, snap.Summary, "entries-processed") != int64(len(files)+2*(3-version)) {
				t.Fatalf("summary %v", snap.Summary)
			}
			// Sorted by partition: each manifest's range starts at or
			// after the previous one's end.
			for i := 1; i < len(data); i++ {
				prev, cur := data[i-1].Partitions[0], data[i].Partitions[0]
				if iceberg.Compare(iceberg.IntType{}, prevUpper(t, prev), lower(t, cur)) > 0 {
					t.Fatalf("manifest %d ranges over partitions below manifest %d's", i, i-1)
				}
			}
			// Entries are EXISTING and keep the snapshots that added them.
			addedBy := map[string]int64{}
			for _, s := range fresh.Metadata.Snapshots {
				if s.Summary["operation"] == OpAppend {
					sl, _ := fresh.ManifestList(ctx, &s)
					for _, mf := range sl {
						if mf.AddedSnapshotID == s.SnapshotID {
							es, _ := fresh.ReadManifest(ctx, mf)
							for _, e := range es {
								addedBy[e.DataFile.FilePath] = s.SnapshotID
							}
						}
					}
				}
			}
			for _, mf := range data {
				es, err := fresh.ReadManifest(ctx, mf)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range es {
					if e.Status != manifest.StatusExisting || e.SnapshotID != addedBy[e.DataFile.FilePath] {
						t.Fatalf("%s: status %v snapshot %d, want EXISTING of %d", e.DataFile.FilePath, e.Status, e.SnapshotID, addedBy[e.DataFile.FilePath])
					}
				}
			}
			// A partition filter now reads one manifest or two.
			filter, err := expr.ParseText("i = 2")
			if err != nil {
				t.Fatal(err)
			}
			plan, err := fresh.PlanFilesFiltered(ctx, SnapshotSelector{}, filter, false)
			if err != nil {
				t.Fatal(err)
			}
			if plan.ManifestsSkipped < len(data)-2 {
				t.Fatalf("filter skipped %d of %d data manifests", plan.ManifestsSkipped, len(data))
			}
		})
	}
}

func lower(t *testing.T, s manifest.FieldSummary) any {
	t.Helper()
	v, err := iceberg.ValueFromBytes(iceberg.IntType{}, s.LowerBound)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func prevUpper(t *testing.T, s manifest.FieldSummary) any {
	t.Helper()
	v, err := iceberg.ValueFromBytes(iceberg.IntType{}, s.UpperBound)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRewriteManifestsRetriesTokensAndRefusals(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, &byInt, nil)
	if _, err := tbl.RewriteManifests(ctx, RewriteManifestsOptions{}); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("rewrite of an empty table: %v", err)
	}
	if _, err := tbl.RewriteManifests(ctx, RewriteManifestsOptions{TargetSizeBytes: -1}); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("negative target: %v", err)
	}
	files := writeFiles(t, t.TempDir(), byInt, rowsIn(1, 0, 60, 0, 1, 2), 10)
	for i := range files[:5] {
		if _, err := tbl.Append(ctx, files[i:i+1], CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// A handle that has not seen the last append rewrites on the head it
	// commits on: the append's file survives.
	stale := reopen(t, tbl)
	if _, err := tbl.Append(ctx, files[5:6], CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := stale.RewriteManifests(ctx, RewriteManifestsOptions{CommitOptions: CommitOptions{Token: "rw-1"}})
	if err != nil {
		t.Fatal(err)
	}
	fresh := reopen(t, tbl)
	if got := livePaths(t, fresh); !slices.Equal(got, pathsOf(files)) {
		t.Fatalf("live files after a rewrite racing an append: %v", got)
	}
	list, err := fresh.ManifestList(ctx, fresh.Metadata.CurrentSnapshot())
	if err != nil || len(list) != 1 || fresh.Metadata.CurrentSnapshot().SnapshotID != res.SnapshotID {
		t.Fatalf("%d manifests, %v", len(list), err)
	}
	// The same token again, through another handle, commits nothing.
	again, err := reopen(t, tbl).RewriteManifests(ctx, RewriteManifestsOptions{CommitOptions: CommitOptions{Token: "rw-1"}})
	if err != nil || !again.TokenFound || again.SnapshotID != res.SnapshotID {
		t.Fatalf("retried rewrite: %+v, %v", again, err)
	}
	if n := len(reopen(t, tbl).Metadata.Snapshots); n != 7 {
		t.Fatalf("%d snapshots, want 7", n)
	}
	// In a transaction, after an append.
	tx := fresh.Transaction()
	more := writeFiles(t, t.TempDir(), byInt, rowsIn(2, 1000, 10, 4), 10)
	if err := tx.Append(more, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := tx.RewriteManifests(RewriteManifestsOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	last := reopen(t, tbl)
	if list, _ := last.ManifestList(ctx, last.Metadata.CurrentSnapshot()); len(list) != 1 {
		t.Fatalf("%d manifests after append+rewrite", len(list))
	}
	if got, want := livePaths(t, last), pathsOf(append(slices.Clone(files), more...)); !slices.Equal(got, want) {
		t.Fatalf("live %v", got)
	}
	if !strings.Contains(last.Metadata.CurrentSnapshot().Summary["operation"], OpReplace) {
		t.Fatal("last snapshot is not the rewrite")
	}
	checkNoOrphans(t, tbl)
}

// Manifests of two specs are rewritten apart, one manifest each at the
// default target; entries a delete recorded are dropped.
func TestRewriteManifestsKeepsSpecsApart(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	a := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 40), 10)
	for i := range a {
		if _, err := tbl.Append(ctx, a[i:i+1], CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tbl.Apply(ctx, new(action.UpdateSpec).AddField("i", iceberg.IdentityTransform{}, "")); err != nil {
		t.Fatal(err)
	}
	spec := *tbl.Metadata.DefaultSpec()
	b := writeFiles(t, t.TempDir(), spec, rowsIn(2, 100, 40, 1, 2), 10)
	for i := range b {
		if _, err := tbl.Append(ctx, b[i:i+1], CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tbl.Commit(ctx, nil, []string{a[0].FilePath, b[0].FilePath}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	before := planShape(t, tbl)
	if _, err := tbl.RewriteManifests(ctx, RewriteManifestsOptions{}); err != nil {
		t.Fatal(err)
	}
	fresh := reopen(t, tbl)
	if got := planShape(t, fresh); !slices.Equal(got, before) {
		t.Fatalf("plan changed:\n%v\nwas\n%v", got, before)
	}
	list, err := fresh.ManifestList(ctx, fresh.Metadata.CurrentSnapshot())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].PartitionSpecID != 0 || list[1].PartitionSpecID != spec.ID {
		t.Fatalf("manifests %+v", list)
	}
	for _, mf := range list {
		es, err := fresh.ReadManifest(ctx, mf)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 3 || mf.ExistingFilesCount != 3 || mf.DeletedFilesCount != 0 {
			t.Fatalf("manifest of spec %d: %d entries, counts %d/%d", mf.PartitionSpecID, len(es), mf.ExistingFilesCount, mf.DeletedFilesCount)
		}
		for _, e := range es {
			if e.DataFile.SpecID != mf.PartitionSpecID {
				t.Fatalf("file %s of spec %d in a manifest of spec %d", e.DataFile.FilePath, e.DataFile.SpecID, mf.PartitionSpecID)
			}
		}
	}
}

func TestRewriteManifestsCommitsNothingWhenNothingRegroups(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, &byInt, nil)
	files := writeFiles(t, t.TempDir(), byInt, rowsIn(1, 0, 30, 0, 1, 2), 10)
	id, err := snapshotIDOf(tbl.Append(ctx, files, CommitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := tbl.RewriteManifests(ctx, RewriteManifestsOptions{})
	if err != nil || res.SnapshotID != id || len(reopen(t, tbl).Metadata.Snapshots) != 1 {
		t.Fatalf("%+v, %v", res, err)
	}
}

// Appenders and manifest rewrites racing from their own handles: every
// appended file is live at the end, each rewrite rebuilt on the head it
// landed on.
func TestRewriteManifestsRacingAppends(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, &byInt, map[string]string{PropCommitMinWaitMs: "1", PropCommitMaxWaitMs: "5", PropCommitNumRetries: "50"})
	files := writeFiles(t, t.TempDir(), byInt, rowsIn(1, 0, 240, 0, 1, 2), 10)
	if _, err := tbl.Append(ctx, files[:4], CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := reopen(t, tbl)
			for i := 4 + w; i < len(files); i += 4 {
				if _, err := h.Append(ctx, files[i:i+1], CommitOptions{}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 5 {
			time.Sleep(5 * time.Millisecond)
			// A token makes it commit even with one manifest per group.
			if _, err := reopen(t, tbl).RewriteManifests(ctx, RewriteManifestsOptions{CommitOptions: CommitOptions{Token: uuid.NewString()}}); err != nil {
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	fresh := reopen(t, tbl)
	if got := livePaths(t, fresh); !slices.Equal(got, pathsOf(files)) {
		t.Fatalf("%d live files, want %d", len(got), len(files))
	}
	rewrites := 0
	for _, s := range fresh.Metadata.Snapshots {
		if s.Summary["operation"] == OpReplace {
			rewrites++
		}
	}
	if rewrites == 0 {
		t.Fatal("no rewrite committed")
	}
	checkNoOrphans(t, tbl)
}
