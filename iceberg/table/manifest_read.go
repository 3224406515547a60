package table

import (
	"context"
	"errors"

	"github.com/floedb/floe/iceberg/manifest"
)

// ReadManifest is every entry of one manifest, DELETED ones included,
// with inheritance applied: what planning reads before dropping them.
func (t *Table) ReadManifest(ctx context.Context, mf manifest.ManifestFile) ([]manifest.Entry, error) {
	return t.readManifest(ctx, mf)
}

// StreamManifests reads manifests as planning does (a window ahead,
// concurrently) and hands each one's entries, DELETED ones included, to
// each in list order on the calling goroutine. each returning ErrStop
// ends the stream early without an error.
func (t *Table) StreamManifests(ctx context.Context, manifests []manifest.ManifestFile, each func(i int, entries []manifest.Entry) error) error {
	read := func(ctx context.Context, i int) manifestRead {
		var r manifestRead
		r.entries, r.err = t.readManifest(ctx, manifests[i])
		return r
	}
	err := streamManifests(ctx, manifests, read, func(i int, r *manifestRead) error { return each(i, r.entries) })
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}
