package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/internal/commitstep"
)

// A commit publishes the next metadata version as
// <metadata dir>/v<N+1>.metadata.json, where N is the version of the
// metadata it was built on, with FileIO.WriteFileIfAbsent: the file
// appears whole or not at all and never replaces another writer's
// version. Losing that race means the table moved on, so the commit
// refreshes, builds again on the newer version (re-validating what it
// removes or replaces) and retries with backoff. version-hint.text is
// written after publishing; readers probe past a stale hint (LocateMetadata).
// Publishing is the only step a storage without link() (S3: a conditional
// put) does differently, and that lives in its FileIO.

// ErrStale is what a Publisher returns when the table moved on since the
// base a commit was built on (another writer published first, or a
// catalog's requirements failed): the commit loop refreshes, builds again
// and retries.
var ErrStale = errkind.New(errkind.Conflict, "another writer committed first")

// Publisher is where a table's commits go and its current version comes
// from: a catalog. A Table without one (Publisher nil) is its own: its
// metadata directory holds the versions, and a commit publishes the next
// with put-if-absent. A catalog that keeps metadata elsewhere (a SQL
// table's row, a REST server) sets one on the tables it loads.
type Publisher interface {
	// Publish commits changes built on base and returns the table at the
	// version it published: ErrStale when the table moved on since base,
	// an error of kind CommitStateUnknown when whether it was published
	// is not known (ErrCommitStateUnknown).
	Publish(ctx context.Context, base *Table, changes *metadata.Changes) (*Table, error)
	// Refresh loads the table's current version.
	Refresh(ctx context.Context, t *Table) (*Table, error)
}

// ErrCommitStateUnknown means a metadata file may or may not have been
// published; the files the commit wrote must then be left alone (a stray
// file is harmless, a missing one breaks the table).
var ErrCommitStateUnknown = errkind.New(errkind.CommitStateUnknown, "the commit may or may not have happened")

// commitStep reports a step of the commit (commitstep.Reached):
// "manifests" (added files' manifests written), "manifest-list",
// "published" (the new version is in place, the hint not yet), "hint",
// and "expire-delete" before each file expiry deletes.
// A crash test kills its process there to check what a crash leaves.
func commitStep(step string) { commitstep.Reached(step) }

// buildFunc builds the changes to publish on top of base: the metadata
// updates of the commit, applied to base (metadata.Changes). attempt
// counts from 0. A nil result with a nil error means there is nothing to
// commit.
type buildFunc func(ctx context.Context, base *Table, attempt int) (*metadata.Changes, error)

// commitResult is the table after a commit, or the refreshed base when the
// build decided there was nothing to commit (Committed false).
type commitResult struct {
	Table     *Table
	Committed bool
	// Attempt is the attempt whose build was published (or returned nil).
	Attempt int
}

// commitMetadata runs the optimistic commit loop starting from t.
func (t *Table) commitMetadata(ctx context.Context, build buildFunc) (commitResult, error) {
	if t.Publisher == nil {
		if _, err := metadataVersion(t.MetadataLocation); err != nil {
			return commitResult{}, err
		}
		if err := checkPathCommit(t.MetadataLocation); err != nil {
			return commitResult{}, err
		}
	}
	retry, err := retryPolicyOf(t.Metadata)
	if err != nil {
		return commitResult{}, err
	}
	started := time.Now()
	lock := lockForCommit(ctx, t)
	defer lock.release()
	base := t
	if lock != nil {
		// Other writers may have committed while this one waited for the
		// lock: building on a stale version would only lose the race.
		if base, err = base.refreshedIfBehind(ctx); err != nil {
			return commitResult{}, err
		}
	}
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return commitResult{}, err
		}
		changes, err := build(ctx, base, attempt)
		if err != nil {
			return commitResult{}, err
		}
		if changes == nil {
			return commitResult{Table: base, Attempt: attempt}, nil
		}
		if testHookChanges != nil {
			testHookChanges(base, changes)
		}
		committed, err := base.publish(ctx, changes)
		if err == nil {
			commitStep("published")
			if base.Publisher == nil {
				committed.afterCommit(ctx, base)
			}
			return commitResult{Table: committed, Committed: true, Attempt: attempt}, nil
		}
		if !errors.Is(err, ErrStale) {
			return commitResult{}, err
		}
		if attempt >= retry.retries || time.Since(started) > retry.totalTimeout {
			return commitResult{}, fmt.Errorf("commit to %s: other writers committed first on each of %d attempts: %w", base.Metadata.Location, attempt+1, ErrConflict)
		}
		// Under the lock only a writer that does not take it can have won,
		// and it is past its commit: no need to wait for it.
		if lock == nil {
			if err := retry.wait(ctx, attempt); err != nil {
				return commitResult{}, err
			}
		}
		if base, err = base.refreshed(ctx); err != nil {
			return commitResult{}, fmt.Errorf("commit: refresh after losing a race: %w", err)
		}
	}
}

// testHookChanges, when set by a test, sees every commit's changes before
// they are published.
var testHookChanges func(base *Table, changes *metadata.Changes)

// publish hands the changes to the table's publisher, or writes them as
// the next version in its metadata directory. The caller's cancellation
// and deadline stop a commit up to here, never inside: a metadata PUT or
// catalog UPDATE cut short on the client may still land on the server
// after the client checked and found nothing, and the commit would then
// delete the files the published version names. Storage and catalog
// clients' own timeouts still bound the step.
func (base *Table) publish(ctx context.Context, changes *metadata.Changes) (*Table, error) {
	ctx = context.WithoutCancel(ctx)
	if base.Publisher != nil {
		return base.Publisher.Publish(ctx, base, changes)
	}
	version, err := metadataVersion(base.MetadataLocation)
	if err != nil {
		return nil, err
	}
	md, err := NextMetadata(base, changes)
	if err != nil {
		return nil, err
	}
	// Compact JSON: indenting cost a seventh of a small commit's CPU.
	data, err := md.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	path := fileio.JoinPath(parentDir(base.MetadataLocation), "v"+strconv.FormatInt(version+1, 10)+".metadata.json")
	err = base.IO.WriteFileIfAbsent(ctx, path, data)
	switch {
	case errors.Is(err, fs.ErrExist):
		return nil, ErrStale
	case err != nil:
		// Whether the file was published is unknown (a timeout after the
		// write reached the store): it is ours exactly when it holds our
		// bytes.
		got, rerr := fileio.ReadFileLimited(context.WithoutCancel(ctx), base.IO, path, MaxMetadataBytes)
		switch {
		case rerr == nil && bytes.Equal(got, data):
			// published after all
		case rerr == nil:
			return nil, ErrStale
		case errors.Is(rerr, fs.ErrNotExist):
			return nil, fmt.Errorf("commit: write %s: %w", path, err)
		default:
			return nil, fmt.Errorf("commit: write %s: %w (%w: %v)", path, err, ErrCommitStateUnknown, rerr)
		}
	}
	return &Table{Metadata: md, MetadataLocation: path, IO: base.IO, Locations: base.Locations}, nil
}

// NextMetadata is the metadata a catalog that writes metadata files
// publishes for changes built on base: what the updates produce, with
// base's file added to the metadata log (write.metadata.previous-versions-max
// entries kept) and last-updated-ms stamped, which no update carries.
func NextMetadata(base *Table, changes *metadata.Changes) (*metadata.Metadata, error) {
	md := changes.Metadata()
	now := max(time.Now().UnixMilli(), base.Metadata.LastUpdatedMs)
	if err := recordPrevious(md, base, now); err != nil {
		return nil, err
	}
	logMainMovesAt(md, changes, now)
	return md, nil
}

// logMainMovesAt stamps the snapshot-log entries of main's moves to
// snapshots the changes did not add (a rollback, set-current, a
// fast-forward to an audited snapshot) with the commit's time, as Java
// logs them: updates carry no clock, so metadata.Changes logs them at the
// base's last update, and a query as of a time between that and this
// commit would see the rolled-back-to snapshot instead of main as it was.
// A moved-to snapshot that is new keeps its own commit time.
func logMainMovesAt(md *metadata.Metadata, changes *metadata.Changes, now int64) {
	moves := 0
	added := map[int64]bool{}
	for _, u := range changes.Updates() {
		switch u := u.(type) {
		case metadata.SetSnapshotRef:
			if u.Name == metadata.MainBranch {
				moves++
			}
		case metadata.AddSnapshot:
			added[u.Snapshot.SnapshotID] = true
		}
	}
	log := md.SnapshotLog
	for i := max(len(log)-moves, 0); i < len(log); i++ {
		if !added[log[i].SnapshotID] {
			log[i].TimestampMs = max(log[i].TimestampMs, now)
		}
	}
}

// afterCommit does the best-effort work that follows publishing: the
// version hint, and deleting metadata files that dropped out of the log.
// Failures leave a stale hint or a stray file, never a broken table, so
// they are not reported.
func (t *Table) afterCommit(ctx context.Context, base *Table) {
	ctx = context.WithoutCancel(ctx)
	version, err := metadataVersion(t.MetadataLocation)
	if err != nil {
		return
	}
	dir := parentDir(t.MetadataLocation)
	hintPath := fileio.JoinPath(dir, versionHintNames[0])
	// A writer that published a later version may have written its hint
	// already; do not move the hint back.
	hintAhead := false
	if data, err := fileio.ReadFileLimited(ctx, t.IO, hintPath, MaxVersionHintBytes); err == nil {
		h, err := parseVersionHint(data)
		hintAhead = err == nil && h.file == "" && h.version > version
	}
	if !hintAhead {
		_ = t.IO.WriteFile(ctx, hintPath, []byte(strconv.FormatInt(version, 10)))
	}
	commitStep("hint")
	if enabled, err := t.Metadata.PropertyBool(PropMetadataDeleteAfterCommit, false); err != nil || !enabled {
		return
	}
	kept := map[string]bool{}
	for _, e := range t.Metadata.MetadataLog {
		kept[e.MetadataFile] = true
	}
	for _, e := range base.Metadata.MetadataLog {
		if !kept[e.MetadataFile] {
			_ = t.IO.Delete(ctx, e.MetadataFile)
		}
	}
}

// Refresh loads the newest metadata version of the table, found in the
// directory the current metadata file is in.
func (t *Table) Refresh(ctx context.Context) error {
	fresh, err := t.refreshed(ctx)
	if err != nil {
		return err
	}
	*t = *fresh
	return nil
}

// refreshedIfBehind refreshes only when a newer version exists, which a
// single existence check shows.
func (t *Table) refreshedIfBehind(ctx context.Context) (*Table, error) {
	if t.Publisher != nil {
		return t.refreshed(ctx)
	}
	version, err := metadataVersion(t.MetadataLocation)
	if err != nil {
		return nil, err
	}
	_, newer, err := findVersion(ctx, t.IO, parentDir(t.MetadataLocation), version+1)
	if err != nil || !newer {
		return t, err
	}
	return t.refreshed(ctx)
}

func (t *Table) refreshed(ctx context.Context) (*Table, error) {
	if t.Publisher != nil {
		fresh, err := t.Publisher.Refresh(ctx, t)
		if err != nil {
			return nil, err
		}
		if t.Metadata.TableUUID != "" && fresh.Metadata.TableUUID != t.Metadata.TableUUID {
			return nil, fmt.Errorf("refresh: table uuid changed from %s to %s: another table was created in its place", t.Metadata.TableUUID, fresh.Metadata.TableUUID)
		}
		return fresh, nil
	}
	path, err := locateInMetadataDir(ctx, t.IO, parentDir(t.MetadataLocation))
	if err != nil {
		return nil, err
	}
	fresh, err := load(ctx, t.IO, t.Locations, path)
	if err != nil {
		return nil, err
	}
	if t.Metadata.TableUUID != "" && fresh.Metadata.TableUUID != t.Metadata.TableUUID {
		return nil, fmt.Errorf("refresh %s: table uuid changed from %s to %s: another table was created in its place",
			path, t.Metadata.TableUUID, fresh.Metadata.TableUUID)
	}
	return fresh, nil
}

// metadataVersion is the version a metadata file name carries (vN… or
// NNNNN-<uuid>…); a commit publishes the next one.
func metadataVersion(metadataLocation string) (int64, error) {
	v, ok := parseMetadataFileName(lastElem(metadataLocation))
	if !ok {
		return 0, fmt.Errorf("commit: metadata file %s has no version in its name (v<N>.metadata.json or <N>-<uuid>.metadata.json), so the next version cannot be named", metadataLocation)
	}
	return v, nil
}

func parentDir(location string) string {
	i := len(location) - len(lastElem(location))
	if i <= 0 {
		return "."
	}
	return location[:i-1]
}

// retryPolicy is the table's commit.retry.* settings.
type retryPolicy struct {
	retries          int
	minWait, maxWait time.Duration
	totalTimeout     time.Duration
}

func retryPolicyOf(md *metadata.Metadata) (retryPolicy, error) {
	var p retryPolicy
	var err error
	get := func(key string, def int64) int64 {
		v, e := md.PropertyInt(key, def)
		if e != nil && err == nil {
			err = e
		}
		if v < 0 {
			v = def
		}
		return v
	}
	p.retries = int(get(PropCommitNumRetries, defaultCommitNumRetries))
	p.minWait = time.Duration(get(PropCommitMinWaitMs, defaultCommitMinWaitMs)) * time.Millisecond
	p.maxWait = time.Duration(get(PropCommitMaxWaitMs, defaultCommitMaxWaitMs)) * time.Millisecond
	p.totalTimeout = time.Duration(get(PropCommitTotalTimeoutMs, defaultCommitTotalTimeoutMs)) * time.Millisecond
	return p, err
}

// wait sleeps before retry attempt+1: exponential from minWait, capped at
// maxWait, with jitter so writers that lost together do not collide again.
func (p retryPolicy) wait(ctx context.Context, attempt int) error {
	d := p.minWait << min(attempt, 30)
	if d > p.maxWait || d <= 0 {
		d = p.maxWait
	}
	if d <= 0 {
		return nil
	}
	d = d/2 + rand.N(d/2+1)
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
