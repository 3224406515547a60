package ops

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer"
)

// WriteFiles writes every batch of data as data files of t's current
// schema and default partition spec, under the table's data location
// (writer.DataLocation) with the writer options its properties set, and
// returns their entries without committing them (AppendFiles or
// CommitFiles commit them, in this process or another). On failure
// nothing it wrote is left. data is read to its end, not released.
func WriteFiles(ctx context.Context, t *table.Table, data array.RecordReader) ([]manifest.DataFile, error) {
	return write(ctx, t, data, &written{io: t.IO})
}

// RemoveFiles deletes, best effort, data files WriteFiles wrote that will
// not be committed.
func RemoveFiles(ctx context.Context, t *table.Table, files []manifest.DataFile) {
	w := &written{io: t.IO}
	w.addFiles(files)
	w.remove(ctx)
}

// write writes data as data files of t, tracking them in w. A nil data
// writes nothing; on failure the writer's Abort has deleted what it wrote,
// and w tracks nothing.
func write(ctx context.Context, t *table.Table, data array.RecordReader, w *written) ([]manifest.DataFile, error) {
	if data == nil {
		return nil, nil
	}
	md := t.Metadata
	schema, wopts, err := writerOptions(md)
	if err != nil {
		return nil, err
	}
	fw, err := writer.New(ctx, t.IO, writer.DataLocation(md), schema, md.DefaultSpec(), wopts)
	if err != nil {
		return nil, err
	}
	for data.Next() {
		if err := fw.Write(data.RecordBatch()); err != nil {
			_ = fw.Abort()
			return nil, err
		}
	}
	if err := data.Err(); err != nil {
		_ = fw.Abort()
		return nil, fmt.Errorf("read the rows to write: %w", err)
	}
	files, err := fw.Close()
	if err != nil {
		_ = fw.Abort()
		return nil, err
	}
	w.addFiles(files)
	return files, nil
}

// writerOptions are the schema data files of md are written with and the
// writer options its properties and default sort order set.
func writerOptions(md *metadata.Metadata) (*iceberg.Schema, writer.Options, error) {
	schema := md.CurrentSchema()
	if schema == nil {
		return nil, writer.Options{}, fmt.Errorf("table %s has no current schema", md.Location)
	}
	wopts, err := writer.TableOptions(md, schema)
	return schema, wopts, err
}
