package table

import (
	"context"

	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// ManifestList is a snapshot's manifest-list entries, read as planning
// reads them (the list's size cap; an old v1 snapshot that names its
// manifests inline gets entries built from the snapshot): for metadata
// tables that show manifests themselves.
func (t *Table) ManifestList(ctx context.Context, snap *metadata.Snapshot) ([]manifest.ManifestFile, error) {
	return t.manifestsOf(ctx, snap)
}
