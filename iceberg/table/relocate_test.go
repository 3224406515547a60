package table

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/internal/testtable"
)

// planned is what a plan says each data file is read from, with the delete
// files attached to it, in one sorted list.
func planned(t *testing.T, tbl *Table) []string {
	t.Helper()
	plan, err := tbl.PlanFiles(context.Background(), SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, task := range plan.Tasks {
		line := task.Path
		for _, d := range task.Deletes {
			line += " " + d.Path
		}
		out = append(out, line)
	}
	sort.Strings(out)
	return out
}

// Fixtures copied out of Impala's HDFS and DuckDB's repository open without
// a map: every data file and delete file is found where the fixture sits,
// and each data file gets the same deletes as with the map tables.json
// gives. The position-delete tables name their data files with the hdfs://
// spelling inside the delete files and /test-warehouse/… in the manifests
// (INDEX.md quirk 0); the relocation covers both.
func TestMovedFixturesOpenWithoutAMap(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{
		"impala_iceberg_partitioned",
		"impala_iceberg_migrated_complex_test",
		"impala_iceberg_v2_partitioned_position_deletes",
		"impala_iceberg_v2_delete_pos_and_multi_eq_ids",
		"impala_iceberg_v3_deletion_vectors",
		"duckdb_lineitem_iceberg",
		"duckdb_uuid",
		"duckdb_equality_deletes/mytable",
	} {
		t.Run(name, func(t *testing.T) {
			mapped, fx := openFixture(t, name)
			moved, err := Open(ctx, fx.Dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if moved.Locations.Len() == 0 {
				t.Fatalf("recorded location %s was not relocated", moved.Metadata.Location)
			}
			want, got := planned(t, mapped), planned(t, moved)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("without a map:\n  %s\nwith the map:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
			for _, line := range got {
				for _, p := range strings.Fields(line) {
					if !strings.HasPrefix(p, fx.Dir+"/") {
						t.Errorf("%s is not under the fixture directory", p)
					}
					if _, err := os.Stat(p); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
}

// With relocation off, a moved table reads its recorded paths, and the
// error names the recorded prefix and the map that would find it; the
// error is still a not-found (or, for hdfs://, an unsupported scheme).
func TestNoRelocateKeepsRecordedPathsAndSuggestsTheMap(t *testing.T) {
	ctx := context.Background()
	for name, recorded := range map[string]string{
		"impala_iceberg_partitioned":         "/test-warehouse/iceberg_test/iceberg_partitioned",
		"impala_iceberg_v3_deletion_vectors": "hdfs://localhost:20500/test-warehouse/iceberg_v3_deletion_vectors",
	} {
		fx, err := fixtures.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := Open(ctx, fx.Dir, Options{NoRelocate: true})
		if err != nil {
			t.Fatal(err)
		}
		_, err = tbl.PlanFiles(ctx, SnapshotSelector{})
		if err == nil {
			t.Fatalf("%s: planned without relocation or map", name)
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fileio.ErrUnsupportedScheme) {
			t.Errorf("%s: error kind lost: %v", name, err)
		}
		want := "table data is recorded under " + recorded + ", which does not exist; pass --map " + recorded + "=" + fx.Dir
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error\n  %v\nlacks\n  %s", name, err, want)
		}
	}
}

// A copied table reads its own files, whether or not its original is
// still in place (cp -r prod test: the copy never reads, writes or deletes
// prod's files). Opening the original through a file: URI is no move.
func TestACopyReadsItsOwnFiles(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	orig, copied := filepath.Join(base, "orig"), filepath.Join(base, "copy")
	if _, err := testtable.Build(orig, testtable.Options{Rows: testtable.RandomRows(1, 10), RowsPerFile: 4}); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(copied, os.DirFS(orig)); err != nil {
		t.Fatal(err)
	}
	under := func(tbl *Table, dir string) {
		t.Helper()
		for _, p := range planned(t, tbl) {
			if !strings.HasPrefix(p, dir+"/") {
				t.Errorf("%s is not under %s", p, dir)
			}
		}
	}
	for _, loc := range []string{orig, "file://" + orig, "file:" + orig} {
		tbl, err := Open(ctx, loc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if tbl.Locations.Len() != 0 {
			t.Errorf("%s: opening a table where it records was relocated: %v", loc, tbl.Locations.Prefixes())
		}
		under(tbl, orig)
	}
	tbl, err := Open(ctx, copied, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Locations.Len() == 0 {
		t.Errorf("a copy whose original exists was not relocated")
	}
	under(tbl, copied)

	if err := os.RemoveAll(orig); err != nil {
		t.Fatal(err)
	}
	if tbl, err = Open(ctx, "file://"+copied, Options{}); err != nil {
		t.Fatal(err)
	}
	under(tbl, copied)
	// An explicit map wins over relocation.
	elsewhere := filepath.Join(base, "elsewhere")
	if err := os.Rename(copied, elsewhere); err != nil {
		t.Fatal(err)
	}
	if tbl, err = Open(ctx, elsewhere, Options{LocationMap: map[string]string{"file://" + orig: copied}}); err != nil {
		t.Fatal(err)
	}
	if got := tbl.Locations.Apply(orig + "/data/x"); got != copied+"/data/x" {
		t.Errorf("the explicit map lost to relocation: %s", got)
	}
	_, err = tbl.PlanFiles(ctx, SnapshotSelector{})
	if want := "mapped to " + copied + ", which does not hold it; pass --map " + orig + "=" + elsewhere; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v lacks %q", err, want)
	}
}

// A copy opened with NoRelocate reads its original's files, as asked, but
// never writes or deletes there: a commit (its manifests would go under
// the recorded location) and an expiry are refused, and the original
// gains, loses and changes no file.
func TestACopyWithoutRelocationNeverWritesItsOriginal(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	orig, copied := filepath.Join(base, "orig"), filepath.Join(base, "copy")
	if _, err := testtable.Build(orig, testtable.Options{Rows: testtable.RandomRows(1, 10), RowsPerFile: 4}); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(copied, os.DirFS(orig)); err != nil {
		t.Fatal(err)
	}
	before := strings.Join(filesBelow(t, orig), "\n")
	tbl, err := Open(ctx, copied, Options{NoRelocate: true})
	if err != nil {
		t.Fatal(err)
	}
	extra := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 10), 10)
	if _, err := tbl.Append(ctx, extra, CommitOptions{}); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("append: %v, want a refusal", err)
	}
	now := int64(1) << 62
	if _, err := tbl.ExpireSnapshots(ctx, &now, nil, ExpireOptions{}); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("expire: %v, want a refusal", err)
	}
	if after := strings.Join(filesBelow(t, orig), "\n"); after != before {
		t.Errorf("the original changed:\n%s\nwas\n%s", after, before)
	}
}

// filesBelow lists the files below dir with their sizes and times.
func filesBelow(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %d %d", p, info.Size(), info.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
