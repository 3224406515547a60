package scan

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg/fileio"
)

// ReadPositionDeleteFile hands fn the file_path and pos columns of a
// Parquet position delete file, batch by batch (released after fn
// returns), read as the scan reads them (record count checked). For the
// position_deletes metadata table (reader/inspect), which shows a delete
// file's rows rather than applying them.
func ReadPositionDeleteFile(ctx context.Context, files fileio.FileIO, d *TaskDelete, fn func(paths *array.String, pos *array.Int64) error) error {
	return readFile(ctx, files, d, positionDeleteFields, func(rec arrow.RecordBatch) error {
		paths, ok1 := rec.Column(0).(*array.String)
		pos, ok2 := rec.Column(1).(*array.Int64)
		if !ok1 || !ok2 {
			return fmt.Errorf("file_path and pos read as %s and %s", rec.Column(0).DataType(), rec.Column(1).DataType())
		}
		return fn(paths, pos)
	})
}
