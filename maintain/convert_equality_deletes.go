package maintain

import (
	"context"

	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// ConvertEqualityDeletes turns equality deletes into positions: for each
// live data file an equality delete applies to, the rows they remove,
// found by reading the file's _pos through the reader with only those
// deletes applied, are written as a position delete file per partition
// (v2) or merged into the file's deletion vector (v3); the equality delete
// files that applied to a live data file are removed in the same replace
// snapshot, so reads stop joining on the keys, and so are those that apply
// to no live data file. The rows deleted stay
// exactly those. A concurrent commit of data files at a lower sequence
// number than a removed delete (another rewrite) is ErrConflict.
func ConvertEqualityDeletes(ctx context.Context, t *table.Table, opts DeleteRewriteOptions) (DeleteRewriteResult, error) {
	dvs := t.Metadata.FormatVersion >= 3
	source := func(d *table.DeleteFile) bool { return d.File.Content == manifest.ContentEqualityDeletes }
	read := func(d *scan.TaskDelete) bool { return d.IsEqualityDelete() || dvs }
	return rewriteDeletes(ctx, t, opts, deleteRewrite{what: "convert equality deletes", source: source, read: read, dropUnused: true})
}
