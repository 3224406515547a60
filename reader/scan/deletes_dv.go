package scan

import (
	"context"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/puffin"
)

// readDeletionVector reads a deletion-vector-v1 blob from its Puffin file:
// exactly the blob's byte range, nothing of the footer. Its cardinality
// must match the manifest's record count, as the spec requires.
func readDeletionVector(ctx context.Context, files fileio.FileIO, d *TaskDelete) (*roaring64.Bitmap, error) {
	if d.ContentOffset == nil || d.ContentSize == nil {
		return nil, fmt.Errorf("the manifest gives no content_offset and content_size_in_bytes")
	}
	f, err := files.Open(ctx, d.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	bm, err := puffin.ReadDeletionVector(f, *d.ContentOffset, *d.ContentSize)
	if err != nil {
		return nil, err
	}
	if card := bm.GetCardinality(); d.RecordCount > 0 && card != uint64(d.RecordCount) {
		return nil, fmt.Errorf("holds %d positions but the manifest says %d", card, d.RecordCount)
	}
	return bm, nil
}
