package table

import (
	"context"
	"fmt"
	"math"

	"github.com/floedb/floe/iceberg/manifest"
)

// DanglingDeletesResult says what RemoveDanglingDeletes removed.
type DanglingDeletesResult struct {
	// Removed are the delete files (and deletion vectors) that applied to
	// no live data file, as the head's manifests held them.
	Removed []manifest.DataFile
	// CommitResult is the "replace" snapshot that removed them; zero when
	// none was dangling.
	CommitResult
}

// RemoveDanglingDeletes removes the delete files of the branch head that
// apply to no live data file, by Java's rule (RemoveDanglingDeletes):
// within a partition (spec and tuple), a position delete file whose data
// sequence number is below the smallest of the partition's live data
// files, an equality delete file whose sequence number is at most that,
// and any delete file of a partition holding no live data file, can match
// no row. Further, a position delete file or deletion vector naming one
// data file (referenced_data_file) that is no longer live is dangling.
// A delete file of an unpartitioned spec applies across partitions, so it
// is held against the smallest sequence number of the whole table (Java
// compares it with its own spec's files only, which can drop a global
// equality delete that still applies after partitioning was added).
//
// They go in one snapshot through RewriteFiles (operation "replace"),
// planned on the head t holds: a removed file another writer removed
// meanwhile fails the commit with ErrConflict, committing nothing. Data
// files written since cannot revive a dangling delete: they carry newer
// sequence numbers (a compaction's carry its start's, no older than the
// files it replaced). Nothing dangling commits nothing.
func (t *Table) RemoveDanglingDeletes(ctx context.Context, opts CommitOptions) (res DanglingDeletesResult, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("remove dangling deletes: %w", err)
		}
	}()
	if t.Metadata.FormatVersion < 2 {
		return res, nil // no delete files before v2
	}
	b, err := newCommitBase(t, opts.branch())
	if err != nil || b.head == nil {
		return res, err
	}
	res.Removed, err = danglingDeletes(ctx, b)
	if err != nil || len(res.Removed) == 0 {
		return res, err
	}
	names := make([]string, len(res.Removed))
	for i := range res.Removed {
		names[i] = fileKey(&res.Removed[i])
	}
	res.CommitResult, err = t.RewriteFiles(ctx, nil, names, nil, RewriteOptions{CommitOptions: opts, StartingSnapshotID: b.head.SnapshotID})
	if err != nil {
		res.Removed = nil
	}
	return res, err
}

// danglingDeletes lists the head's live delete files that apply to no
// live data file (RemoveDanglingDeletes' rule).
func danglingDeletes(ctx context.Context, b *commitBase) ([]manifest.DataFile, error) {
	key := b.t.Locations.Apply
	minSeq := map[string]int64{}
	tableMin := int64(math.MaxInt64)
	liveData := map[string]bool{}
	var deletes []manifest.Entry
	err := b.liveFiles(ctx, nil, func(lf liveFile) error {
		e := lf.entry
		df := &e.DataFile
		if df.Content != manifest.ContentData {
			deletes = append(deletes, *e)
			return nil
		}
		liveData[key(df.FilePath)] = true
		k := PartitionKey(df.SpecID, df.Partition)
		if cur, ok := minSeq[k]; !ok || e.SequenceNumber < cur {
			minSeq[k] = e.SequenceNumber
		}
		tableMin = min(tableMin, e.SequenceNumber)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []manifest.DataFile
	for i := range deletes {
		e := &deletes[i]
		df := &e.DataFile
		if df.Content == manifest.ContentPositionDeletes && df.ReferencedDataFile != "" && !liveData[key(df.ReferencedDataFile)] {
			out = append(out, *df)
			continue
		}
		floor, ok := minSeq[PartitionKey(df.SpecID, df.Partition)]
		if spec := b.t.Metadata.SpecByID(df.SpecID); spec != nil && len(spec.Fields) == 0 {
			floor, ok = tableMin, len(liveData) > 0
		}
		switch {
		case !ok:
		case df.Content == manifest.ContentPositionDeletes && e.SequenceNumber < floor:
		case df.Content == manifest.ContentEqualityDeletes && e.SequenceNumber <= floor:
		default:
			continue
		}
		out = append(out, *df)
	}
	return out, nil
}

// DanglingDeletes lists the delete files of a branch's head ("" is main)
// that RemoveDanglingDeletes would remove, changing nothing.
func (t *Table) DanglingDeletes(ctx context.Context, branch string) ([]manifest.DataFile, error) {
	if t.Metadata.FormatVersion < 2 {
		return nil, nil
	}
	b, err := newCommitBase(t, (&CommitOptions{Branch: branch}).branch())
	if err != nil || b.head == nil {
		return nil, err
	}
	return danglingDeletes(ctx, b)
}
