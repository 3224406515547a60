package table

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/internal/progress"
)

// DefaultOrphanAge is how old an unreferenced file must be before
// RemoveOrphanFiles takes it for an orphan: a file younger than that may
// belong to a write still in flight, whose commit has not landed yet.
// Java and pyiceberg use the same three days.
const DefaultOrphanAge = 72 * time.Hour

// MinOrphanAge is the youngest age RemoveOrphanFiles accepts without
// OrphanOptions.Force: below it a slow writer's files are at real risk.
const MinOrphanAge = time.Hour

// OrphanOptions steer RemoveOrphanFiles.
type OrphanOptions struct {
	// OlderThan is the age below which an unreferenced file is kept;
	// zero means DefaultOrphanAge. Below MinOrphanAge it is refused
	// unless Force is set.
	OlderThan time.Duration
	// Force allows OlderThan below MinOrphanAge.
	Force bool
	// DryRun finds the orphans and deletes nothing.
	DryRun bool
	// Location limits the search to a directory under the table's
	// location; empty means the whole table location. A directory
	// outside the table's location is refused.
	Location string
}

// OrphanResult says what RemoveOrphanFiles found and did.
type OrphanResult struct {
	// Orphans are the files under the location that nothing the table
	// references names and that are older than the threshold, sorted,
	// spelled under the location listed (the table's recorded one unless
	// OrphanOptions.Location says otherwise; the table's location map
	// sends them where they are). They were deleted unless DryRun.
	Orphans []string
	// Deleted counts the orphans deleted; FailedDeletes those whose
	// delete failed (they stay listed in Orphans).
	Deleted       int
	FailedDeletes int
	// Listed counts the files listed under the location (hidden files,
	// those whose name starts with "." or "_", are not listed).
	Listed int
	// Referenced counts the listed files the table references.
	Referenced int
	// TooNew counts unreferenced files kept for being younger than the
	// threshold: possibly a write in flight.
	TooNew int
}

// RemoveOrphanFiles deletes the files under the table's location that
// the table does not reference and that are older than opts.OlderThan:
// the leftovers of writes that never committed and of expiries that
// could not finish. Referenced is whatever the newest version of the
// table reaches (it is refreshed first): its metadata file, the metadata
// files of its log and the version hint, and everything walkReferenced
// reaches from any snapshot a ref or the history keeps (manifest lists,
// manifests, data and delete files, deletion vectors' Puffin files,
// statistics and partition statistics files). A listed file and a
// reference are one file when they name the same path below the table's
// location in any spelling of it (file:/p, file:///p and /p; s3 and s3a;
// the location map applied), so a table written by another engine loses
// nothing to spelling. Hidden files and directories (name starting with
// "." or "_", but not a partition directory such as "_k=1") are skipped,
// as Java does: they belong to writers and tools, floe's commit lock
// among them.
//
// It never deletes outside the table's location, nor outside the
// directory a table was opened from when its metadata records another
// (deleteRoot); local symlinked directories are not followed. It refuses
// a table with gc.enabled=false, whose files another table may share.
// A manifest that cannot be read fails the call before anything is
// deleted: what it names cannot be known.
//
// A file a commit adds long after writing it (a registration of old
// files under the table's location landing during the call) could be
// taken for an orphan; keep OlderThan well above the longest write.
func (t *Table) RemoveOrphanFiles(ctx context.Context, opts OrphanOptions) (res OrphanResult, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("remove orphan files of %s: %w", t.Metadata.Location, err)
		}
	}()
	age := opts.OlderThan
	switch {
	case age == 0:
		age = DefaultOrphanAge
	case age < 0:
		return res, errkind.Errorf(errkind.InvalidArgument, "older-than %s is negative", age)
	case age < MinOrphanAge && !opts.Force:
		return res, errkind.Errorf(errkind.InvalidArgument,
			"older-than %s is below %s: files that young may belong to a write in flight (force to allow it)", age, MinOrphanAge)
	}
	cutoff := time.Now().Add(-age)
	fresh, err := t.refreshed(ctx)
	if err != nil {
		return res, err
	}
	if gc, err := fresh.Metadata.PropertyBool(PropGCEnabled, true); err != nil || !gc {
		return res, errkind.Errorf(errkind.InvalidArgument,
			"%s is false (or malformed): the table's files may be shared with another table", PropGCEnabled)
	}
	root, err := fresh.deleteRoot()
	if err != nil {
		return res, err
	}
	dir := opts.Location
	if dir == "" {
		dir = fresh.Metadata.Location
	}
	rel := fresh.orphanKey(root)
	if _, ok := rel(dir); !ok || fileio.HasDotSegment(dir) {
		return res, errkind.Errorf(errkind.InvalidArgument, "location %s is not inside the table's location %s", dir, fresh.Metadata.Location)
	}

	// List first, then walk what the table references: a commit landing
	// in between is then seen by the walk (refreshed again), so only
	// files written after the listing began can be missed, and those are
	// younger than any threshold.
	listed, err := fresh.listFilesBelow(ctx, dir)
	if err != nil {
		return res, err
	}
	res.Listed = len(listed)
	if fresh, err = fresh.refreshed(ctx); err != nil {
		return res, err
	}
	referenced := map[string]bool{}
	mark := func(p string, _ int64) {
		if k, ok := rel(p); ok && p != "" {
			referenced[k] = true
		}
	}
	if err := fresh.walkReferenced(ctx, mark); err != nil {
		return res, err
	}
	for _, e := range fresh.Metadata.MetadataLog {
		mark(e.MetadataFile, 0)
	}
	mark(fresh.MetadataLocation, 0)
	for _, name := range versionHintNames {
		mark(fileio.JoinPath(parentDir(fresh.MetadataLocation), name), 0)
	}

	owned := fresh.ownedUnder(root)
	for _, f := range listed {
		k, ok := rel(f.Path)
		switch {
		case ok && referenced[k]:
			res.Referenced++
		case !ok || !owned(f.Path):
			// Listed under the location yet not deletable there: a
			// symlink leading out, a dot segment. Left alone.
		case f.ModTime.IsZero() || !f.ModTime.Before(cutoff):
			res.TooNew++
		default:
			res.Orphans = append(res.Orphans, f.Path)
		}
	}
	slices.Sort(res.Orphans)
	if opts.DryRun {
		return res, nil
	}
	res.Deleted, res.FailedDeletes = fresh.deleteAll(ctx, res.Orphans)
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, nil
}

// orphanKey returns the key under which RemoveOrphanFiles compares a
// path: its part below root (the table's location, mapped and in
// canonical spelling), with repeated slashes collapsed, so every spelling
// of one file gives one key. ok is false for a path outside root.
func (t *Table) orphanKey(root string) func(path string) (string, bool) {
	return func(path string) (string, bool) {
		p := fileio.Canonical(t.Locations.Apply(path))
		prefix, ok := fileio.RecordedPrefix(p, root)
		if !ok || !strings.HasPrefix(p, prefix) {
			return "", false
		}
		rest := strings.Trim(p[len(prefix):], "/")
		for strings.Contains(rest, "//") {
			rest = strings.ReplaceAll(rest, "//", "/")
		}
		return rest, true
	}
}

// listWorkers bounds the directories listed at once: an object store
// answers each listing in tens of milliseconds, and a partitioned table
// has thousands of directories.
const listWorkers = 8

// listFilesBelow lists every file under dir, at any depth, skipping
// hidden files and directories (hiddenName). An object store lists the
// tree in one paged listing (fileio.TreeLister); anything else is walked
// a directory at a time, on a local disk skipping symlinked directories:
// a link back up the tree would list one file under endless names. A
// directory gone while listing lists as empty.
func (t *Table) listFilesBelow(ctx context.Context, dir string) ([]fileio.FileInfo, error) {
	dir = strings.TrimRight(dir, "/")
	// An object store lists the whole tree in one paged listing.
	switch all, err := fileio.ListTree(ctx, t.IO, dir); {
	case err == nil:
		out := all[:0]
		for _, f := range all {
			rel := strings.TrimPrefix(f.Path, dir)
			if !slices.ContainsFunc(strings.Split(strings.Trim(rel, "/"), "/"), hiddenName) {
				out = append(out, f)
			}
		}
		return out, nil
	case !errors.Is(err, fileio.ErrNoTreeListing):
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var (
		mu      sync.Mutex
		out     []fileio.FileInfo
		first   error
		wg      sync.WaitGroup
		workers = make(chan struct{}, listWorkers)
	)
	var visit func(dir string)
	visit = func(dir string) {
		defer wg.Done()
		workers <- struct{}{}
		files, err := t.IO.List(ctx, dir)
		var dirs []string
		if err == nil {
			dirs, err = fileio.ListDirs(ctx, t.IO, dir)
		}
		<-workers
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		mu.Lock()
		if err != nil && first == nil {
			first = fmt.Errorf("list %s: %w", dir, err)
		}
		stop := first != nil || ctx.Err() != nil
		if !stop {
			for _, f := range files {
				if !hiddenName(lastElem(f.Path)) {
					out = append(out, f)
				}
			}
		}
		mu.Unlock()
		if stop {
			return
		}
		for _, d := range dirs {
			if hiddenName(lastElem(d)) || t.symlinkedDir(d) {
				continue
			}
			wg.Add(1)
			go visit(d)
		}
	}
	wg.Add(1)
	visit(dir)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return out, first
}

// hiddenName tells a file or directory writers and tools keep to
// themselves: a name starting with "." or "_" (Hadoop's _SUCCESS and
// _temporary, floe's .floe-commit.lock, a local writer's temporary
// files), unless it is a partition directory of a field named with "_".
func hiddenName(name string) bool {
	return (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) && !strings.Contains(name, "=")
}

// symlinkedDir tells whether dir is, on the local disk, a symbolic link.
func (t *Table) symlinkedDir(dir string) bool {
	p := fileio.Canonical(t.Locations.Apply(dir))
	if fileio.Scheme(p) != "" {
		return false
	}
	st, err := os.Lstat(filepath.FromSlash(p))
	return err == nil && st.Mode()&fs.ModeSymlink != 0
}

// deleteWorkers bounds the deletes in flight: one request each on an
// object store.
const deleteWorkers = 8

// deleteAll deletes paths, a few at a time, until ctx is done; a file
// already gone counts as deleted.
func (t *Table) deleteAll(ctx context.Context, paths []string) (deleted, failed int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	meter := progress.From(ctx)
	meter.Plan(int64(len(paths)), 0, 0)
	next := make(chan string)
	for range min(deleteWorkers, len(paths)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				err := t.IO.Delete(ctx, p)
				meter.Done(1, 0, 0)
				mu.Lock()
				if err == nil || errors.Is(err, fs.ErrNotExist) {
					deleted++
				} else {
					failed++
				}
				mu.Unlock()
			}
		}()
	}
	for _, p := range paths {
		if ctx.Err() != nil {
			break
		}
		next <- p
	}
	close(next)
	wg.Wait()
	return deleted, failed
}
