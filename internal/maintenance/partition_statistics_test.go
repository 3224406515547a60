package maintenance

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/maintain"
	"github.com/floedb/floe/writer/ops"
)

type statisticsRun struct {
	SnapshotID          int64            `json:"snapshot_id"`
	StatisticsPath      string           `json:"statistics_path"`
	NDV                 map[string]int64 `json:"ndv"`
	PartitionStatistics *struct {
		StatisticsPath string `json:"statistics_path"`
		FileSizeBytes  int64  `json:"file_size_in_bytes"`
		Partitions     int    `json:"partitions"`
	} `json:"partition_statistics"`
}

func runStatistics(t *testing.T, tbl *table.Table, options string) (statisticsRun, error) {
	t.Helper()
	req, err := Parse("compute_statistics", []byte(options))
	if err != nil {
		t.Fatal(err)
	}
	out, err := req.Run(context.Background(), tbl, nil)
	if err != nil {
		return statisticsRun{}, err
	}
	var res statisticsRun
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	return res, nil
}

// compute_statistics writes partition statistics on a partitioned table
// by default (Hive's three partitions), alone with ndv false, never on an
// unpartitioned table unless asked, which is then refused; what cannot
// be asked is refused at parse time.
func TestComputeStatisticsPartitionOption(t *testing.T) {
	tbl := rowstest.CopyFixture(t, "impala_iceberg_v2_partitioned_position_deletes")
	res, err := runStatistics(t, tbl, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatisticsPath == "" || len(res.NDV) == 0 || res.PartitionStatistics == nil || res.PartitionStatistics.Partitions != 3 {
		t.Fatalf("default: %+v", res)
	}
	if n := len(tbl.Metadata.PartitionStatistics); n != 1 || tbl.Metadata.PartitionStatistics[0].StatisticsPath != res.PartitionStatistics.StatisticsPath {
		t.Fatalf("registered %v", tbl.Metadata.PartitionStatistics)
	}
	res, err = runStatistics(t, tbl, `{"ndv": false}`)
	if err != nil || res.StatisticsPath != "" || res.NDV != nil || res.PartitionStatistics == nil || res.SnapshotID != *tbl.Metadata.CurrentSnapshotID {
		t.Fatalf("ndv false: %+v, %v", res, err)
	}
	res, err = runStatistics(t, tbl, `{"partition_statistics": false, "columns": ["id"]}`)
	if err != nil || res.PartitionStatistics != nil || len(res.NDV) != 1 {
		t.Fatalf("partition_statistics false: %+v, %v", res, err)
	}

	flat := rowstest.CopyFixture(t, "impala_iceberg_v3_deletion_vectors")
	res, err = runStatistics(t, flat, `{}`)
	if err != nil || res.PartitionStatistics != nil || len(flat.Metadata.PartitionStatistics) != 0 {
		t.Fatalf("unpartitioned by default: %+v, %v", res, err)
	}
	if _, err := runStatistics(t, flat, `{"partition_statistics": true, "ndv": false}`); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("unpartitioned, asked: %v, want InvalidArgument", err)
	}

	for in, want := range map[string]string{
		`{"ndv": false, "partition_statistics": false}`: "nothing to compute",
		`{"ndv": false, "columns": ["id"]}`:             "ndv is false",
		`{"partition_statistics": "yes"}`:               "partition_statistics",
		`{"partition_stats": true}`:                     `did you mean "partition_statistics"`,
	} {
		if _, err := Parse("compute_statistics", []byte(in)); !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want InvalidArgument saying %q", in, err, want)
		}
	}
}

// On a partitioned table with write.statistics.on-commit=true, every
// commit leaves a partition statistics file for the new snapshot whose
// counts are the table's, brought forward from the previous one.
func TestAfterCommitKeepsPartitionStatistics(t *testing.T) {
	ctx := context.Background()
	tbl := rowstest.NewTable(t, 2, rowstest.ByBool, map[string]string{maintain.PropStatisticsOnCommit: "true"})
	rows := testtable.RandomRows(3, 90)
	for i := range rows {
		rows[i][0] = int64(i)
	}
	for n, chunk := range [][][]any{rows[:40], rows[40:]} {
		rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), chunk)
		_, err := ops.Append(ctx, tbl, rr, table.CommitOptions{})
		rr.Release()
		if err != nil {
			t.Fatal(err)
		}
		if err := AfterCommit(ctx, tbl); err != nil {
			t.Fatal(err)
		}
		current := *tbl.Metadata.CurrentSnapshotID
		var path string
		for _, f := range tbl.Metadata.PartitionStatistics {
			if f.SnapshotID == current {
				path = f.StatisticsPath
			}
		}
		if path == "" || len(tbl.Metadata.PartitionStatistics) != n+1 {
			t.Fatalf("after append %d: partition statistics %v, none for %d", n, tbl.Metadata.PartitionStatistics, current)
		}
		stats, err := maintain.ReadPartitionStatistics(ctx, tbl, path)
		if err != nil {
			t.Fatal(err)
		}
		var records int64
		var files int32
		for _, p := range stats {
			records += p.DataRecordCount
			files += p.DataFileCount
		}
		plan := rowstest.LiveFiles(t, tbl)
		if want := int64(len(rows[:40+50*n])); records != want || int(files) != len(plan.Tasks) {
			t.Fatalf("after append %d: %d records in %d files, want %d in %d", n, records, files, want, len(plan.Tasks))
		}
	}
	if len(tbl.Metadata.Statistics) != 2 {
		t.Fatalf("column statistics %v, want one a snapshot", tbl.Metadata.Statistics)
	}
}

// ndv false on an unpartitioned table leaves compute_statistics nothing
// to compute (partition statistics default to partitioned tables only):
// refused as both false are, not a success naming snapshot 0 with no
// file written.
func TestComputeStatisticsNothingOnUnpartitioned(t *testing.T) {
	flat := rowstest.CopyFixture(t, "impala_iceberg_v3_deletion_vectors")
	before := flat.MetadataLocation
	res, err := runStatistics(t, flat, `{"ndv": false}`)
	if !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("ndv false on an unpartitioned table: %+v, %v; want InvalidArgument", res, err)
	}
	if flat.MetadataLocation != before || len(flat.Metadata.Statistics)+len(flat.Metadata.PartitionStatistics) != 0 {
		t.Fatalf("a refused run committed %s", flat.MetadataLocation)
	}
}
