package interop

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"

	icebergio "github.com/apache/iceberg-go/io"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/maintain"
	"github.com/floedb/floe/writer/ops"
)

// The partition statistics file floe writes (v3: deletion vectors
// counted apart) is a Parquet file DuckDB reads: read_parquet gives the
// rows floe's reader gives, in the same (sorted) order, parquet_schema
// the spec's field ids; iceberg-go finds it registered for the snapshot.
func TestFloePartitionStatisticsReadByDuckDB(t *testing.T) {
	ctx := context.Background()
	tbl, _ := appendSmall(t, 3, nil, 3, 300)
	filter, err := expr.NewPredicate(expr.OpLt, "id", int64(450))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ops.DeleteRows(ctx, tbl, filter, ops.RowOptions{Mode: ops.MergeOnRead}); err != nil {
		t.Fatal(err)
	}
	res, err := maintain.ComputePartitionStatistics(ctx, tbl, maintain.PartitionStatisticsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	floeRows, err := maintain.ReadPartitionStatistics(ctx, tbl, res.Path)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var vectors int32
	for _, p := range floeRows {
		opt := func(v *int64) string {
			if v == nil {
				return "null"
			}
			return fmt.Sprint(*v)
		}
		part := func(v any) string {
			if v == nil {
				return "null"
			}
			return fmt.Sprint(v)
		}
		want = append(want, fmt.Sprintf("%s/%s spec %d data %d/%d/%d pos %d/%d dv %d eq %d/%d total %s at %s by %s",
			part(p.Partition[0]), part(p.Partition[1]), p.SpecID, p.DataRecordCount, p.DataFileCount, p.TotalDataFileSize,
			p.PositionDeleteRecordCount, p.PositionDeleteFileCount, p.DVCount, p.EqualityDeleteRecordCount, p.EqualityDeleteFileCount,
			opt(p.TotalRecordCount), opt(p.LastUpdatedAt), opt(p.LastUpdatedSnapshotID)))
		vectors += p.DVCount
	}
	if len(want) < 4 || vectors == 0 {
		t.Fatalf("floe wrote %d partitions with %d vectors: %v", len(want), vectors, want)
	}

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lit := "'" + res.Path + "'"
	rows, err := db.Query(`SELECT coalesce(partition.id_bucket::VARCHAR, 'null'), coalesce(date_diff('day', DATE '1970-01-01', partition.ts_day)::VARCHAR, 'null'), spec_id,
		data_record_count, data_file_count, total_data_file_size_in_bytes, position_delete_record_count, position_delete_file_count,
		dv_count, equality_delete_record_count, equality_delete_file_count,
		coalesce(total_record_count::VARCHAR, 'null'), coalesce(last_updated_at::VARCHAR, 'null'), coalesce(last_updated_snapshot_id::VARCHAR, 'null')
		FROM read_parquet(` + lit + `)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var bucket, day string
		var spec, dataFiles, posFiles, dvs, eqFiles int64
		var records, size, posRecords, eqRecords int64
		var total, at, by string
		if err := rows.Scan(&bucket, &day, &spec, &records, &dataFiles, &size, &posRecords, &posFiles, &dvs, &eqRecords, &eqFiles, &total, &at, &by); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s/%s spec %d data %d/%d/%d pos %d/%d dv %d eq %d/%d total %s at %s by %s",
			bucket, day, spec, records, dataFiles, size, posRecords, posFiles, dvs, eqRecords, eqFiles, total, at, by))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("DuckDB reads\n%v\nfloe reads\n%v", got, want)
	}

	ids := map[string]int64{}
	schema, err := db.Query(`SELECT name, field_id FROM parquet_schema(` + lit + `) WHERE field_id IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer schema.Close()
	for schema.Next() {
		var name string
		var id int64
		if err := schema.Scan(&name, &id); err != nil {
			t.Fatal(err)
		}
		ids[name] = id
	}
	wantIDs := map[string]int64{"partition": 1, "id_bucket": 1000, "ts_day": 1001, "spec_id": 2, "data_record_count": 3,
		"data_file_count": 4, "total_data_file_size_in_bytes": 5, "position_delete_record_count": 6, "position_delete_file_count": 7,
		"equality_delete_record_count": 8, "equality_delete_file_count": 9, "total_record_count": 10, "last_updated_at": 11,
		"last_updated_snapshot_id": 12, "dv_count": 13}
	if fmt.Sprint(ids) != fmt.Sprint(wantIDs) {
		t.Fatalf("DuckDB sees field ids %v, want %v", ids, wantIDs)
	}

	peer, err := icebergtable.NewFromLocation(ctx, icebergtable.Identifier{"interop", "t"}, tbl.MetadataLocation,
		icebergio.LoadFSFunc(nil, tbl.MetadataLocation), nil)
	if err != nil {
		t.Fatal(err)
	}
	var found int
	for f := range peer.Metadata().PartitionStatistics() {
		if f.SnapshotID == res.SnapshotID && f.StatisticsPath == res.Path && f.FileSizeInBytes == res.File.FileSizeInBytes {
			found++
		}
	}
	if found != 1 {
		t.Fatalf("iceberg-go found %d partition statistics files for snapshot %d at %s", found, res.SnapshotID, res.Path)
	}
}
