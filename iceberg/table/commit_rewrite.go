package table

import (
	"context"
	"fmt"
	"strconv"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/manifest"
)

// RewriteOptions are a RewriteFiles commit's options.
type RewriteOptions struct {
	CommitOptions
	// StartingSnapshotID is the snapshot the rewrite read its files from;
	// 0 means the head of the branch in t as the caller holds it. Delete
	// files other writers commit after it are checked against the removed
	// data files, and the added data files take its sequence number.
	StartingSnapshotID int64
	// FreshSequenceNumber gives the added data files the commit's own
	// sequence number instead of the starting snapshot's (Java's
	// use-starting-sequence-number=false). Equality deletes committed
	// after the starting snapshot would then not apply to the new files,
	// so such a delete touching a removed file's partition is a conflict.
	FreshSequenceNumber bool
	// AddedDeleteSequenceNumbers are the data sequence numbers of the
	// added delete files, by path as written (a deletion vector's as
	// path#content_offset): each added delete file must have one. A
	// rewrite of delete files gives the new file the largest of those it
	// merges (Java's RewritePositionDeleteFiles), so it applies to the
	// same data files as they did and to none committed since.
	AddedDeleteSequenceNumbers map[string]int64
}

// RewriteFiles replaces files by others holding the same rows (compaction,
// dropping delete files that apply to nothing): it removes the named data
// and delete files and adds the given data files in one snapshot whose
// operation is "replace" (Java's RewriteFiles). Removed files are named by
// path as the manifests write them (a deletion vector also as
// path#content_offset, to remove one vector of a shared Puffin file).
//
// The added data files take the starting snapshot's data sequence number,
// as Java's compaction does, so an equality delete committed after the
// rewrite started still applies to the rows it moved. On every commit
// attempt, against the version it builds on, the commit fails with
// ErrConflict, committing nothing, when a removed file is no longer live,
// the starting snapshot is no longer an ancestor of the branch, or a
// delete file committed after the starting snapshot applies to a removed
// data file: a position delete file or deletion vector that may name it,
// or (with FreshSequenceNumber) an equality delete of its partition.
// Removing a data file removes its deletion vector too (v3).
//
// Added delete files (a rewrite of delete files) carry the data sequence
// numbers opts.AddedDeleteSequenceNumbers gives them. Removing an equality
// delete also fails with ErrConflict when a data file committed after the
// starting snapshot has a lower data sequence number than it (another
// rewrite's): the delete still applies to rows the caller never saw.
func (t *Table) RewriteFiles(ctx context.Context, removedData, removedDeletes []string, added []manifest.DataFile, opts RewriteOptions) (CommitResult, error) {
	u, err := t.rewriteFilesUpdate(removedData, removedDeletes, added, opts)
	if err != nil {
		return CommitResult{}, err
	}
	return t.commitSnapshot(ctx, u)
}

// RewriteFiles replaces files by others holding the same rows
// (Table.RewriteFiles).
func (tx *Transaction) RewriteFiles(removedData, removedDeletes []string, added []manifest.DataFile, opts RewriteOptions) error {
	return tx.addSnapshot(tx.t.rewriteFilesUpdate(removedData, removedDeletes, added, opts))
}

// rewriteFilesUpdate validates a RewriteFiles and describes its snapshot.
func (t *Table) rewriteFilesUpdate(removedData, removedDeletes []string, added []manifest.DataFile, opts RewriteOptions) (*snapshotUpdate, error) {
	if len(removedData)+len(removedDeletes) == 0 {
		return nil, errkind.New(errkind.InvalidArgument, "rewrite files: no file to remove")
	}
	key := t.Locations.Apply
	wantData := map[string]bool{}
	wantDeletes := map[string]bool{}
	for _, group := range []struct {
		paths []string
		into  map[string]bool
	}{{removedData, wantData}, {removedDeletes, wantDeletes}} {
		for _, p := range group.paths {
			if p == "" {
				return nil, errkind.New(errkind.InvalidArgument, "rewrite files: an empty path among the files to remove")
			}
			if wantData[key(p)] || wantDeletes[key(p)] {
				return nil, errkind.Errorf(errkind.InvalidArgument, "rewrite files: %s is named twice among the files to remove", p)
			}
			group.into[key(p)] = true
		}
	}
	for i := range added {
		df := &added[i]
		if df.Content != manifest.ContentData {
			if seq, ok := opts.AddedDeleteSequenceNumbers[fileKey(df)]; !ok || seq <= 0 {
				return nil, errkind.Errorf(errkind.InvalidArgument, "rewrite files: added %s file %s has no positive data sequence number in AddedDeleteSequenceNumbers", df.Content, fileKey(df))
			}
		}
		if wantData[key(df.FilePath)] {
			return nil, errkind.Errorf(errkind.InvalidArgument, "rewrite files: %s is both added and removed", df.FilePath)
		}
	}

	b, err := newCommitBase(t, opts.branch())
	if err != nil {
		return nil, fmt.Errorf("rewrite files: %w", err)
	}
	start := b.headID()
	if opts.StartingSnapshotID != 0 {
		id := opts.StartingSnapshotID
		start = &id
	}
	var startSeq int64
	if start != nil {
		s := t.Metadata.SnapshotByID(*start)
		if s == nil {
			return nil, errkind.Errorf(errkind.NotFound, "rewrite files: starting snapshot %d is not in the table", *start)
		}
		startSeq = s.SequenceNumber
	}
	// The manifest writer stores an explicit data sequence number only
	// when positive; at 0 (files from v1 days) the new files take the
	// commit's, and equality deletes must be checked as with a fresh one.
	keepSeq := !opts.FreshSequenceNumber && startSeq > 0 && t.Metadata.FormatVersion >= 2

	u := &snapshotUpdate{what: "rewrite files", opts: opts.CommitOptions, added: added}
	if keepSeq {
		u.addedDataSequenceNumber = startSeq
	}
	u.addedDeleteSequenceNumbers = opts.AddedDeleteSequenceNumbers
	u.operation = func(*removal) string { return OpReplace }
	u.plan = func(ctx context.Context, b *commitBase) (*removal, error) {
		if b.head == nil {
			return nil, fmt.Errorf("the table has no snapshot, so nothing to remove: %w", ErrConflict)
		}
		rm := newRemoval()
		found := map[string]bool{}
		var replaced []manifest.DataFile
		var maxEqSeq int64 // the newest removed equality delete's data sequence number
		err := b.liveFiles(ctx, nil, func(lf liveFile) error {
			df := &lf.entry.DataFile
			name := key(df.FilePath)
			if df.ContentOffset != nil && !wantDeletes[name] {
				name += "#" + strconv.FormatInt(*df.ContentOffset, 10)
			}
			isData := df.Content == manifest.ContentData
			switch {
			case wantData[name] && !isData:
				return errkind.Errorf(errkind.InvalidArgument, "%s is a %s file, named among the data files to remove", df.FilePath, df.Content)
			case wantDeletes[name] && isData:
				return errkind.Errorf(errkind.InvalidArgument, "%s is a data file, named among the delete files to remove", df.FilePath)
			case wantData[name]:
				replaced = append(replaced, *df)
			case !wantDeletes[name]:
				return nil
			case df.Content == manifest.ContentEqualityDeletes && lf.entry.SequenceNumber > maxEqSeq:
				maxEqSeq = lf.entry.SequenceNumber
			}
			found[name] = true
			rm.add(df)
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, paths := range [][]string{removedData, removedDeletes} {
			for _, p := range paths {
				if !found[key(p)] {
					return nil, fmt.Errorf("%s is not live in snapshot %d of branch %q: %w", p, b.head.SnapshotID, b.branch, ErrConflict)
				}
			}
		}
		if err := checkNoConcurrentVectors(ctx, b, start, added); err != nil {
			return nil, err
		}
		if maxEqSeq > 0 {
			if err := checkNoOlderData(ctx, b, start, maxEqSeq); err != nil {
				return nil, err
			}
		}
		if len(replaced) > 0 {
			if err := checkNoNewDeletes(ctx, b, start, startSeq, keepSeq, replaced); err != nil {
				return nil, err
			}
		}
		return rm, nil
	}
	return u, nil
}

// checkNoNewDeletes fails with ErrConflict when a delete file committed
// after the starting snapshot applies to a replaced data file read as of
// that snapshot: its rows would come back in the files that replace it.
// With keepSeq the new files share the starting sequence number, so
// equality deletes still reach them and only position deletes count
// (Java's validateNoNewDeletesForDataFiles with ignoreEqualityDeletes).
func checkNoNewDeletes(ctx context.Context, b *commitBase, start *int64, startSeq int64, keepSeq bool, replaced []manifest.DataFile) error {
	changes, err := b.changesSince(ctx, start)
	if err != nil {
		return err
	}
	var newDeletes []*DeleteFile
	for _, c := range changes {
		for i := range c.added {
			e := &c.added[i]
			if e.DataFile.Content == manifest.ContentData {
				continue
			}
			newDeletes = append(newDeletes, &DeleteFile{
				Path: b.t.Locations.Apply(e.DataFile.FilePath), File: e.DataFile,
				DataSequenceNumber: e.SequenceNumber, FileSequenceNumber: e.FileSequenceNumber,
			})
		}
	}
	if len(newDeletes) == 0 {
		return nil
	}
	idx, err := b.t.buildDeleteIndex(newDeletes)
	if err != nil {
		return err
	}
	for i := range replaced {
		task := &DataFileTask{Path: b.t.Locations.Apply(replaced[i].FilePath), File: replaced[i], DataSequenceNumber: startSeq}
		for _, d := range idx.forDataFile(task, b.t) {
			if keepSeq && d.File.Content == manifest.ContentEqualityDeletes {
				continue
			}
			return fmt.Errorf("delete file %s, committed after starting snapshot %s, applies to replaced data file %s: %w",
				fileKey(&d.File), idString(start), replaced[i].FilePath, ErrConflict)
		}
	}
	return nil
}

// checkNoOlderData fails with ErrConflict when a data file committed after
// the starting snapshot carries a data sequence number below a removed
// equality delete's (another rewrite's files keep their starting
// sequence number): the delete still applies to its rows, which the
// rewrite, planned without that file, has not turned into positions.
func checkNoOlderData(ctx context.Context, b *commitBase, start *int64, maxEqSeq int64) error {
	changes, err := b.changesSince(ctx, start)
	if err != nil {
		return err
	}
	for _, c := range changes {
		for i := range c.added {
			e := &c.added[i]
			if e.DataFile.Content == manifest.ContentData && e.SequenceNumber < maxEqSeq {
				return fmt.Errorf("data file %s, committed after starting snapshot %s at data sequence number %d, may hold rows of a removed equality delete (sequence number %d): %w",
					e.DataFile.FilePath, idString(start), e.SequenceNumber, maxEqSeq, ErrConflict)
			}
		}
	}
	return nil
}

// checkNoConcurrentVectors fails with ErrConflict when a deletion vector
// committed after the starting snapshot names a data file an added vector
// names: a data file has one vector, and the added one, merged from the
// older ones, lacks the concurrent one's positions (Java's validation of
// added DVs).
func checkNoConcurrentVectors(ctx context.Context, b *commitBase, start *int64, added []manifest.DataFile) error {
	targets := map[string]bool{}
	for i := range added {
		if added[i].Content == manifest.ContentPositionDeletes && added[i].ContentOffset != nil {
			targets[b.t.Locations.Apply(added[i].ReferencedDataFile)] = true
		}
	}
	if len(targets) == 0 {
		return nil
	}
	changes, err := b.changesSince(ctx, start)
	if err != nil {
		return err
	}
	for _, c := range changes {
		for i := range c.added {
			df := &c.added[i].DataFile
			if df.ContentOffset != nil && targets[b.t.Locations.Apply(df.ReferencedDataFile)] {
				return fmt.Errorf("deletion vector %s, committed after starting snapshot %s, names data file %s, which an added vector names too: %w",
					fileKey(df), idString(start), df.ReferencedDataFile, ErrConflict)
			}
		}
	}
	return nil
}
