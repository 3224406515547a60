package table

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/s3test"
	"github.com/floedb/floe/internal/testtable"
)

// s3Table is a table location on a test server and the options that reach
// it.
type s3Table struct {
	srv      *s3test.Server
	location string
	opts     Options
	files    fileio.FileIO
}

func newS3Table(t *testing.T, srv *s3test.Server, elems ...string) s3Table {
	t.Helper()
	o := srv.Options()
	st := s3Table{srv: srv, location: srv.Location(elems...), opts: Options{S3: &o}}
	var err error
	if st.files, err = st.opts.FileIO(st.location); err != nil {
		t.Fatal(err)
	}
	return st
}

// uploadFiles writes data files locally (writeFiles) and copies them under
// <table>/data/<batch>/, returning their entries with S3 paths, as a writer
// on S3 would hand them to a commit.
func (st s3Table) uploadFiles(t *testing.T, batch string, spec iceberg.PartitionSpec, rows [][]any, perFile int) []manifest.DataFile {
	t.Helper()
	dir := t.TempDir()
	files := writeFiles(t, dir, spec, rows, perFile)
	for i := range files {
		rel, err := filepath.Rel(filepath.Join(dir, "data"), files[i].FilePath)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(files[i].FilePath)
		if err != nil {
			t.Fatal(err)
		}
		files[i].FilePath = fileio.JoinPath(st.location, "data", batch, filepath.ToSlash(rel))
		if err := st.files.WriteFile(context.Background(), files[i].FilePath, data); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

func (st s3Table) open(t *testing.T) *Table {
	t.Helper()
	tbl, err := Open(context.Background(), st.location, st.opts)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// listNames lists a directory of the table by file name.
func (st s3Table) listNames(t *testing.T, elems ...string) []string {
	t.Helper()
	infos, err := st.files.List(context.Background(), fileio.JoinPath(st.location, elems...))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, info := range infos {
		names = append(names, lastElem(info.Path))
	}
	return names
}

// Create, append, replace partitions, a commit that removes a file, expiry
// that deletes files and metadata clean-up, all on S3, each checked through
// a freshly opened table and the bucket's listing.
func TestS3CommitsCreateAppendReplaceRemoveExpire(t *testing.T) {
	ctx := context.Background()
	srv := s3test.Start(t)
	st := newS3Table(t, srv, "wh", "db", "events")
	props := map[string]string{PropMetadataDeleteAfterCommit: "true", PropMetadataPreviousVersions: "2"}
	tbl, err := Create(ctx, st.files, st.location, testtable.Schema(), &byInt, nil, props, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Create(ctx, st.files, st.location, testtable.Schema(), nil, nil, nil, 2); !errors.Is(err, ErrTableExists) {
		t.Fatalf("creating the table again: %v", err)
	}
	if want := st.location + "/metadata/v1.metadata.json"; tbl.MetadataLocation != want {
		t.Fatalf("metadata at %s, want %s", tbl.MetadataLocation, want)
	}

	a := st.uploadFiles(t, "a", byInt, rowsIn(1, 0, 60, 1, 2, 3), 10)
	if _, err := tbl.Append(ctx, a, CommitOptions{Token: "append-a"}); err != nil {
		t.Fatal(err)
	}
	if got := livePaths(t, st.open(t)); !slices.Equal(got, pathsOf(a)) {
		t.Fatalf("after the append: %v", got)
	}
	// A retry of the same step through another handle commits nothing.
	again := st.open(t)
	if _, err := again.Append(ctx, a, CommitOptions{Token: "append-a"}); err != nil {
		t.Fatal(err)
	}
	if n := len(st.open(t).Metadata.Snapshots); n != 1 {
		t.Fatalf("%d snapshots after a retried append, want 1", n)
	}

	b := st.uploadFiles(t, "b", byInt, rowsIn(2, 1000, 7, 2), 100)
	if _, err := again.ReplacePartitions(ctx, b, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	var kept, replaced []manifest.DataFile
	for _, f := range a {
		if f.Partition[0] == int32(2) {
			replaced = append(replaced, f)
		} else {
			kept = append(kept, f)
		}
	}
	if len(replaced) == 0 || len(kept) < 2 {
		t.Fatalf("partition 2 holds %d of %d files", len(replaced), len(a))
	}
	if got := livePaths(t, st.open(t)); !slices.Equal(got, pathsOf(append(slices.Clone(kept), b...))) {
		t.Fatalf("after replacing partition 2: %v", got)
	}

	// tbl is two versions behind: the commit refreshes and builds on the
	// newest one.
	removed := kept[0]
	if _, err := tbl.Commit(ctx, nil, []string{removed.FilePath}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	live := pathsOf(append(slices.Clone(kept[1:]), b...))
	if got := livePaths(t, st.open(t)); !slices.Equal(got, live) {
		t.Fatalf("after removing %s: %v", removed.FilePath, got)
	}

	keep := 1
	now := tbl.Metadata.LastUpdatedMs + 1
	res, err := tbl.ExpireSnapshots(ctx, &now, &keep, ExpireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ExpiredSnapshots) != 2 || res.FailedDeletes != 0 {
		t.Fatalf("expiry: %+v", res)
	}
	for _, f := range append(replaced, removed) {
		if ok, err := st.files.Exists(ctx, f.FilePath); err != nil || ok {
			t.Errorf("data file %s no snapshot references: exists %v, %v", f.FilePath, ok, err)
		}
		if !slices.Contains(res.DeletedFiles, f.FilePath) {
			t.Errorf("%s is not among the deleted files", f.FilePath)
		}
	}
	for _, p := range live {
		if ok, err := st.files.Exists(ctx, p); err != nil || !ok {
			t.Errorf("live data file %s: exists %v, %v", p, ok, err)
		}
	}
	fresh := st.open(t)
	if got := livePaths(t, fresh); !slices.Equal(got, live) {
		t.Fatalf("after expiry: %v", got)
	}

	// Metadata clean-up: five versions written, at most the current and
	// two previous kept; the hint names the current one; every manifest
	// left is referenced; no lock file on an object store.
	version, _ := metadataVersion(fresh.MetadataLocation)
	if version != 5 {
		t.Fatalf("current metadata %s, want v5", fresh.MetadataLocation)
	}
	names := st.listNames(t, "metadata")
	var jsons []string
	referenced := map[string]bool{}
	for _, s := range fresh.Metadata.Snapshots {
		referenced[lastElem(s.ManifestList)] = true
		list, err := fresh.manifestsOf(ctx, &s)
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range list {
			referenced[lastElem(mf.Path)] = true
		}
	}
	for _, n := range names {
		switch {
		case strings.HasSuffix(n, ".metadata.json"):
			jsons = append(jsons, n)
		case strings.HasSuffix(n, ".avro") && !referenced[n]:
			t.Errorf("orphan %s", n)
		case n == commitLockName:
			t.Errorf("a commit lock file was written to the object store")
		}
	}
	if !slices.Equal(jsons, []string{"v3.metadata.json", "v4.metadata.json", "v5.metadata.json"}) {
		t.Fatalf("metadata files %v, want v3…v5", jsons)
	}
	hint, err := st.files.ReadFile(ctx, st.location+"/metadata/version-hint.text")
	if err != nil || string(hint) != "5" {
		t.Fatalf("version hint %q, %v", hint, err)
	}
	for _, e := range fresh.Metadata.MetadataLog {
		if ok, _ := st.files.Exists(ctx, e.MetadataFile); !ok {
			t.Errorf("the metadata log names %s, which is gone", e.MetadataFile)
		}
	}
	if lockForCommit(ctx, fresh) != nil {
		t.Error("an S3 table took a local commit lock")
	}
}

// A dataset name resolves under an s3:// warehouse, from FLOE_WAREHOUSE or
// Options.Warehouse, as under a local one.
func TestS3WarehouseResolvesDatasetNames(t *testing.T) {
	ctx := context.Background()
	srv := s3test.Start(t)
	st := newS3Table(t, srv, "wh", "ns", "t")
	if _, err := EnsureTable(ctx, st.files, st.location, testtable.Schema(), nil, nil, nil, 2); err != nil {
		t.Fatal(err)
	}
	t.Setenv(WarehouseEnv, srv.Location("wh"))
	tbl, err := Open(ctx, "ns.t", st.opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := srv.Location("wh/ns/t/metadata/v1.metadata.json"); tbl.MetadataLocation != want {
		t.Fatalf("ns.t opened %s, want %s", tbl.MetadataLocation, want)
	}
	// The option wins over the environment.
	elsewhere := st.opts
	elsewhere.Warehouse = srv.Location("other") + "/"
	if _, err := Open(ctx, "ns.t", elsewhere); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), srv.Location("other/ns/t")) {
		t.Fatalf("ns.t under an empty warehouse: %v", err)
	}
	// EnsureTable finds the table and adds nothing.
	again, err := EnsureTable(ctx, st.files, st.location, testtable.Schema(), nil, nil, nil, 2)
	if err != nil || again.MetadataLocation != tbl.MetadataLocation {
		t.Fatalf("EnsureTable on an existing S3 table: %v, %v", again, err)
	}
	// s3a:// is the same table.
	s3a := "s3a://" + strings.TrimPrefix(st.location, "s3://")
	if _, err := Open(ctx, s3a, st.opts); err != nil {
		t.Fatalf("opening %s: %v", s3a, err)
	}
}

// Writers in one process, each with its own handle, append to one S3 table
// at once, with put-if-absent as the only arbiter: every append lands
// exactly once. (internal/committest runs the same across processes.)
func TestS3ConcurrentAppendsInProcess(t *testing.T) {
	ctx := context.Background()
	srv := s3test.Start(t)
	st := newS3Table(t, srv, "wh", "db", "concurrent")
	const writers, appends = 4, 4
	props := map[string]string{PropCommitNumRetries: "50", PropCommitMinWaitMs: "5", PropCommitMaxWaitMs: "200"}
	if _, err := Create(ctx, st.files, st.location, testtable.Schema(), nil, nil, props, 2); err != nil {
		t.Fatal(err)
	}
	files := st.uploadFiles(t, "x", iceberg.PartitionSpec{}, rowsWithIDs(1, 0, writers*appends), 1)
	errs := make(chan error, writers)
	for w := range writers {
		go func() {
			h, err := Open(ctx, st.location, st.opts)
			if err != nil {
				errs <- err
				return
			}
			for a := range appends {
				tok := "w" + strconv.Itoa(w) + "-a" + strconv.Itoa(a)
				if _, err := h.Append(ctx, files[w*appends+a:w*appends+a+1], CommitOptions{Token: tok}); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	fresh := st.open(t)
	if n := len(fresh.Metadata.Snapshots); n != writers*appends {
		t.Fatalf("%d snapshots, want %d", n, writers*appends)
	}
	if got := livePaths(t, fresh); !slices.Equal(got, pathsOf(files)) {
		t.Fatalf("%d live files, want %d", len(got), len(files))
	}
}
