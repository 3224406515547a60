package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// Append writes data as data files of t and commits them in one append
// snapshot (table.Append). Appending no rows still commits an empty
// snapshot. On success t holds the committed version.
func Append(ctx context.Context, t *table.Table, data array.RecordReader, opts table.CommitOptions) (Result, error) {
	return writeAndCommit(ctx, t, data, opts, func(files []manifest.DataFile) (table.CommitResult, error) {
		return t.Append(ctx, files, opts)
	})
}

// ReplacePartitions writes data and commits it in place of what other
// writers left in the partitions it lands in (table.ReplacePartitions).
func ReplacePartitions(ctx context.Context, t *table.Table, data array.RecordReader, opts table.CommitOptions) (Result, error) {
	return writeAndCommit(ctx, t, data, opts, func(files []manifest.DataFile) (table.CommitResult, error) {
		return t.ReplacePartitions(ctx, files, opts)
	})
}

// Overwrite writes data and commits it in place of the data files filter
// selects, which must be whole files (table.Overwrite; OverwriteRows
// handles files the filter selects in part).
func Overwrite(ctx context.Context, t *table.Table, filter expr.Expr, data array.RecordReader, opts table.CommitOptions) (Result, error) {
	return writeAndCommit(ctx, t, data, opts, func(files []manifest.DataFile) (table.CommitResult, error) {
		return t.Overwrite(ctx, filter, files, opts)
	})
}

// AppendFiles commits data files written elsewhere (WriteFiles in another
// process, another engine) in one append snapshot. The files are not this
// call's: whatever happens, they are never deleted (commit is given an
// empty set of written files).
func AppendFiles(ctx context.Context, t *table.Table, files []manifest.DataFile, opts table.CommitOptions) (Result, error) {
	return commit(ctx, &written{}, files, func() (table.CommitResult, error) { return t.Append(ctx, files, opts) })
}

// ReplacePartitionsFiles commits data files written elsewhere in place of
// what other writers left in the partitions they land in
// (table.ReplacePartitions); like AppendFiles, it never deletes them.
func ReplacePartitionsFiles(ctx context.Context, t *table.Table, files []manifest.DataFile, opts table.CommitOptions) (Result, error) {
	return commit(ctx, &written{}, files, func() (table.CommitResult, error) { return t.ReplacePartitions(ctx, files, opts) })
}

// CommitFiles commits files written elsewhere and removes others, named by
// their paths as the table's manifests write them, in one snapshot
// (table.Commit). The added files are never deleted.
func CommitFiles(ctx context.Context, t *table.Table, added []manifest.DataFile, removed []string, opts table.CommitOptions) (Result, error) {
	return commit(ctx, &written{}, added, func() (table.CommitResult, error) { return t.Commit(ctx, added, removed, opts) })
}

// writeAndCommit writes data as t's data files unless opts' token is
// already committed, then commits them with run.
func writeAndCommit(ctx context.Context, t *table.Table, data array.RecordReader, opts table.CommitOptions, run func([]manifest.DataFile) (table.CommitResult, error)) (Result, error) {
	if res, ok, err := tokenFound(t, opts.Token); err != nil || ok {
		return res, err // a retried step whose commit already happened
	}
	w := &written{io: t.IO}
	files, err := write(ctx, t, data, w)
	if err != nil {
		return Result{}, err // write left nothing behind
	}
	return commit(ctx, w, files, func() (table.CommitResult, error) { return run(files) })
}
