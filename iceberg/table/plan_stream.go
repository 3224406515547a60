package table

import (
	"context"
	"errors"
	"runtime"
	"sync"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
)

// ErrStop, returned by the function StreamFiles hands files to, stops the
// stream early: StreamFiles then returns the plan so far and no error.
var ErrStop = errors.New("table: stop streaming files")

// StreamFiles plans as PlanFilesFiltered does but hands each planned data
// file to each as soon as its manifest is read and pruned, one at a time
// on the calling goroutine and in the order PlanFilesFiltered lists them,
// instead of collecting them: planning a table of millions of files holds
// the manifests in flight (a window of a few per core) and what each
// keeps, not every entry of the table. each may keep the task it is
// given; to stop early it returns ErrStop, and any other error it returns
// stops the stream and is returned as it is.
//
// Delete files are read first: which of them apply to a data file is
// known only once every delete manifest is read, so they (and only they)
// are all held. The returned plan has no Tasks; it has the snapshot, the
// schema, the delete files and the counts of what was read and skipped
// (ManifestsRead counts the delete manifests and the data manifests
// handed over before a stop).
func (t *Table) StreamFiles(ctx context.Context, sel SnapshotSelector, filter expr.Expr, caseInsensitive bool, each func(DataFileTask) error) (*Plan, error) {
	snap, err := t.Snapshot(sel)
	if err != nil {
		return nil, err
	}
	schema, err := t.ReadSchema(sel, snap)
	if err != nil {
		return nil, err
	}
	var pruner *filePruner
	if filter != nil {
		pf, err := t.BindPruningFilter(filter, schema, caseInsensitive)
		if err != nil {
			return nil, err
		}
		pruner = &filePruner{t: t, filter: pf.Bound, metrics: pf.Metrics, specs: map[int]*specPruner{}}
	}
	plan := &Plan{Snapshot: snap, Schema: schema}
	if snap == nil {
		return plan, nil
	}
	manifests, err := t.manifestsOf(ctx, snap)
	if err != nil {
		return nil, err
	}
	if pruner != nil {
		kept, err := pruner.keepManifests(manifests)
		if err != nil {
			return nil, err
		}
		plan.ManifestsSkipped = len(manifests) - len(kept)
		manifests = kept
	}
	var dataManifests, deleteManifests []manifest.ManifestFile
	for _, mf := range manifests {
		if mf.Content == manifest.ManifestContentDeletes {
			deleteManifests = append(deleteManifests, mf)
		} else {
			dataManifests = append(dataManifests, mf)
		}
	}

	// read(list) decodes and prunes list[i]; it runs on several goroutines.
	read := func(manifests []manifest.ManifestFile) func(context.Context, int) manifestRead {
		return func(ctx context.Context, i int) manifestRead {
			mf := &manifests[i]
			var r manifestRead
			if r.entries, r.err = t.readManifest(ctx, *mf); r.err != nil {
				return r
			}
			if pruner != nil {
				r.entries, r.err = pruner.pruneEntries(mf, r.entries, &r.residuals, &r.skipped)
			}
			return r
		}
	}

	// manifest.ReadManifest refuses a delete file in a data manifest and
	// a data file in a delete manifest, so each entry here is of its
	// manifest's kind.
	var index *deleteIndex
	if len(deleteManifests) > 0 {
		plan.ManifestsRead += len(deleteManifests)
		err := streamManifests(ctx, deleteManifests, read(deleteManifests), func(_ int, r *manifestRead) error {
			for i := range r.entries {
				e := &r.entries[i]
				if e.Status == manifest.StatusDeleted {
					continue
				}
				plan.DeleteFiles = append(plan.DeleteFiles, &DeleteFile{Path: t.Locations.Apply(e.DataFile.FilePath), File: e.DataFile,
					DataSequenceNumber: e.SequenceNumber, FileSequenceNumber: e.FileSequenceNumber})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(plan.DeleteFiles) > 0 {
			if index, err = t.buildDeleteIndex(plan.DeleteFiles); err != nil {
				return nil, err
			}
		}
	}

	if err := t.streamTasks(ctx, dataManifests, read(dataManifests), plan, index, each); err != nil {
		return nil, err
	}
	return plan, nil
}

// streamTasks streams the live entries each read manifest keeps as
// tasks, in list order, counting into plan: the one place a planned entry
// becomes a DataFileTask, with its residual and, when there is a delete
// index, the deletes that apply. ErrStop from each ends it without error.
func (t *Table) streamTasks(ctx context.Context, manifests []manifest.ManifestFile, read func(ctx context.Context, i int) manifestRead, plan *Plan, index *deleteIndex, each func(DataFileTask) error) error {
	err := streamManifests(ctx, manifests, read, func(_ int, r *manifestRead) error {
		plan.ManifestsRead++
		plan.DataFilesSkipped += r.skipped
		for i := range r.entries {
			e := &r.entries[i]
			if e.Status == manifest.StatusDeleted {
				continue
			}
			task := DataFileTask{Path: t.Locations.Apply(e.DataFile.FilePath), File: e.DataFile,
				DataSequenceNumber: e.SequenceNumber, FileSequenceNumber: e.FileSequenceNumber}
			if r.residuals != nil {
				task.Residual = r.residuals[i]
			}
			if index != nil {
				task.Deletes = index.forDataFile(&task, t)
			}
			if err := each(task); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// manifestRead is one manifest read and pruned: the entries kept, their
// residuals (nil without a filter), and the data files pruning dropped.
type manifestRead struct {
	entries   []manifest.Entry
	residuals []expr.Expr
	skipped   int
	err       error
}

// readWindow is how many of n manifests are read at once: two per core,
// so the cores have decoding to do while some reads wait on storage, and
// at most 16, which bounds the manifests held in memory.
func readWindow(n int) int {
	return min(runtime.GOMAXPROCS(0)*2, 16, n)
}

// streamManifests reads manifests concurrently (read(ctx, i) reads
// manifests[i]) and hands each to deliver in list order, one at a time on
// the calling goroutine. At most readWindow manifests are read ahead of
// the one delivered, so the memory held is that window's, however many
// manifests the list has; a slow consumer stalls the readers rather than
// piling up manifests. The first error (of a read, or that deliver
// returns) stops every read, and no read starts once the context is done.
// A read that panics fails the stream with a Corrupt error rather than
// the process: the host's recovery covers only its calling goroutine.
func streamManifests(ctx context.Context, manifests []manifest.ManifestFile, read func(ctx context.Context, i int) manifestRead, deliver func(i int, r *manifestRead) error) error {
	if len(manifests) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait() // no read outlives the call
	}()
	// A slot per manifest, buffered so a reader never waits for the
	// consumer; the window's tokens bound how many are filled at once.
	slots := make([]chan manifestRead, len(manifests))
	for i := range slots {
		slots[i] = make(chan manifestRead, 1)
	}
	tokens := make(chan struct{}, readWindow(len(manifests)))
	wg.Go(func() {
		for i := range manifests {
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			// select picks at random when both are ready: a stop must not
			// start the read it won a token for.
			if ctx.Err() != nil {
				return
			}
			wg.Go(func() { slots[i] <- readGuarded(ctx, manifests[i].Path, i, read) })
		}
	})
	for i := range manifests {
		var r manifestRead
		select {
		case r = <-slots[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-tokens
		if r.err != nil {
			return r.err
		}
		if err := deliver(i, &r); err != nil {
			return err
		}
		// Every slot is made up front; dropping the delivered one lets
		// its channel go rather than keeping one per manifest of the list
		// until the stream ends.
		slots[i] = nil
	}
	return nil
}

// readGuarded is read(ctx, i), not started when the stream has already
// stopped, with a panic turned into an error.
func readGuarded(ctx context.Context, path string, i int, read func(context.Context, int) manifestRead) (r manifestRead) {
	if err := ctx.Err(); err != nil {
		return manifestRead{err: err}
	}
	defer func() {
		if p := recover(); p != nil {
			r = manifestRead{err: errkind.Errorf(errkind.Corrupt, "manifest %s: reading it panicked: %v", path, p)}
		}
	}()
	return read(ctx, i)
}

// collectFiles is the each of StreamFiles that PlanFilesFiltered uses:
// every task appended to the plan.
func collectFiles(tasks *[]DataFileTask) func(DataFileTask) error {
	return func(task DataFileTask) error {
		*tasks = append(*tasks, task)
		return nil
	}
}
