package table

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/testtable"
)

func TestAppendEveryFormatVersion(t *testing.T) {
	for _, version := range []int{1, 2, 3} {
		t.Run("v"+string(rune('0'+version)), func(t *testing.T) {
			ctx := context.Background()
			tbl := createTable(t, version, nil, nil)
			first := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 300), 100)
			second := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 300, 50), 100)

			id1, err := snapshotIDOf(tbl.Append(ctx, first, CommitOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			id2, err := snapshotIDOf(tbl.Append(ctx, second, CommitOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			if id1 == id2 || id1 <= 0 || id2 <= 0 {
				t.Fatalf("snapshot ids %d, %d", id1, id2)
			}

			fresh := reopen(t, tbl)
			if !strings.HasSuffix(fresh.MetadataLocation, "/metadata/v3.metadata.json") {
				t.Errorf("opened %s, want v3.metadata.json", fresh.MetadataLocation)
			}
			hint, err := os.ReadFile(filepath.Join(filepath.Dir(fresh.MetadataLocation), "version-hint.text"))
			if err != nil || string(hint) != "3" {
				t.Errorf("version hint %q, %v; want 3", hint, err)
			}
			md := fresh.Metadata
			if md.FormatVersion != version {
				t.Errorf("format version %d", md.FormatVersion)
			}
			if got, want := livePaths(t, fresh), pathsOf(append(slices.Clone(first), second...)); !slices.Equal(got, want) {
				t.Fatalf("live files %v, want %v", got, want)
			}
			snap := md.CurrentSnapshot()
			if snap.SnapshotID != id2 || snap.ParentSnapshotID == nil || *snap.ParentSnapshotID != id1 {
				t.Fatalf("current snapshot %d parent %v; want %d after %d", snap.SnapshotID, snap.ParentSnapshotID, id2, id1)
			}
			wantSeq := int64(2)
			if version == 1 {
				wantSeq = 0
			}
			if snap.SequenceNumber != wantSeq || md.LastSequenceNumber != wantSeq {
				t.Errorf("sequence number %d, last %d; want %d", snap.SequenceNumber, md.LastSequenceNumber, wantSeq)
			}
			if len(md.SnapshotLog) != 2 || md.SnapshotLog[1].SnapshotID != id2 {
				t.Errorf("snapshot log %v", md.SnapshotLog)
			}
			if len(md.MetadataLog) != 2 || !strings.HasSuffix(md.MetadataLog[1].MetadataFile, "v2.metadata.json") {
				t.Errorf("metadata log %v", md.MetadataLog)
			}

			// The summary's counts against what was written, sizes from
			// the file system.
			var size int64
			for _, df := range second {
				st, err := os.Stat(df.FilePath)
				if err != nil {
					t.Fatal(err)
				}
				size += st.Size()
			}
			s := snap.Summary
			if s["operation"] != OpAppend {
				t.Errorf("operation %q", s["operation"])
			}
			checks := map[string]int64{
				"added-data-files": int64(len(second)), "added-records": 50, "added-files-size": size,
				"total-records": 350, "total-data-files": int64(len(first) + len(second)),
				"total-delete-files": 0, "total-position-deletes": 0, "total-equality-deletes": 0,
				"changed-partition-count": 1,
			}
			for k, want := range checks {
				if got := summaryInt(t, s, k); got != want {
					t.Errorf("summary %s = %d, want %d", k, got, want)
				}
			}

			plan, err := fresh.PlanFiles(ctx, SnapshotSelector{})
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range plan.Tasks {
				wantSeq := int64(1)
				if slices.Contains(pathsOf(second), task.File.FilePath) {
					wantSeq = 2
				}
				if version == 1 {
					wantSeq = 0
				}
				if task.DataSequenceNumber != wantSeq {
					t.Errorf("%s: data sequence number %d, want %d", task.File.FilePath, task.DataSequenceNumber, wantSeq)
				}
			}
			if version == 3 {
				checkRowLineage(t, fresh, plan, 350)
			}
		})
	}
}

// checkRowLineage checks that the data files' row id ranges are disjoint,
// lie below next-row-id, and that each snapshot's first-row-id and
// added-rows advance the table's counter.
func checkRowLineage(t *testing.T, tbl *Table, plan *Plan, rows int64) {
	t.Helper()
	md := tbl.Metadata
	type span struct{ lo, hi int64 }
	var spans []span
	var covered int64
	for _, task := range plan.Tasks {
		if task.File.FirstRowID == nil {
			t.Fatalf("%s has no first row id", task.File.FilePath)
		}
		lo := *task.File.FirstRowID
		spans = append(spans, span{lo, lo + task.File.RecordCount})
		covered += task.File.RecordCount
	}
	slices.SortFunc(spans, func(a, b span) int { return int(a.lo - b.lo) })
	for i := 1; i < len(spans); i++ {
		if spans[i].lo < spans[i-1].hi {
			t.Fatalf("row id ranges overlap: %v", spans)
		}
	}
	if covered != rows || spans[len(spans)-1].hi > md.NextRowID {
		t.Fatalf("row ids cover %d rows up to %d; next-row-id %d, want %d rows", covered, spans[len(spans)-1].hi, md.NextRowID, rows)
	}
	next := int64(0)
	for _, s := range md.Snapshots {
		if s.FirstRowID == nil || s.AddedRows == nil {
			t.Fatalf("snapshot %d lacks first-row-id or added-rows", s.SnapshotID)
		}
		if *s.FirstRowID != next {
			t.Errorf("snapshot %d first-row-id %d, want %d", s.SnapshotID, *s.FirstRowID, next)
		}
		next += *s.AddedRows
	}
	if next != md.NextRowID {
		t.Errorf("next-row-id %d, snapshots add up to %d", md.NextRowID, next)
	}
}

func TestAppendNothingCommitsAnEmptySnapshot(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(3, 0, 10), 100)
	if _, err := tbl.Append(ctx, files, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	id, err := snapshotIDOf(tbl.Append(ctx, nil, CommitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	fresh := reopen(t, tbl)
	if got := fresh.Metadata.CurrentSnapshot(); got == nil || got.SnapshotID != id || len(fresh.Metadata.Snapshots) != 2 {
		t.Fatalf("current snapshot %v, %d snapshots; want %d of 2", got, len(fresh.Metadata.Snapshots), id)
	}
	if got := livePaths(t, fresh); !slices.Equal(got, pathsOf(files)) {
		t.Fatalf("live files %v", got)
	}
	s := fresh.Metadata.CurrentSnapshot().Summary
	if s["operation"] != OpAppend || summaryInt(t, s, "total-records") != 10 || s["added-records"] != "" {
		t.Fatalf("summary %v", s)
	}
}

func TestAppendRefusesDeleteFiles(t *testing.T) {
	tbl := createTable(t, 2, nil, nil)
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(3, 0, 10), 100)
	files[0].Content = manifest.ContentEqualityDeletes
	files[0].EqualityIDs = []int{testtable.IDID}
	if _, err := tbl.Append(context.Background(), files, CommitOptions{}); err == nil || !strings.Contains(err.Error(), "delete") {
		t.Fatalf("append of a delete file: %v", err)
	}
	if tbl.Metadata.CurrentSnapshot() != nil || len(reopen(t, tbl).Metadata.Snapshots) != 0 {
		t.Fatal("a refused append committed")
	}
}

func TestAppendRefusesFilesTheTableCannotHold(t *testing.T) {
	tbl := createTable(t, 2, nil, nil)
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(3, 0, 10), 100)
	cases := map[string]func(*manifest.DataFile){
		"unknown spec":     func(df *manifest.DataFile) { df.SpecID = 7 },
		"partition arity":  func(df *manifest.DataFile) { df.Partition = []any{int32(1)} },
		"no format":        func(df *manifest.DataFile) { df.FileFormat = "" },
		"negative records": func(df *manifest.DataFile) { df.RecordCount = -1 },
	}
	for name, spoil := range cases {
		bad := slices.Clone(files)
		spoil(&bad[0])
		if _, err := tbl.Append(context.Background(), bad, CommitOptions{}); err == nil {
			t.Errorf("%s: append succeeded", name)
		}
	}
	twice := append(slices.Clone(files), files[0])
	if _, err := tbl.Append(context.Background(), twice, CommitOptions{}); err == nil {
		t.Error("a file given twice was appended")
	}
	if n := len(reopen(t, tbl).Metadata.Snapshots); n != 0 {
		t.Fatalf("%d snapshots after refused appends", n)
	}
	entries, _ := os.ReadDir(filepath.Join(tbl.Metadata.Location, "metadata"))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".avro") {
			t.Errorf("refused append left %s behind", e.Name())
		}
	}
}
