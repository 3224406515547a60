package maintain

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/parquet"
)

// maxPartitionStatsFile caps the partition statistics file read back (a
// row per partition: a million partitions are some tens of MiB).
const maxPartitionStatsFile = 512 << 20

// ReadPartitionStatistics reads a partition statistics file (any
// writer's, v2 or v3 schema) with floe's Parquet reader, columns by
// field id: the partition tuple in the table's current partition type
// (iceberg.PartitionStatsType; fields the file lacks are null), delete
// counts a v2 file left null as 0, no dv_count as 0. A file whose
// columns do not have the spec's types, or whose spec ids the table does
// not have, is Corrupt.
func ReadPartitionStatistics(ctx context.Context, t *table.Table, path string) ([]*PartitionStats, error) {
	unified, err := t.UnifiedPartitionType()
	if err != nil {
		return nil, err
	}
	partType := iceberg.PartitionStatsType(unified)
	data, err := t.IO.ReadFile(ctx, path)
	if err != nil {
		return nil, err
	}
	if len(data) > maxPartitionStatsFile {
		return nil, errkind.Errorf(errkind.Corrupt, "partition statistics file %s: %d bytes, more than %d", path, len(data), maxPartitionStatsFile)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		return nil, fmt.Errorf("partition statistics file %s: %w", path, err)
	}
	rows, err := readPartitionStats(pf, partType)
	if err != nil {
		return nil, errkind.Default(errkind.Corrupt, fmt.Errorf("partition statistics file %s: %w", path, err))
	}
	specs := map[int32]bool{}
	for _, s := range t.Metadata.PartitionSpecs {
		specs[int32(s.ID)] = true
	}
	for _, p := range rows {
		if !specs[p.SpecID] {
			return nil, errkind.Errorf(errkind.Corrupt, "partition statistics file %s: a row of partition spec %d, which the table does not have", path, p.SpecID)
		}
	}
	return rows, nil
}

// statsColumnRead is one column read from the file: the schema's field
// and, when the file has it, the node holding it.
type statsColumnRead struct {
	field iceberg.NestedField
	node  *parquet.Node
}

func readPartitionStats(pf *parquet.File, partType *iceberg.StructType) ([]*PartitionStats, error) {
	schema, err := iceberg.PartitionStatsSchema(partType, 3)
	if err != nil {
		return nil, err
	}
	// The counts and dates (every field but partition), then one column
	// per partition field: leaves read alone, so a field the file lacks
	// (a spec added since it was written) is simply null.
	var cols []statsColumnRead
	for _, f := range schema.Fields[1:] {
		cols = append(cols, statsColumnRead{field: f, node: pf.NodeByFieldID(int32(f.ID))})
	}
	for _, f := range partType.Fields {
		cols = append(cols, statsColumnRead{field: f, node: pf.NodeByFieldID(int32(f.ID))})
	}
	var req []parquet.Column
	var at []int // index into req per column, -1 when absent
	for _, c := range cols {
		if c.node == nil {
			switch c.field.ID {
			case iceberg.PartitionStatsSpecID, iceberg.PartitionStatsDataRecordCount, iceberg.PartitionStatsDataFileCount, iceberg.PartitionStatsTotalDataFileSize:
				return nil, fmt.Errorf("no column %s (field id %d)", c.field.Name, c.field.ID)
			}
			at = append(at, -1)
			continue
		}
		dt, err := arrowschema.ArrowType(c.field.Type)
		if err != nil {
			return nil, err
		}
		at = append(at, len(req))
		req = append(req, parquet.Column{Node: c.node, Type: dt})
	}
	var out []*PartitionStats
	for rg := range pf.RowGroups {
		br, err := pf.NewBatchReader(parquet.ReadRequest{Columns: req, RowGroup: rg})
		if err != nil {
			return nil, err
		}
		for {
			batch, err := br.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				br.Close()
				return nil, err
			}
			for i := 0; i < batch.NumRows; i++ {
				p, err := partitionStatsAt(batch.Columns, cols, at, len(schema.Fields)-1, i)
				if err != nil {
					batch.Release()
					br.Close()
					return nil, err
				}
				out = append(out, p)
			}
			batch.Release()
		}
		br.Close()
	}
	return out, nil
}

// partitionStatsAt is row i: counts from the first nCounts columns, the
// partition from the rest.
func partitionStatsAt(arrays []arrow.Array, cols []statsColumnRead, at []int, nCounts, i int) (*PartitionStats, error) {
	vals := make([]any, len(cols))
	for c := range cols {
		if at[c] < 0 {
			continue
		}
		v, err := arrowschema.ValueAt(arrays[at[c]], i, cols[c].field.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", cols[c].field.Name, err)
		}
		vals[c] = v
	}
	long := func(c int) int64 {
		v, _ := vals[c].(int64)
		return v
	}
	int_ := func(c int) int32 {
		v, _ := vals[c].(int32)
		return v
	}
	opt := func(c int) *int64 {
		if v, ok := vals[c].(int64); ok {
			return &v
		}
		return nil
	}
	if vals[0] == nil {
		return nil, fmt.Errorf("row %d has no spec_id", i)
	}
	// Positions follow PartitionStatsSchema's fields after partition.
	p := &PartitionStats{
		SpecID: int_(0), DataRecordCount: long(1), DataFileCount: int_(2), TotalDataFileSize: long(3),
		PositionDeleteRecordCount: long(4), PositionDeleteFileCount: int_(5),
		EqualityDeleteRecordCount: long(6), EqualityDeleteFileCount: int_(7),
		TotalRecordCount: opt(8), LastUpdatedAt: opt(9), LastUpdatedSnapshotID: opt(10), DVCount: int_(11),
		Partition: vals[nCounts:],
	}
	if p.LastUpdatedAt == nil || p.LastUpdatedSnapshotID == nil {
		p.LastUpdatedAt, p.LastUpdatedSnapshotID = nil, nil
	}
	return p, nil
}
