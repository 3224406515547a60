package writer

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/parquet"
)

func bitmapOf(positions ...uint64) *roaring64.Bitmap { return roaring64.BitmapOf(positions...) }

// readPositionFile reads a position delete file's columns with floe's
// Parquet core, by field id.
func readPositionFile(t *testing.T, path string) (paths []string, positions []int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, _ := f.Stat()
	pf, err := parquet.OpenFile(f, info.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	pathNode, posNode := pf.NodeByFieldID(FieldIDDeleteFilePath), pf.NodeByFieldID(FieldIDDeletePos)
	if pathNode == nil || posNode == nil {
		t.Fatal("no file_path or pos column with the reserved field ids")
	}
	for rg := range pf.RowGroups {
		br, err := pf.NewBatchReader(parquet.ReadRequest{Columns: []parquet.Column{{Node: pathNode}, {Node: posNode}}, RowGroup: rg})
		if err != nil {
			t.Fatal(err)
		}
		for {
			b, err := br.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < b.NumRows; i++ {
				paths = append(paths, b.Columns[0].ValueStr(i))
				positions = append(positions, b.Columns[1].(*array.Int64).Value(i))
			}
			b.Release()
		}
		br.Close()
	}
	return paths, positions
}

// A position delete file holds its rows sorted by path then position,
// the same path's entries merged, with the reserved field ids and full
// metrics; it names its data file only when it has one.
func TestWritePositionDeletesLayoutAndMetrics(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "pos.parquet")
	deletes := []FilePositions{
		{FilePath: "s3://b/data/z.parquet", Positions: bitmapOf(9, 3)},
		{FilePath: "s3://b/data/a.parquet", Positions: bitmapOf(70000, 4, 5)},
		{FilePath: "s3://b/data/z.parquet", Positions: bitmapOf(1, 3)},
		{FilePath: "s3://b/data/empty.parquet", Positions: roaring64.New()},
	}
	df, err := WritePositionDeletes(ctx, fileio.Local{}, path, 3, []any{int32(7)}, deletes, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	paths, positions := readPositionFile(t, path)
	wantPaths := []string{"s3://b/data/a.parquet", "s3://b/data/a.parquet", "s3://b/data/a.parquet", "s3://b/data/z.parquet", "s3://b/data/z.parquet", "s3://b/data/z.parquet"}
	if !slices.Equal(paths, wantPaths) || !slices.Equal(positions, []int64{4, 5, 70000, 1, 3, 9}) {
		t.Fatalf("rows %v %v", paths, positions)
	}
	info, _ := os.Stat(path)
	lo, _ := iceberg.ValueToBytes(iceberg.LongType{}, int64(1))
	hi, _ := iceberg.ValueToBytes(iceberg.LongType{}, int64(70000))
	switch {
	case df.Content != manifest.ContentPositionDeletes || df.FileFormat != "PARQUET" || df.SpecID != 3 || df.Partition[0] != int32(7):
		t.Fatalf("entry %+v", df)
	case df.RecordCount != 6 || df.FileSizeInBytes != info.Size() || df.ReferencedDataFile != "":
		t.Fatalf("count %d, size %d (file %d), referenced %q", df.RecordCount, df.FileSizeInBytes, info.Size(), df.ReferencedDataFile)
	case string(df.Metrics.Maps().LowerBounds[FieldIDDeleteFilePath]) != "s3://b/data/a.parquet" || string(df.Metrics.Maps().UpperBounds[FieldIDDeleteFilePath]) != "s3://b/data/z.parquet":
		t.Fatalf("path bounds %q %q", df.Metrics.Maps().LowerBounds[FieldIDDeleteFilePath], df.Metrics.Maps().UpperBounds[FieldIDDeleteFilePath])
	case string(df.Metrics.Maps().LowerBounds[FieldIDDeletePos]) != string(lo) || string(df.Metrics.Maps().UpperBounds[FieldIDDeletePos]) != string(hi):
		t.Fatal("pos bounds are not the smallest and largest position")
	case df.Metrics.Maps().ValueCounts[FieldIDDeletePos] != 6 || df.Metrics.Maps().NullValueCounts[FieldIDDeleteFilePath] != 0 || df.Metrics.Maps().ColumnSizes[FieldIDDeletePos] <= 0:
		t.Fatalf("counts %v %v %v", df.Metrics.Maps().ValueCounts, df.Metrics.Maps().NullValueCounts, df.Metrics.Maps().ColumnSizes)
	}
	one, err := WritePositionDeletes(ctx, fileio.Local{}, filepath.Join(dir, "one.parquet"), 0, nil, deletes[:1], DefaultOptions())
	if err != nil || one.ReferencedDataFile != "s3://b/data/z.parquet" {
		t.Fatalf("single file: %q, %v", one.ReferencedDataFile, err)
	}
	if _, err := WritePositionDeletes(ctx, fileio.Local{}, filepath.Join(dir, "none.parquet"), 0, nil, deletes[3:], DefaultOptions()); err == nil {
		t.Fatal("a file with no positions was written")
	}
	if _, err := os.Stat(filepath.Join(dir, "none.parquet")); !os.IsNotExist(err) {
		t.Fatal("the refused file exists")
	}
}

// Position delete files and deletion vectors the library writes, committed
// with RowDelta, make the reader drop exactly the rows at those positions;
// a second vector for a file absorbs the first.
func TestDeleteFilesAppliedByReader(t *testing.T) {
	for _, version := range []int{2, 3} {
		t.Run("v"+string(rune('0'+version)), func(t *testing.T) {
			ctx := context.Background()
			tbl := newTable(t, version, nil, nil)
			schema := tbl.Metadata.CurrentSchema()
			rows := testtable.RandomRows(31, 80)
			fileA := writeTableFiles(t, tbl, rows[:50])
			fileB := writeTableFiles(t, tbl, rows[50:])
			if _, err := tbl.Append(ctx, append(fileA, fileB...), table.CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			a, b := fileA[0], fileB[0]
			gone := map[int64]bool{}
			mark := func(first int64, positions ...uint64) {
				for _, p := range positions {
					gone[first+int64(p)] = true
				}
			}
			dataDir := DataLocation(tbl.Metadata)
			var deletes []manifest.DataFile
			if version == 2 {
				df, err := WritePositionDeletes(ctx, tbl.IO, fileio.JoinPath(dataDir, "pos.parquet"), 0, nil,
					[]FilePositions{{a.FilePath, bitmapOf(0, 7, 49)}, {b.FilePath, bitmapOf(2)}}, DefaultOptions())
				if err != nil {
					t.Fatal(err)
				}
				deletes = []manifest.DataFile{df}
			} else {
				dvs, err := WriteDeletionVectors(ctx, tbl.IO, fileio.JoinPath(dataDir, "dv1.puffin"),
					[]DeletionVector{{DataFile: a, Positions: bitmapOf(0, 7, 49)}, {DataFile: b, Positions: bitmapOf(2)}})
				if err != nil {
					t.Fatal(err)
				}
				if dvs[0].FilePath != dvs[1].FilePath || *dvs[0].ContentOffset == *dvs[1].ContentOffset || dvs[0].RecordCount != 3 {
					t.Fatalf("vectors %+v %+v", dvs[0], dvs[1])
				}
				deletes = dvs
			}
			mark(0, 0, 7, 49)
			mark(50, 2)
			if _, err := tbl.RowDelta(ctx, nil, deletes, table.CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			keep := func() [][]any {
				return keepRows(schema, rows, func(r []any) bool { return gone[r[0].(int64)] })
			}
			checkRows(t, "after the first deletes", tbl, keep())
			if version < 3 {
				return
			}
			previous := deletes[0]
			if _, err := WriteDeletionVectors(ctx, tbl.IO, fileio.JoinPath(dataDir, "bad.puffin"), []DeletionVector{{DataFile: a, Positions: bitmapOf(50)}}); err == nil {
				t.Fatal("a position past the file's rows was taken")
			}
			if _, err := WriteDeletionVectors(ctx, tbl.IO, fileio.JoinPath(dataDir, "bad.puffin"), []DeletionVector{{DataFile: b, Positions: bitmapOf(1), Previous: &previous}}); err == nil {
				t.Fatal("another file's vector was merged")
			}
			dv2, err := WriteDeletionVectors(ctx, tbl.IO, fileio.JoinPath(dataDir, "dv2.puffin"), []DeletionVector{{DataFile: a, Positions: bitmapOf(8, 9), Previous: &previous}})
			if err != nil {
				t.Fatal(err)
			}
			merged, err := ReadDeletionVector(ctx, tbl.IO, &dv2[0])
			if err != nil || !slices.Equal(merged.ToArray(), []uint64{0, 7, 8, 9, 49}) {
				t.Fatalf("merged vector %v, %v", merged, err)
			}
			mark(0, 8, 9)
			if _, err := tbl.RowDelta(ctx, nil, dv2, table.CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			checkRows(t, "after the merged vector", tbl, keep())
			checkVectors(t, tbl)
		})
	}
}

// Equality delete files from Arrow batches of whole rows: the reader
// drops exactly the rows of the same partition whose key equals a deleted
// key, a null matching a null.
func TestEqualityDeleteWriter(t *testing.T) {
	cases := []struct {
		name string
		spec *iceberg.PartitionSpec
		ids  []int
	}{
		{"unpartitioned, on s", nil, []int{testtable.IDString}},
		{"partitioned by b, on i and s", byBool, []int{testtable.IDInt, testtable.IDString}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			tbl := newTable(t, 2, tc.spec, nil)
			md := tbl.Metadata
			schema := md.CurrentSchema()
			rows := testtable.RandomRows(41, 300)
			// Row 21 is row 20 in the other partition; rows 30 and 31
			// share a key with a null s.
			b, s := testtable.IDBool-1, testtable.IDString-1
			rows[21] = slices.Clone(rows[20])
			rows[21][0], rows[21][b] = int64(21), rows[20][b] != true
			rows[30][s] = nil
			rows[31] = slices.Clone(rows[30])
			rows[31][0] = int64(31)
			appendInChunks(t, tbl, rows, 100)
			keyRows := [][]any{rows[3], rows[20], rows[30]}
			files := writeEqualityDeletes(t, tbl, tc.ids, keyRows)
			for _, f := range files {
				if f.Content != manifest.ContentEqualityDeletes || !slices.Equal(f.EqualityIDs, tc.ids) {
					t.Fatalf("entry %+v", f)
				}
			}
			if _, err := tbl.RowDelta(ctx, nil, files, table.CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			partitioned := tc.spec != nil
			matches := func(r, key []any) bool {
				if partitioned && r[testtable.IDBool-1] != key[testtable.IDBool-1] {
					return false
				}
				for _, id := range tc.ids {
					if r[id-1] != key[id-1] { // canonical values: nil equals nil
						return false
					}
				}
				return true
			}
			want := keepRows(schema, rows, func(r []any) bool {
				return slices.ContainsFunc(keyRows, func(key []any) bool { return matches(r, key) })
			})
			kept := func(id int64) bool { return slices.ContainsFunc(want, func(r []any) bool { return r[0] == id }) }
			if kept(20) || kept(30) || kept(31) || kept(21) != partitioned {
				t.Fatal("the Go predicate does not delete what the test means it to")
			}
			checkRows(t, "after the equality deletes", tbl, want)
		})
	}
	if _, err := NewEqualityDeleteWriter(context.Background(), fileio.Local{}, t.TempDir(), testtable.Schema(), nil, []int{99}, DefaultOptions()); err == nil {
		t.Fatal("an unknown equality field was taken")
	}
}

// Equality deletes keyed on a column the rows are sorted by, in files of
// many row groups: the reader narrows each key set to the row group's
// range of the first key column, which must drop exactly the same rows as
// probing every key, whether the delete file lists its keys in order or
// not, and when a null key (which no range holds) is among them.
func TestEqualityDeletesOnASortedKey(t *testing.T) {
	cases := []struct {
		name     string
		ids      []int
		keyRows  []int
		withNull bool
	}{
		{"on l, in order", []int{testtable.IDLong}, []int{3, 49, 50, 99, 100, 101, 102, 110, 149, 150, 999, 1000, 1500, 1999}, false},
		{"on l, shuffled", []int{testtable.IDLong}, []int{1999, 101, 3, 1500, 110, 102, 100, 50, 49, 1000}, false},
		{"on l and s", []int{testtable.IDLong, testtable.IDString}, []int{1500, 12, 640, 642, 1998}, false},
		{"on l, with a null key", []int{testtable.IDLong}, []int{5, 700, 1300}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			tbl := newTable(t, 2, nil, map[string]string{PropRowGroupSize: "4096", PropPageRowLimit: "40"})
			schema := tbl.Metadata.CurrentSchema()
			rows := testtable.RandomRows(77, 2000)
			l := testtable.IDLong - 1
			var keyRows [][]any
			for _, i := range tc.keyRows {
				if rows[i][l] == nil {
					t.Fatalf("row %d has no l; pick another", i)
				}
				keyRows = append(keyRows, rows[i])
			}
			if tc.withNull {
				nullRow := slices.IndexFunc(rows, func(r []any) bool { return r[l] == nil })
				keyRows = append(keyRows, rows[nullRow])
			}
			appendInBatches(t, tbl, rows, 1000, 50)
			if groups := rowGroupsOf(t, liveFiles(t, tbl).Tasks[0].File.FilePath); groups < 10 {
				t.Fatalf("a data file has %d row groups; the test needs many", groups)
			}
			files := writeEqualityDeletes(t, tbl, tc.ids, keyRows)
			if _, err := tbl.RowDelta(ctx, nil, files, table.CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			want := keepRows(schema, rows, func(r []any) bool {
				return slices.ContainsFunc(keyRows, func(key []any) bool {
					for _, id := range tc.ids {
						if r[id-1] != key[id-1] {
							return false
						}
					}
					return true
				})
			})
			if len(want) >= len(rows)-len(keyRows)+1 && !tc.withNull {
				t.Fatalf("%d of %d rows kept: the keys delete too little", len(want), len(rows))
			}
			checkRows(t, "after the equality deletes", tbl, want)
		})
	}
}

// rowGroupsOf counts a local Parquet file's row groups.
func rowGroupsOf(t testing.TB, path string) int {
	t.Helper()
	pf, closeFile := openParquet(t, path)
	defer closeFile()
	return len(pf.RowGroups)
}

// writeEqualityDeletes writes keyRows' values on ids as equality delete
// files of tbl's current schema and default spec.
func writeEqualityDeletes(t testing.TB, tbl *table.Table, ids []int, keyRows [][]any) []manifest.DataFile {
	t.Helper()
	md := tbl.Metadata
	w, err := NewEqualityDeleteWriter(context.Background(), tbl.IO, DataLocation(md), md.CurrentSchema(), md.DefaultSpec(), ids, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return writeRecords(t, w, md.CurrentSchema(), keyRows, len(keyRows))
}
