package interop

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/maintain"
)

// goEntries lists the live entries of the current snapshot's manifests
// as iceberg-go reads them: path → "content seq fileSeq", and how many
// manifests there are.
func goEntries(t *testing.T, goTbl *icebergtable.Table) (map[string]string, int) {
	t.Helper()
	fs, err := goTbl.FS(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	manifests, err := goTbl.CurrentSnapshot().Manifests(fs)
	if err != nil {
		t.Fatalf("iceberg-go manifests: %v", err)
	}
	out := map[string]string{}
	for _, mf := range manifests {
		entries, err := mf.FetchEntries(fs, true)
		if err != nil {
			t.Fatalf("iceberg-go entries of %s: %v", mf.FilePath(), err)
		}
		for _, e := range entries {
			fileSeq := "nil"
			if s := e.FileSequenceNum(); s != nil {
				fileSeq = fmt.Sprint(*s)
			}
			key := e.DataFile().FilePath()
			if off := e.DataFile().ContentOffset(); off != nil {
				key += fmt.Sprint("#", *off)
			}
			out[key] = fmt.Sprint(e.DataFile().ContentType(), " ", e.SequenceNum(), " ", fileSeq)
		}
	}
	return out, len(manifests)
}

// RewriteManifests (iceberg/table) on tables with row deletes, many
// manifests from many commits: iceberg-go sees a "replace" snapshot with
// fewer manifests holding the same live entries with the same data and
// file sequence numbers (which decide what each delete applies to), and
// reads the same rows; then iceberg-go writes after it.
func TestManifestsRewrittenReadByIcebergGo(t *testing.T) {
	onSources(t, sourceOptions{equality: true}, func(t *testing.T, m *maintTable) {
		before, manifestsBefore := goEntries(t, m.goTable(t))
		res, err := m.floe(t).RewriteManifests(context.Background(), table.RewriteManifestsOptions{})
		if err != nil {
			t.Fatal(err)
		}
		goTbl := m.goTable(t)
		if snap := goTbl.CurrentSnapshot(); snap.SnapshotID != res.SnapshotID || snap.Summary.Operation != icebergtable.OpReplace {
			t.Fatalf("iceberg-go's current snapshot %d (%s), floe committed %d", snap.SnapshotID, snap.Summary.Operation, res.SnapshotID)
		}
		after, manifestsAfter := goEntries(t, goTbl)
		if manifestsAfter >= manifestsBefore || manifestsAfter > 4 {
			t.Fatalf("%d manifests before, %d after", manifestsBefore, manifestsAfter)
		}
		if len(after) != len(before) {
			t.Errorf("iceberg-go sees %d live entries after, %d before", len(after), len(before))
		}
		for path, was := range before {
			if now := after[path]; now != was {
				t.Errorf("%s: iceberg-go sees content/seq/file seq %q after, %q before", path, now, was)
			}
		}
		m.assertRows(t, "after rewriting manifests")
		m.goWritesAfter(t)
	})
}

// plantOrphan copies a live data file under the table's data directory
// with another name, as a killed write leaves one, aged by age.
func plantOrphan(t *testing.T, tbl *table.Table, name string, age time.Duration) string {
	t.Helper()
	plan, err := tbl.PlanFilesFiltered(context.Background(), table.SnapshotSelector{}, nil, false)
	if err != nil || len(plan.Tasks) == 0 {
		t.Fatalf("plan: %d tasks, %v", len(plan.Tasks), err)
	}
	src := strings.TrimPrefix(plan.Tasks[0].Path, "file://")
	dst := filepath.Join(filepath.Dir(src), name)
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(-age)
	if err := os.Chtimes(dst, when, when); err != nil {
		t.Fatal(err)
	}
	return dst
}

// goOrphans is what iceberg-go's own orphan search finds under the
// table's location, older than olderThan.
func goOrphans(t *testing.T, goTbl *icebergtable.Table, olderThan time.Duration) []string {
	t.Helper()
	plan, err := goTbl.PlanOrphanFiles(context.Background(), icebergtable.WithFilesOlderThan(olderThan))
	if err != nil {
		t.Fatalf("iceberg-go PlanOrphanFiles: %v", err)
	}
	files := plan.Files()
	for i, f := range files {
		files[i] = strings.TrimPrefix(f, "file://")
	}
	slices.Sort(files)
	return files
}

// Expiry of every snapshot but the current one after a compaction, then
// orphan removal (a killed write's old leftover goes, a fresh in-flight
// file stays): iceberg-go sees one snapshot, cannot read an expired one,
// reads the current rows from the files left, and its own orphan search
// finds no old orphan either; then it writes after it.
func TestExpiredAndOrphansRemovedReadByIcebergGo(t *testing.T) {
	onSources(t, sourceOptions{}, func(t *testing.T, m *maintTable) {
		ctx := context.Background()
		tbl := m.floe(t)
		first := tbl.Metadata.Snapshots[0].SnapshotID
		if _, err := maintain.RewriteDataFiles(ctx, tbl, maintain.RewriteDataFilesOptions{RewriteAll: true}); err != nil {
			t.Fatal(err)
		}
		old := plantOrphan(t, tbl, "killed-write-orphan.parquet", 4*24*time.Hour)
		fresh := plantOrphan(t, tbl, "in-flight.parquet", time.Minute)
		if found := goOrphans(t, m.goTable(t), 3*24*time.Hour); !slices.Equal(found, []string{old}) {
			t.Fatalf("setup: iceberg-go finds old orphans %v, want %s", found, old)
		}
		tbl = m.floe(t)
		now := time.Now().UnixMilli() + 1
		keep := 1
		exp, err := tbl.ExpireSnapshots(ctx, &now, &keep, table.ExpireOptions{})
		if err != nil {
			t.Fatal(err)
		}
		dataDeleted := 0
		for _, f := range exp.DeletedFiles {
			if strings.Contains(f, "/data/") {
				dataDeleted++
			}
		}
		if len(exp.ExpiredSnapshots) < 5 || dataDeleted == 0 {
			t.Fatalf("expired %d snapshots, deleted %d files (%d data and delete files)", len(exp.ExpiredSnapshots), len(exp.DeletedFiles), dataDeleted)
		}
		orphans, err := m.floe(t).RemoveOrphanFiles(ctx, table.OrphanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(old); !os.IsNotExist(err) {
			t.Errorf("the old orphan is still there (%v); floe found %v", err, orphans.Orphans)
		}
		if _, err := os.Stat(fresh); err != nil {
			t.Errorf("the in-flight file is gone: %v", err)
		}
		goTbl := m.goTable(t)
		if n := len(goTbl.Metadata().Snapshots()); n != 1 {
			t.Errorf("iceberg-go sees %d snapshots, want 1", n)
		}
		if _, _, err := goTbl.Scan(icebergtable.WithSnapshotID(first)).ToArrowRecords(ctx); err == nil {
			t.Errorf("iceberg-go reads expired snapshot %d", first)
		}
		m.assertRows(t, "after expiry and orphan removal")
		if found := goOrphans(t, goTbl, 3*24*time.Hour); len(found) != 0 {
			t.Errorf("iceberg-go finds old orphans floe left: %v", found)
		}
		if found := goOrphans(t, goTbl, 0); !slices.Contains(found, fresh) {
			t.Errorf("iceberg-go's orphans of any age %v lack the in-flight file", found)
		}
		m.goWritesAfter(t)
	})
}
