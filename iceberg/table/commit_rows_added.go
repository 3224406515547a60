package table

import (
	"context"
	"fmt"

	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// AddedFiles lists the files (data and delete) a snapshot added, from the
// manifests it wrote. A writer whose commit carried a token uses it to
// tell its own snapshot from one an earlier attempt with the token made:
// only in the latter case are the files it wrote unused.
func (t *Table) AddedFiles(ctx context.Context, snapshotID int64) ([]manifest.DataFile, error) {
	snap := t.Metadata.SnapshotByID(snapshotID)
	if snap == nil {
		return nil, fmt.Errorf("table has no snapshot %d", snapshotID)
	}
	b := &commitBase{t: t}
	changes, err := b.changesOf(ctx, []*metadata.Snapshot{snap})
	if err != nil {
		return nil, err
	}
	out := make([]manifest.DataFile, 0, len(changes[0].added))
	for i := range changes[0].added {
		out = append(out, changes[0].added[i].DataFile)
	}
	return out, nil
}
