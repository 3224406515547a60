package reader

import (
	"context"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/floedb/floe/iceberg/fileio"
)

// readDeletionVector reads a deletion-vector-v1 blob from its Puffin file.
func readDeletionVector(ctx context.Context, files fileio.FileIO, d *TaskDelete) (*roaring64.Bitmap, error) {
	return nil, fmt.Errorf("deletion vectors: waiting for the puffin package")
}
