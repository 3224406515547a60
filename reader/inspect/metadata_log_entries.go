package inspect

import (
	"context"
	"iter"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// MetadataLogEntries is the metadata log and then the current metadata
// file (Java's MetadataLogEntriesTable, pyiceberg's
// inspect.metadata_log_entries): each file's time and the snapshot that
// was current then — by the snapshot log, as Java finds it — with that
// snapshot's schema id and sequence number.
const MetadataLogEntries Kind = "metadata_log_entries"

func init() { register(MetadataLogEntries, openMetadataLogEntries) }

// metadataLogSchema is Java's; pyiceberg's timestamp is milliseconds
// without zone, Java's (followed here) timestamptz in microseconds.
var metadataLogSchema = iceberg.NewSchema(0, []iceberg.NestedField{
	{ID: 1, Name: "timestamp", Type: iceberg.TimestamptzType{}, Required: true},
	{ID: 2, Name: "file", Type: iceberg.StringType{}, Required: true},
	{ID: 3, Name: "latest_snapshot_id", Type: iceberg.LongType{}},
	{ID: 4, Name: "latest_schema_id", Type: iceberg.IntType{}},
	{ID: 5, Name: "latest_sequence_number", Type: iceberg.LongType{}},
})

func openMetadataLogEntries(t *table.Table, opts Options) (*source, error) {
	if err := noSnapshotChoice(MetadataLogEntries, opts); err != nil {
		return nil, err
	}
	md, current := t.Metadata, t.MetadataLocation
	return &source{schema: metadataLogSchema, rows: func(context.Context) iter.Seq2[[]any, error] {
		return func(yield func([]any, error) bool) {
			for _, e := range md.MetadataLog {
				if !yield(metadataLogRow(md, e.MetadataFile, e.TimestampMs), nil) {
					return
				}
			}
			// A table built in memory has no file of its own yet.
			if current != "" {
				yield(metadataLogRow(md, current, md.LastUpdatedMs), nil)
			}
		}
	}}, nil
}

func metadataLogRow(md *metadata.Metadata, file string, ms int64) []any {
	row := []any{ms * 1000, file, nil, nil, nil}
	id, ok := currentAt(md.SnapshotLog, ms)
	if !ok {
		// The file predates the first snapshot (the table's creation).
		return row
	}
	row[2] = id
	// The snapshot may have expired since: its id stays, the rest is
	// unknown (as in Java).
	if s := md.SnapshotByID(id); s != nil {
		if s.SchemaID != nil {
			row[3] = int32(*s.SchemaID)
		}
		row[4] = s.SequenceNumber
	}
	return row
}

// currentAt is the snapshot the log says was current at ms: the entry
// with the latest time at or before ms, the first of equal times — Java's
// SnapshotUtil.nullableSnapshotIdAsOfTime, which this table's
// latest_snapshot_id follows; metadata.SnapshotAsOf, for time travel,
// also falls back to the ancestry when there is no log, which Java's
// table does not.
func currentAt(log []metadata.SnapshotLogEntry, ms int64) (int64, bool) {
	var id int64
	found := false
	var best int64
	for _, e := range log {
		if e.TimestampMs <= ms && (!found || e.TimestampMs > best) {
			id, best, found = e.SnapshotID, e.TimestampMs, true
		}
	}
	return id, found
}
