package inspect

import (
	"context"
	"fmt"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
)

// benchFilesTable is a table of 100,000 data files in 10 manifests, each
// file with every metric of each of testtable's 11 columns (as a Spark
// writer records them), partitioned by the boolean column.
func benchFilesTable(b *testing.B) *table.Table {
	ctx := context.Background()
	tbl := rowstest.NewTable(b, 2, rowstest.ByBool, nil)
	schema := tbl.Metadata.CurrentSchema()
	spec := tbl.Metadata.DefaultSpec()
	const commits, perCommit = 10, 10_000
	for c := range commits {
		files := make([]manifest.DataFile, perCommit)
		for i := range files {
			n := c*perCommit + i
			files[i] = manifest.DataFile{Content: manifest.ContentData, FilePath: fmt.Sprintf("%s/data/f%07d.parquet", tbl.Metadata.Location, n),
				FileFormat: "PARQUET", Partition: []any{n%2 == 0}, SpecID: spec.ID, RecordCount: int64(1000 + n%97), FileSizeInBytes: 1 << 20,
				Metrics: benchMetrics(b, schema, n), SplitOffsets: []int64{4}}
		}
		if _, err := tbl.Append(ctx, files, table.CommitOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	return tbl
}

func benchMetrics(b *testing.B, schema *iceberg.Schema, n int) manifest.Metrics {
	m := manifest.MetricMaps{ColumnSizes: map[int]int64{}, ValueCounts: map[int]int64{}, NullValueCounts: map[int]int64{},
		NaNValueCounts: map[int]int64{}, LowerBounds: map[int][]byte{}, UpperBounds: map[int][]byte{}}
	lo, hi := map[int]any{
		testtable.IDID: int64(n), testtable.IDInt: int32(n), testtable.IDLong: int64(n), testtable.IDDouble: float64(n),
		testtable.IDString: fmt.Sprintf("a%06d", n), testtable.IDDate: int32(18000 + n%1000), testtable.IDTimestamp: int64(n) * 1e6,
		testtable.IDTimestamptz: int64(n) * 1e6, testtable.IDDecimal: iceberg.Decimal{Lo: uint64(n)}, testtable.IDWideDecimal: iceberg.Decimal{Lo: uint64(n)},
		testtable.IDBool: false,
	}, map[int]any{
		testtable.IDID: int64(n + 999), testtable.IDInt: int32(n + 999), testtable.IDLong: int64(n + 999), testtable.IDDouble: float64(n) + 0.5,
		testtable.IDString: fmt.Sprintf("z%06d", n), testtable.IDDate: int32(18001 + n%1000), testtable.IDTimestamp: int64(n+1) * 1e6,
		testtable.IDTimestamptz: int64(n+1) * 1e6, testtable.IDDecimal: iceberg.Decimal{Lo: uint64(n + 99)}, testtable.IDWideDecimal: iceberg.Decimal{Lo: uint64(n + 99)},
		testtable.IDBool: true,
	}
	for _, f := range schema.Fields {
		m.ColumnSizes[f.ID] = int64(4000 + n%13)
		m.ValueCounts[f.ID] = 1000
		m.NullValueCounts[f.ID] = int64(n % 3)
		if f.ID == testtable.IDDouble {
			m.NaNValueCounts[f.ID] = 0
		}
		var err error
		if m.LowerBounds[f.ID], err = iceberg.ValueToBytes(f.Type, lo[f.ID]); err != nil {
			b.Fatal(err)
		}
		if m.UpperBounds[f.ID], err = iceberg.ValueToBytes(f.Type, hi[f.ID]); err != nil {
			b.Fatal(err)
		}
	}
	return manifest.MetricsOf(m)
}

// BenchmarkFilesEntries reads the files and entries tables of 100,000
// files whole, and files with only cheap columns, batch by batch.
func BenchmarkFilesEntries(b *testing.B) {
	ctx := context.Background()
	tbl := benchFilesTable(b)
	for _, c := range []struct {
		name string
		kind Kind
		opts Options
	}{
		{"files", Files, Options{}},
		{"entries", Entries, Options{}},
		{"files-paths", Files, Options{Columns: []string{"file_path", "record_count"}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				rr, err := Open(ctx, tbl, c.kind, c.opts, nil)
				if err != nil {
					b.Fatal(err)
				}
				rows := 0
				for rr.Next() {
					rows += int(rr.RecordBatch().NumRows())
				}
				if err := rr.Err(); err != nil {
					b.Fatal(err)
				}
				rr.Release()
				if rows != 100_000 {
					b.Fatalf("%d rows", rows)
				}
			}
		})
	}
}
