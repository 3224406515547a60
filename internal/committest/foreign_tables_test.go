package committest

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/reader/scan"
)

// Committing on top of tables Impala wrote (through Java Iceberg): v1
// legacy metadata, v2 with position deletes and manifests that lost their
// Avro header, v3 with deletion vectors. floe appends a copy of a data
// file and removes another; reading back gives exactly the rows before,
// less the removed file's, plus the copy's.
func TestCommitOnTopOfImpalaTables(t *testing.T) {
	for _, name := range []string{
		"impala_iceberg_partitioned",
		"impala_iceberg_v2_positional_not_all_data_files_have_delete_files",
		"impala_iceberg_v3_deletion_vectors",
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			fx, err := fixtures.Get(name)
			if err != nil {
				t.Skip(err)
			}
			dir := filepath.Join(t.TempDir(), "copy")
			copyDir(t, fx.Dir, dir)
			locations := map[string]string{}
			for prefix, target := range fx.LocationMap {
				locations[prefix] = strings.Replace(target, fx.Dir, dir, 1)
			}
			opts := table.Options{LocationMap: locations}
			tbl, err := table.Open(ctx, dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			before := scanRows(t, tbl, nil)
			plan, err := tbl.PlanFiles(ctx, table.SnapshotSelector{})
			if err != nil {
				t.Fatal(err)
			}
			// Copy a file no delete applies to; remove a different one.
			var keep, drop *table.DataFileTask
			for i := range plan.Tasks {
				task := &plan.Tasks[i]
				switch {
				case keep == nil && len(task.Deletes) == 0:
					keep = task
				case drop == nil:
					drop = task
				}
			}
			if keep == nil || drop == nil {
				t.Fatalf("%d tasks: nothing to copy or remove", len(plan.Tasks))
			}
			copyPath := filepath.Join(dir, "data", "floe-copy.parquet")
			copyFile(t, keep.Path, copyPath)
			copied := keep.File
			copied.FilePath = copyPath
			copied.FirstRowID = nil
			if _, err := tbl.Append(ctx, []manifest.DataFile{copied}, table.CommitOptions{Token: "copy"}); err != nil {
				t.Fatal(err)
			}
			if _, err := tbl.Commit(ctx, nil, []string{drop.File.FilePath}, table.CommitOptions{}); err != nil {
				t.Fatal(err)
			}

			reopened, err := table.Open(ctx, dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			plan, err = reopened.PlanFiles(ctx, table.SnapshotSelector{})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range plan.DeleteFiles {
				if d.IsDeletionVector() && d.File.ReferencedDataFile == drop.File.FilePath {
					t.Errorf("the removed file's deletion vector %s is still live", d.File.FilePath)
				}
			}
			after := scanRows(t, reopened, nil)
			var want []string
			for _, r := range before {
				file, rest, _ := strings.Cut(r, "|")
				switch file {
				case drop.File.FilePath:
				case keep.File.FilePath:
					want = append(want, r, copyPath+"|"+rest)
				default:
					want = append(want, r)
				}
			}
			slices.Sort(want)
			if !slices.Equal(after, want) {
				t.Fatalf("read %d rows, want %d\n got %v\nwant %v", len(after), len(want), after, want)
			}
			// The engine's own snapshots stay readable.
			if got := scanRows(t, reopened, tbl.Metadata.CurrentSnapshot().ParentSnapshotID); !slices.Equal(got, sortedWith(before, keep.File.FilePath, copyPath)) {
				t.Fatalf("the snapshot after the append reads %d rows", len(got))
			}
		})
	}
}

// sortedWith is rows plus a copy of those of file under another path.
func sortedWith(rows []string, file, copyPath string) []string {
	out := slices.Clone(rows)
	for _, r := range rows {
		if f, rest, _ := strings.Cut(r, "|"); f == file {
			out = append(out, copyPath+"|"+rest)
		}
	}
	slices.Sort(out)
	return out
}

// scanRows reads every column and _file of a snapshot, one string per row
// ("<file>|v1|v2…"), sorted.
func scanRows(t *testing.T, tbl *table.Table, snapshotID *int64) []string {
	t.Helper()
	ctx := context.Background()
	schema, err := tbl.SchemaFor(table.SnapshotSelector{SnapshotID: snapshotID})
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"_file"}
	for _, f := range schema.Fields {
		cols = append(cols, f.Name)
	}
	s, err := scan.New(ctx, tbl, scan.Options{Columns: cols, SnapshotID: snapshotID, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err := s.Reader(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var rows []string
	for rr.Next() {
		rec := rr.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			parts := make([]string, rec.NumCols())
			for c := range parts {
				parts[c] = rec.Column(c).ValueStr(r)
			}
			rows = append(rows, strings.Join(parts, "|"))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(rows)
	return rows
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		copyFile(t, path, filepath.Join(to, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
