package ops

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer"
)

// DiscardFiles deletes files WriteFiles wrote (in this process or another)
// for a commit that did not take them: the commit was refused, or found its
// token committed by an earlier attempt. AppendFiles and CommitFiles never
// delete what they are given, as the files are not theirs; the caller that
// knows the commit did not take them says so with this call.
//
// Because the entries come from the caller, every file is checked before
// any is deleted, and the call deletes nothing when one fails:
//   - it must lie under the table's data location (writer.DataLocation, as
//     the table's location map sends it; no "." or ".." segment, no
//     symlinked directory leading out: table.OwnedUnder, the test expiry
//     applies), where WriteFiles puts what it writes: INVALID_ARGUMENT
//     otherwise;
//   - no snapshot of t may reference it (table.FirstReferenced: every
//     snapshot's manifests, whatever version t held when the commit ran):
//     CONFLICT otherwise, naming the file and the snapshot.
//
// t is the caller's handle; the check reads the newest version of the
// table, so a commit that took the files after t was opened is seen. A
// file already gone is no error: a discard can be retried. Deletes go
// through t.IO, which keeps a table opened away from its recorded location
// inside the directory it was opened from.
func DiscardFiles(ctx context.Context, t *table.Table, files []manifest.DataFile) error {
	if len(files) == 0 {
		return nil
	}
	fresh := *t
	if err := fresh.Refresh(ctx); err != nil {
		return fmt.Errorf("discard files: read the table's newest version: %w", err)
	}
	dataDir := writer.DataLocation(fresh.Metadata)
	owned := fresh.OwnedUnder(dataDir)
	paths := make([]string, len(files))
	for i := range files {
		p := files[i].FilePath
		if !owned(p) {
			return errkind.Errorf(errkind.InvalidArgument,
				"discard files: refusing to delete %s: it is not under the table's data location %s, where written files go", p, dataDir)
		}
		paths[i] = p
	}
	p, snapshot, referenced, err := fresh.FirstReferenced(ctx, paths)
	if err != nil {
		return fmt.Errorf("discard files: %w", err)
	}
	if referenced {
		return errkind.Errorf(errkind.Conflict,
			"discard files: refusing to delete %s: snapshot %d of the table references it (the commit took the files; nothing was deleted)", p, snapshot)
	}
	ctx = context.WithoutCancel(ctx) // half a discard leaves orphans
	for _, p := range paths {
		if err := fresh.IO.Delete(ctx, p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("discard files: delete %s: %w", p, err)
		}
	}
	return nil
}

// DiscardNotTaken returns what deletes files (DiscardFiles) after the
// commit they were given to, when it did not take them: it failed with a
// known outcome (not errkind.CommitStateUnknown, whoever reported it: the
// table may then hold them), or found its token committed by an earlier attempt. It passes the
// commit's result on; a failed discard is joined to the commit's error, or
// is the error of a commit that found its token (retrying with the token
// finds it again and discards again). Use it as
// DiscardNotTaken(ctx, t, files)(AppendFiles(ctx, t, files, opts)), for
// files written for this commit only.
func DiscardNotTaken(ctx context.Context, t *table.Table, files []manifest.DataFile) func(Result, error) (Result, error) {
	return func(res Result, err error) (Result, error) {
		switch {
		case err != nil && !errors.Is(err, errkind.CommitStateUnknown):
			if derr := DiscardFiles(ctx, t, files); derr != nil {
				return res, errors.Join(err, derr)
			}
		case err == nil && res.TokenFound:
			// A retry after an unknown outcome sends the files the first
			// attempt committed: the token's snapshot references them, and
			// the refusal (a conflict) says the commit took them.
			if derr := DiscardFiles(ctx, t, files); derr != nil && !errors.Is(derr, errkind.Conflict) {
				return Result{}, derr
			}
		}
		return res, err
	}
}
