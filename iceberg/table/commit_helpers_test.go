package table

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/testtable"
)

// writeFiles writes real Parquet data files of rows (testtable's standard
// schema) partitioned by spec, through testtable.Build into a scratch
// table under dir, and returns their manifest entries, metrics and all,
// as a writer would hand them to a commit.
func writeFiles(t testing.TB, dir string, spec iceberg.PartitionSpec, rows [][]any, rowsPerFile int) []manifest.DataFile {
	t.Helper()
	if _, err := testtable.Build(dir, testtable.Options{Rows: rows, Spec: spec, RowsPerFile: rowsPerFile}); err != nil {
		t.Fatal(err)
	}
	return filesIn(t, dir)
}

// filesIn returns the entries of the data files writeFiles wrote into dir.
func filesIn(t testing.TB, dir string) []manifest.DataFile {
	t.Helper()
	src, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := src.PlanFiles(context.Background(), SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]manifest.DataFile, len(plan.Tasks))
	for i, task := range plan.Tasks {
		out[i] = task.File
	}
	sort.Slice(out, func(i, j int) bool { return out[i].FilePath < out[j].FilePath })
	return out
}

// rowsWithIDs gives n random rows with ids from first on.
func rowsWithIDs(seed uint64, first int64, n int) [][]any {
	rows := testtable.RandomRows(seed, n)
	for i := range rows {
		rows[i][0] = first + int64(i)
	}
	return rows
}

// createTable creates a table of testtable's schema in a fresh directory.
func createTable(t testing.TB, version int, spec *iceberg.PartitionSpec, props map[string]string) *Table {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tbl")
	tbl, err := Create(context.Background(), nil, dir, testtable.Schema(), spec, nil, props, version)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// reopen opens the table's location afresh, as another process would.
func reopen(t testing.TB, tbl *Table) *Table {
	t.Helper()
	fresh, err := Open(context.Background(), tbl.Metadata.Location, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return fresh
}

// livePaths plans the current snapshot and returns its data file paths,
// sorted.
func livePaths(t testing.TB, tbl *Table) []string {
	t.Helper()
	plan, err := tbl.PlanFiles(context.Background(), SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, task := range plan.Tasks {
		out = append(out, task.File.FilePath)
	}
	sort.Strings(out)
	return out
}

func pathsOf(files []manifest.DataFile) []string {
	out := make([]string, len(files))
	for i := range files {
		out[i] = files[i].FilePath
	}
	sort.Strings(out)
	return out
}

func summaryInt(t testing.TB, summary map[string]string, key string) int64 {
	t.Helper()
	v, ok := summary[key]
	if !ok {
		t.Fatalf("summary has no %q: %v", key, summary)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("summary %q=%q: %v", key, v, err)
	}
	return n
}

// snapshotIDOf is the snapshot a commit's result names, for tests that
// need only the id.
func snapshotIDOf(r CommitResult, err error) (int64, error) { return r.SnapshotID, err }

var movedFiles atomic.Int64

// intoTable moves data files writeFiles wrote elsewhere under the table's
// data directory and returns their entries there: expiry and purge delete
// only files under the table's location.
func intoTable(t testing.TB, tbl *Table, files []manifest.DataFile) []manifest.DataFile {
	t.Helper()
	dir := filepath.Join(tbl.Metadata.Location, "data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := make([]manifest.DataFile, len(files))
	for i, f := range files {
		from := strings.TrimPrefix(f.FilePath, "file://")
		to := filepath.Join(dir, fmt.Sprintf("%d-%s", movedFiles.Add(1), filepath.Base(from)))
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
		f.FilePath = filepath.ToSlash(to)
		out[i] = f
	}
	return out
}
