package committest

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/scan"
)

// written are data files written for a commit: their manifest entries and,
// per file, the ids of its rows in file order.
type written struct {
	files []manifest.DataFile
	ids   map[string][]int64
}

func (w written) allIDs() []int64 {
	var out []int64
	for _, ids := range w.ids {
		out = append(out, ids...)
	}
	slices.Sort(out)
	return out
}

// idsIn lists the ids of the files in partition i = part.
func (w written) idsIn(part int32) []int64 {
	var out []int64
	for _, f := range w.files {
		if len(f.Partition) > 0 && f.Partition[0] == part {
			out = append(out, w.ids[f.FilePath]...)
		}
	}
	slices.Sort(out)
	return out
}

// writeData writes rows (testtable's schema) as real Parquet files,
// partitioned by spec, through testtable.Build into a scratch directory,
// and returns their entries as a writer hands them to a commit.
func writeData(t testing.TB, spec iceberg.PartitionSpec, rows [][]any, perFile int) written {
	t.Helper()
	return writeDataIn(t, t.TempDir(), spec, rows, perFile)
}

// writeDataIn is writeData into a given directory.
func writeDataIn(t testing.TB, dir string, spec iceberg.PartitionSpec, rows [][]any, perFile int) written {
	t.Helper()
	built, err := testtable.Build(dir, testtable.Options{Rows: rows, Spec: spec, RowsPerFile: perFile})
	if err != nil {
		t.Fatal(err)
	}
	src, err := table.Open(context.Background(), built.MetadataPath, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := src.PlanFiles(context.Background(), table.SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	w := written{ids: map[string][]int64{}}
	for _, task := range plan.Tasks {
		w.files = append(w.files, task.File)
	}
	sort.Slice(w.files, func(i, j int) bool { return w.files[i].FilePath < w.files[j].FilePath })
	for _, f := range built.Files {
		for _, r := range f.Rows {
			w.ids[f.Path] = append(w.ids[f.Path], built.Rows[r][0].(int64))
		}
	}
	if len(w.ids) != len(w.files) {
		t.Fatalf("%d files written, %d planned", len(w.ids), len(w.files))
	}
	return w
}

// rowsIn gives n rows with ids from first on whose column i cycles through
// parts (identity(i) partitions).
func rowsIn(seed uint64, first int64, n int, parts ...int32) [][]any {
	rows := testtable.RandomRows(seed, n)
	for k := range rows {
		rows[k][0] = first + int64(k)
		if len(parts) > 0 {
			rows[k][testtable.IDInt-1] = parts[k%len(parts)]
		}
	}
	return rows
}

var byInt = iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
	{SourceID: testtable.IDInt, FieldID: 1000, Name: "i", Transform: iceberg.IdentityTransform{}},
}}

func create(t testing.TB, version int, spec *iceberg.PartitionSpec, props map[string]string) *table.Table {
	t.Helper()
	tbl, err := table.Create(context.Background(), nil, filepath.Join(t.TempDir(), "tbl"), testtable.Schema(), spec, nil, props, version)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// scanIDs opens the table afresh and reads the id of every row of the
// selected snapshot (nil: the current one) through the reader.
func scanIDs(t testing.TB, location string, snapshotID *int64) []int64 {
	t.Helper()
	return scanIDsWith(t, location, table.Options{}, snapshotID)
}

// scanIDsWith is scanIDs of a table opened with opts.
func scanIDsWith(t testing.TB, location string, opts table.Options, snapshotID *int64) []int64 {
	t.Helper()
	ctx := context.Background()
	tbl, err := table.Open(ctx, location, opts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scan.New(ctx, tbl, scan.Options{Columns: []string{"id"}, SnapshotID: snapshotID, Threads: 2})
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
	var ids []int64
	for rr.Next() {
		col := rr.RecordBatch().Column(0).(*array.Int64)
		for i := 0; i < col.Len(); i++ {
			ids = append(ids, col.Value(i))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	return ids
}

func union(sets ...[]int64) []int64 {
	var out []int64
	for _, s := range sets {
		out = append(out, s...)
	}
	slices.Sort(out)
	return out
}

func without(all []int64, drop ...[]int64) []int64 {
	gone := map[int64]bool{}
	for _, d := range drop {
		for _, id := range d {
			gone[id] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(all), func(id int64) bool { return gone[id] })
}

func checkIDs(t testing.TB, what string, got, want []int64) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: read %d ids, want %d\n got %v\nwant %v", what, len(got), len(want), got, want)
	}
}

// snapshotIDOf is the snapshot a commit's result names, for tests that
// need only the id.
func snapshotIDOf(r table.CommitResult, err error) (int64, error) { return r.SnapshotID, err }
