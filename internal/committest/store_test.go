package committest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/s3test"
	"github.com/floedb/floe/internal/testtable"
	"github.com/google/uuid"
)

// storeOptionsEnv hands a worker process the storage options (JSON of
// table.Options) of the store its table is on; unset means the local disk.
const storeOptionsEnv = "FLOE_COMMITTEST_STORE"

// store is where a test's tables and data files live: the local disk, or
// a bucket of an object store (S3, GCS, …), reached with opts. Data files
// are always written locally first (testtable writes only there) and, on
// an object store, then uploaded, as a writer on another machine would.
// The scenarios take a store, so each runs on every store alike.
type store struct {
	opts table.Options
	// root is where new tables and uploaded data files go: a directory,
	// or scheme://bucket/prefix.
	root string
}

func localStore(t testing.TB) store {
	return store{root: t.TempDir()}
}

func s3Store(t testing.TB, srv *s3test.Server, opts fileio.S3Options) store {
	return store{opts: table.Options{S3: &opts}, root: srv.Location("committest", uuid.NewString())}
}

// remote tells an object store from the local disk: its root has a scheme.
func (s store) remote() bool { return fileio.Scheme(s.root) != "" }

// scheme is the object store's URI scheme with "://" ("s3://"), which the
// errors of its operations must name.
func (s store) scheme() string { return fileio.Scheme(s.root) + "://" }

// env is what a worker process needs to reach the store.
func (s store) env(t testing.TB) []string {
	if !s.remote() {
		return nil
	}
	raw, err := json.Marshal(s.opts)
	if err != nil {
		t.Fatal(err)
	}
	return []string{storeOptionsEnv + "=" + string(raw)}
}

// storeFromEnv is the worker side of env: root is the location the worker
// was given to put its data under.
func storeFromEnv(t testing.TB, root string) store {
	raw := os.Getenv(storeOptionsEnv)
	if raw == "" {
		return store{root: root}
	}
	var o table.Options
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		t.Fatalf("%s: %v", storeOptionsEnv, err)
	}
	return store{opts: o, root: root}
}

func (s store) files(t testing.TB) fileio.FileIO {
	t.Helper()
	files, err := s.opts.FileIO(s.root)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// location is a new location under the store's root.
func (s store) location(elems ...string) string {
	return fileio.JoinPath(s.root, elems...)
}

// create creates a table of testtable's schema at a new location.
func (s store) create(t testing.TB, version int, spec *iceberg.PartitionSpec, props map[string]string) *table.Table {
	t.Helper()
	loc := s.location("tbl-" + uuid.NewString()[:8])
	files, err := s.opts.FileIO(loc)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Create(context.Background(), files, loc, testtable.Schema(), spec, nil, props, version)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// open opens a table afresh, as another process would.
func (s store) open(t testing.TB, location string) *table.Table {
	t.Helper()
	tbl, err := table.Open(context.Background(), location, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// writeData is writeData into the store.
func (s store) writeData(t testing.TB, spec iceberg.PartitionSpec, rows [][]any, perFile int) written {
	t.Helper()
	return s.writeDataIn(t, t.TempDir(), spec, rows, perFile)
}

// writeDataUnder writes the files under the table location loc: expiry
// and purge delete only files there.
func (s store) writeDataUnder(t testing.TB, loc string, spec iceberg.PartitionSpec, rows [][]any, perFile int) written {
	t.Helper()
	batch := fileio.JoinPath(loc, "data", uuid.NewString()[:8])
	if !s.remote() {
		return s.writeDataIn(t, batch, spec, rows, perFile)
	}
	return s.uploadTo(t, batch, t.TempDir(), spec, rows, perFile)
}

// writeDataIn writes the files in dir and, on S3, uploads them under a
// fresh prefix, naming them there.
func (s store) writeDataIn(t testing.TB, dir string, spec iceberg.PartitionSpec, rows [][]any, perFile int) written {
	t.Helper()
	if !s.remote() {
		return writeDataIn(t, dir, spec, rows, perFile)
	}
	return s.uploadTo(t, s.location("data", uuid.NewString()[:8]), dir, spec, rows, perFile)
}

// uploadTo writes the files in dir and uploads them under batch, naming
// them there.
func (s store) uploadTo(t testing.TB, batch, dir string, spec iceberg.PartitionSpec, rows [][]any, perFile int) written {
	t.Helper()
	w := writeDataIn(t, dir, spec, rows, perFile)
	moved := written{ids: map[string][]int64{}}
	for _, f := range w.files {
		ids := w.ids[f.FilePath]
		rel, err := filepath.Rel(dir, f.FilePath)
		if err != nil {
			t.Fatal(err)
		}
		f = s.upload(t, f, fileio.JoinPath(batch, filepath.ToSlash(rel)))
		moved.files = append(moved.files, f)
		moved.ids[f.FilePath] = ids
	}
	return moved
}

// upload copies a locally written file (data or deletes) to to and
// returns its entry naming it there; on the local disk it is left alone.
func (s store) upload(t testing.TB, f manifest.DataFile, to string) manifest.DataFile {
	t.Helper()
	if !s.remote() {
		return f
	}
	data, err := os.ReadFile(f.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.files(t).WriteFile(context.Background(), to, data); err != nil {
		t.Fatal(err)
	}
	f.FilePath = to
	return f
}

// scanIDs opens the table afresh and reads the ids of the selected
// snapshot through the reader.
func (s store) scanIDs(t testing.TB, location string, snapshotID *int64) []int64 {
	t.Helper()
	return scanIDsWith(t, location, s.opts, snapshotID)
}
