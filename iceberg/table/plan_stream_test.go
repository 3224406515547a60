package table

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/internal/testtable"
)

// TestStreamFilesListsEveryManifestInOrder streams every snapshot of
// every fixture and checks what comes out against the manifests read
// directly: each data manifest's live data files, in list order, each
// once, with the deletes PlanFiles attaches.
func TestStreamFilesListsEveryManifestInOrder(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, fx := range all {
		t.Run(fx.Name, func(t *testing.T) {
			tbl, err := Open(ctx, fx.Dir, Options{LocationMap: fx.LocationMap})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tbl.Metadata.Snapshots {
				if s.SnapshotID == missingManifestListSnapshot {
					continue
				}
				id := s.SnapshotID
				sel := SnapshotSelector{SnapshotID: &id}
				var streamed []DataFileTask
				plan, err := tbl.StreamFiles(ctx, sel, nil, false, func(task DataFileTask) error {
					streamed = append(streamed, task)
					return nil
				})
				if err != nil {
					t.Fatalf("snapshot %d: %v", id, err)
				}
				if plan.Tasks != nil {
					t.Errorf("snapshot %d: the streamed plan holds %d tasks", id, len(plan.Tasks))
				}
				want := liveDataPaths(t, tbl, &s)

				if len(streamed) != len(want) {
					t.Fatalf("snapshot %d: streamed %d files, the manifests hold %d live data files", id, len(streamed), len(want))
				}
				full, err := tbl.PlanFiles(ctx, sel)
				if err != nil {
					t.Fatal(err)
				}
				for i, task := range streamed {
					if task.File.FilePath != want[i] {
						t.Fatalf("snapshot %d: file %d is %s, the manifests list %s", id, i, task.File.FilePath, want[i])
					}
					if len(task.Deletes) != len(full.Tasks[i].Deletes) {
						t.Errorf("snapshot %d: %s streamed with %d deletes, planned with %d", id, task.Path, len(task.Deletes), len(full.Tasks[i].Deletes))
					}
				}
				if len(plan.DeleteFiles) != len(full.DeleteFiles) || plan.ManifestsRead != full.ManifestsRead {
					t.Errorf("snapshot %d: streamed %d delete files from %d manifests, planned %d from %d", id,
						len(plan.DeleteFiles), plan.ManifestsRead, len(full.DeleteFiles), full.ManifestsRead)
				}
			}
		})
	}
}

// liveDataPaths reads the snapshot's manifests one by one with the
// manifest package: the live data files, in list order.
func liveDataPaths(t *testing.T, tbl *Table, snap *metadata.Snapshot) []string {
	t.Helper()
	ctx := context.Background()
	list, err := tbl.manifestsOf(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range list {
		if mf.Content != manifest.ManifestContentData {
			continue
		}
		spec := tbl.Metadata.SpecByID(mf.PartitionSpecID)
		partType, err := tbl.PartitionType(spec)
		if err != nil {
			t.Fatal(err)
		}
		data, err := tbl.IO.ReadFile(ctx, mf.Path)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := manifest.ReadManifest(data, mf, *spec, partType, tbl.Metadata.FormatVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Status != manifest.StatusDeleted && e.DataFile.Content == manifest.ContentData {
				out = append(out, e.DataFile.FilePath)
			}
		}
	}
	return out
}

// manifestReadsIO counts the manifests being read and read ahead: started
// counts every ReadFile of a manifest, and each blocks while gate is
// closed, so a test can see how far the readers run ahead of a consumer.
type manifestReadsIO struct {
	fileio.FileIO
	started atomic.Int64
	active  atomic.Int64
	failOn  string // a path whose read fails
}

func (c *manifestReadsIO) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if !strings.HasSuffix(path, ".avro") || strings.Contains(path, "snap-") {
		return c.FileIO.ReadFile(ctx, path)
	}
	c.started.Add(1)
	c.active.Add(1)
	defer c.active.Add(-1)
	if c.failOn != "" && path == c.failOn {
		return nil, errkind.Errorf(errkind.NotFound, "injected: %s is gone", path)
	}
	return c.FileIO.ReadFile(ctx, path)
}

// manyManifests is a table of n appends of one file each with merging
// off: n data manifests of one entry.
func manyManifests(t *testing.T, n int) *Table {
	return manyManifestsWith(t, n, nil)
}

// manyManifestsWith is manyManifests with each file's entry adjusted by
// edit (given the file's index).
func manyManifestsWith(t *testing.T, n int, edit func(i int, df *manifest.DataFile)) *Table {
	t.Helper()
	tbl := createTable(t, 2, nil, map[string]string{PropManifestMergeEnabled: "false"})
	ctx := context.Background()
	for i := range n {
		df := manifest.DataFile{
			Content: manifest.ContentData, FilePath: fmt.Sprintf("%s/data/f%03d.parquet", tbl.Metadata.Location, i),
			FileFormat: "PARQUET", Partition: []any{}, RecordCount: int64(10 + i), FileSizeInBytes: 1000,
		}
		if edit != nil {
			edit(i, &df)
		}
		if _, err := tbl.Append(ctx, []manifest.DataFile{df}, CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if snap, _ := tbl.Snapshot(SnapshotSelector{}); snap == nil {
		t.Fatal("no snapshot")
	}
	return tbl
}

// TestStreamFilesReadsAWindowAhead: a consumer that holds the first file
// sees at most the window of manifests read (one per two cores, as
// planned reads go, and no more than 16), not the table's.
func TestStreamFilesReadsAWindowAhead(t *testing.T) {
	const n = 60
	tbl := manyManifests(t, n)
	cio := &manifestReadsIO{FileIO: tbl.IO}
	tbl.IO = cio
	window := int64(min(runtime.GOMAXPROCS(0)*2, 16))
	var files int
	var seenAhead int64
	plan, err := tbl.StreamFiles(context.Background(), SnapshotSelector{}, nil, false, func(task DataFileTask) error {
		if files == 0 {
			// Give the readers time to run as far ahead as they may.
			time.Sleep(100 * time.Millisecond)
			seenAhead = cio.started.Load()
		}
		files++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files != n || plan.ManifestsRead != n {
		t.Fatalf("streamed %d files from %d manifests, want %d", files, plan.ManifestsRead, n)
	}
	// The one being consumed took its token back before delivery, so one
	// more may have started.
	if seenAhead > window+1 || seenAhead < 1 {
		t.Errorf("%d manifests read while the first file was held; the window is %d", seenAhead, window)
	}
	if got := cio.started.Load(); got != n {
		t.Errorf("%d manifest reads, want %d", got, n)
	}
}

// TestStreamFilesStopsEarly: ErrStop ends the stream with no error, no
// further file is handed over, and no read is left running.
func TestStreamFilesStopsEarly(t *testing.T) {
	const n = 40
	tbl := manyManifests(t, n)
	cio := &manifestReadsIO{FileIO: tbl.IO}
	tbl.IO = cio
	var files int
	plan, err := tbl.StreamFiles(context.Background(), SnapshotSelector{}, nil, false, func(task DataFileTask) error {
		files++
		if files == 3 {
			return ErrStop
		}
		return nil
	})
	if err != nil {
		t.Fatalf("a stop is not an error: %v", err)
	}
	if files != 3 || plan.ManifestsRead != 3 {
		t.Errorf("%d files from %d manifests after stopping at the third", files, plan.ManifestsRead)
	}
	if a := cio.active.Load(); a != 0 {
		t.Errorf("%d manifest reads still running after StreamFiles returned", a)
	}
	if s := cio.started.Load(); s >= n {
		t.Errorf("every manifest (%d) was read although the consumer stopped at the third", s)
	}
}

// TestStreamFilesErrors: the consumer's own error comes back as it is; a
// manifest that cannot be read fails the stream with its kind after the
// files of the manifests before it; a cancelled context stops it.
func TestStreamFilesErrors(t *testing.T) {
	const n = 30
	tbl := manyManifests(t, n)
	ctx := context.Background()

	mine := errors.New("consumer failed")
	_, err := tbl.StreamFiles(ctx, SnapshotSelector{}, nil, false, func(DataFileTask) error { return mine })
	if err != mine {
		t.Errorf("consumer error came back as %v", err)
	}

	snap, err := tbl.Snapshot(SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	list, err := tbl.manifestsOf(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	const broken = 17
	cio := &manifestReadsIO{FileIO: tbl.IO, failOn: list[broken].Path}
	tbl.IO = cio
	var files int
	_, err = tbl.StreamFiles(ctx, SnapshotSelector{}, nil, false, func(DataFileTask) error { files++; return nil })
	if !errors.Is(err, errkind.NotFound) {
		t.Errorf("unreadable manifest: %v, want a not-found error", err)
	}
	if files != broken {
		t.Errorf("%d files handed over before the unreadable manifest %d", files, broken)
	}
	if a := cio.active.Load(); a != 0 {
		t.Errorf("%d reads still running after the failure", a)
	}

	cio.failOn = ""
	cctx, cancel := context.WithCancel(ctx)
	files = 0
	_, err = tbl.StreamFiles(cctx, SnapshotSelector{}, nil, false, func(DataFileTask) error {
		files++
		if files == 2 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || files >= n {
		t.Errorf("cancelled after 2 files: %v after %d files", err, files)
	}
}

// TestStreamFilesFiltered: a filtered stream prunes files by their
// metrics, as the filtered plan does, and each kept file carries its
// residual.
func TestStreamFilesFiltered(t *testing.T) {
	const n = 12
	tbl := manyManifestsWith(t, n, func(i int, df *manifest.DataFile) {
		// File i holds ids [10i, 10i+9].
		lo, _ := iceberg.ValueToBytes(iceberg.LongType{}, int64(10*i))
		hi, _ := iceberg.ValueToBytes(iceberg.LongType{}, int64(10*i+9))
		df.LowerBounds = map[int][]byte{testtable.IDID: lo}
		df.UpperBounds = map[int][]byte{testtable.IDID: hi}
	})
	filter, err := expr.ParseFilter("id >= 50 and id < 70")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	plan, err := tbl.StreamFiles(context.Background(), SnapshotSelector{}, filter, false, func(task DataFileTask) error {
		paths = append(paths, task.File.FilePath)
		if task.Residual == nil {
			return errors.New("a filtered stream's file has no residual")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths) // the list holds the newest manifest first
	loc := tbl.Metadata.Location
	want := []string{loc + "/data/f005.parquet", loc + "/data/f006.parquet"}
	if !slices.Equal(paths, want) || plan.DataFilesSkipped != n-2 {
		t.Errorf("streamed %q with %d skipped, want %q and %d", paths, plan.DataFilesSkipped, want, n-2)
	}
}
