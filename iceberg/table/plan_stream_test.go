package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
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
// once, with the deletes an index of every live delete file gives it.
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
				var streamed []DataFileTask
				plan, err := tbl.StreamFiles(ctx, SnapshotSelector{SnapshotID: &id}, nil, false, func(task DataFileTask) error {
					streamed = append(streamed, task)
					return nil
				})
				if err != nil {
					t.Fatalf("snapshot %d: %v", id, err)
				}
				if plan.Tasks != nil {
					t.Errorf("snapshot %d: the streamed plan holds %d tasks", id, len(plan.Tasks))
				}
				want := directPlan(t, tbl, &s)
				if len(streamed) != len(want.Tasks) {
					t.Fatalf("snapshot %d: streamed %d files, the manifests hold %d live data files", id, len(streamed), len(want.Tasks))
				}
				for i, task := range streamed {
					if task.File.FilePath != want.Tasks[i].File.FilePath {
						t.Fatalf("snapshot %d: file %d is %s, the manifests list %s", id, i, task.File.FilePath, want.Tasks[i].File.FilePath)
					}
					if got, exp := deletePaths(task.Deletes), deletePaths(want.Tasks[i].Deletes); !slices.Equal(got, exp) {
						t.Errorf("snapshot %d: %s streamed with deletes %q, the index of every delete file gives %q", id, task.Path, got, exp)
					}
				}
				if got, exp := deletePaths(plan.DeleteFiles), deletePaths(want.DeleteFiles); !slices.Equal(got, exp) || plan.ManifestsRead != want.ManifestsRead {
					t.Errorf("snapshot %d: streamed delete files %q from %d manifests; the list has %q in %d", id,
						got, plan.ManifestsRead, exp, want.ManifestsRead)
				}
			}
		})
	}
}

// directPlan reads the snapshot's manifests one by one with the manifest
// package: the live data files in list order, each with the deletes an
// index of every live delete file attaches, the delete files, and the
// number of manifests.
func directPlan(t *testing.T, tbl *Table, snap *metadata.Snapshot) *Plan {
	t.Helper()
	ctx := context.Background()
	list, err := tbl.manifestsOf(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	plan := &Plan{ManifestsRead: len(list)}
	var data []manifest.Entry
	for _, mf := range list {
		spec := tbl.Metadata.SpecByID(mf.PartitionSpecID)
		partType, err := tbl.PartitionType(spec)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := tbl.IO.ReadFile(ctx, mf.Path)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := manifest.ReadManifest(raw, mf, *spec, partType, tbl.Metadata.FormatVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			switch {
			case e.Status == manifest.StatusDeleted:
			case e.DataFile.Content == manifest.ContentData:
				data = append(data, e)
			default:
				plan.DeleteFiles = append(plan.DeleteFiles, &DeleteFile{Path: tbl.Locations.Apply(e.DataFile.FilePath), File: e.DataFile,
					DataSequenceNumber: e.SequenceNumber, FileSequenceNumber: e.FileSequenceNumber})
			}
		}
	}
	index, err := tbl.buildDeleteIndex(plan.DeleteFiles)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range data {
		task := DataFileTask{Path: tbl.Locations.Apply(e.DataFile.FilePath), File: e.DataFile,
			DataSequenceNumber: e.SequenceNumber, FileSequenceNumber: e.FileSequenceNumber}
		task.Deletes = index.forDataFile(&task, tbl)
		plan.Tasks = append(plan.Tasks, task)
	}
	return plan
}

// deletePaths are the delete files' paths, sorted: the index gives a data
// file its deletes in no set order.
func deletePaths(ds []*DeleteFile) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Path
	}
	slices.Sort(out)
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
// sees at most the window of manifests read (two per core, and no more
// than 16), not the table's.
func TestStreamFilesReadsAWindowAhead(t *testing.T) {
	const n = 60
	tbl := manyManifests(t, n)
	cio := &manifestReadsIO{FileIO: tbl.IO}
	tbl.IO = cio
	window := int64(readWindow(n))
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
		df.Metrics = manifest.MetricsOf(manifest.MetricMaps{LowerBounds: map[int][]byte{testtable.IDID: lo}, UpperBounds: map[int][]byte{testtable.IDID: hi}})
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

// TestStreamFilesRefusesMixedManifests: a data manifest listing a delete
// file, or a delete manifest listing a data file, fails the plan as
// corrupt. manifest.ReadManifest is where that is refused: the same bytes
// read as the manifest they were written as.
func TestStreamFilesRefusesMixedManifests(t *testing.T) {
	ctx := context.Background()
	for _, dataAsDeletes := range []bool{false, true} {
		tbl := manyManifests(t, 2)
		pos := manifest.DataFile{
			Content: manifest.ContentPositionDeletes, FilePath: tbl.Metadata.Location + "/data/pos.parquet",
			FileFormat: "PARQUET", Partition: []any{}, RecordCount: 1, FileSizeInBytes: 100,
		}
		if _, err := tbl.RowDelta(ctx, nil, []manifest.DataFile{pos}, CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		snap, err := tbl.Snapshot(SnapshotSelector{})
		if err != nil {
			t.Fatal(err)
		}
		list, err := tbl.manifestsOf(ctx, snap)
		if err != nil {
			t.Fatal(err)
		}
		var data, deletes *manifest.ManifestFile
		for i := range list {
			if list[i].Content == manifest.ManifestContentDeletes {
				deletes = &list[i]
			} else {
				data = &list[i]
			}
		}
		if data == nil || deletes == nil {
			t.Fatalf("the snapshot's manifests %+v: want data and delete manifests", list)
		}
		from, to := deletes, data
		if dataAsDeletes {
			from, to = data, deletes
		}
		raw, err := tbl.IO.ReadFile(ctx, from.Path)
		if err != nil {
			t.Fatal(err)
		}
		// Rename the header's content key (Avro strings are
		// length-prefixed: 0x0e is 7), so that only the entries tell.
		patched := bytes.Replace(raw, []byte("\x0econtent"), []byte("\x0ekontent"), 1)
		if bytes.Equal(patched, raw) {
			t.Fatal("the manifest's header has no content key")
		}
		spec := tbl.Metadata.SpecByID(from.PartitionSpecID)
		partType, err := tbl.PartitionType(spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := manifest.ReadManifest(patched, *from, *spec, partType, tbl.Metadata.FormatVersion); err != nil {
			t.Fatalf("the patched manifest does not read as what it is: %v", err)
		}
		asListed := *to
		asListed.Path = from.Path
		if _, err := manifest.ReadManifest(patched, asListed, *spec, partType, tbl.Metadata.FormatVersion); !errors.Is(err, errkind.Corrupt) {
			t.Fatalf("read as a %s manifest: %v, want a corrupt error", to.Content, err)
		}
		if err := os.WriteFile(to.Path, patched, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := tbl.StreamFiles(ctx, SnapshotSelector{}, nil, false, func(DataFileTask) error { return nil }); !errors.Is(err, errkind.Corrupt) {
			t.Errorf("a %s manifest listed as %s: %v, want a corrupt error", from.Content, to.Content, err)
		}
	}
}

// TestStreamManifestsPanicIsAnError: a read that panics fails the stream
// with a corrupt error instead of crashing the process, and the reads
// after it are stopped.
func TestStreamManifestsPanicIsAnError(t *testing.T) {
	manifests := make([]manifest.ManifestFile, 40)
	for i := range manifests {
		manifests[i].Path = fmt.Sprintf("m%02d.avro", i)
	}
	var delivered int
	err := streamManifests(context.Background(), manifests, func(_ context.Context, i int) manifestRead {
		if i == 5 {
			panic("injected")
		}
		return manifestRead{}
	}, func(int, *manifestRead) error { delivered++; return nil })
	if !errors.Is(err, errkind.Corrupt) || delivered != 5 {
		t.Errorf("a read panicked: %v after %d manifests, want a corrupt error after 5", err, delivered)
	}
}

// TestStreamManifestsStartsNoReadOnceStopped: with the context already
// done no read starts, whichever of a free token and the stop the
// launcher sees first.
func TestStreamManifestsStartsNoReadOnceStopped(t *testing.T) {
	manifests := make([]manifest.ManifestFile, 40)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 20 {
		var reads atomic.Int64
		err := streamManifests(ctx, manifests, func(context.Context, int) manifestRead {
			reads.Add(1)
			return manifestRead{}
		}, func(int, *manifestRead) error { return nil })
		if !errors.Is(err, context.Canceled) || reads.Load() != 0 {
			t.Fatalf("a stopped stream: %v, %d reads started", err, reads.Load())
		}
	}
}
