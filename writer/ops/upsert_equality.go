package ops

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/kernels"
	"github.com/floedb/floe/writer"
	"github.com/google/uuid"
)

// eqDeleteGroup is the replaced keys whose old rows lie in one partition
// (spec and tuple): they go into one equality delete file of it.
type eqDeleteGroup struct {
	key       string
	spec      int
	partition []any
	rows      []int // input rows, ascending, each once
}

// writeEqualityDeletes deletes the replaced rows by key: one equality
// delete file per partition holding replaced rows, in that partition's
// spec and tuple, holding the keys of the rows replaced there.
//
// An equality delete of a partitioned spec reaches only data files of
// its spec and tuple, so the file goes where the old rows lie (the
// matching scan knows each one's data file), not where the new row is
// written: a key whose new row moves to another partition is still
// deleted in its old one, and a key the table held in two partitions is
// deleted in both. An unpartitioned spec's file reaches every partition,
// as it must. Only the key columns are written and compared (equality
// ids are the keys): the partition needs no column of its own. The new
// rows, committed in the same snapshot, share its data sequence number
// and an equality delete reaches only data of a lower one, so they
// survive even in the partition their old rows left; every live row of a
// replaced key was matched, so nothing else older is deleted.
func (u *upsertRun) writeEqualityDeletes(ctx context.Context, tbl *table.Table, schema *iceberg.Schema) ([]manifest.DataFile, error) {
	groups, err := u.equalityGroups()
	if err != nil || len(groups) == 0 {
		return nil, err
	}
	ids := make([]int, len(u.keys))
	for i, k := range u.keys {
		ids[i] = k.ID
	}
	keySchema := iceberg.NewSchema(schema.ID, slices.Clone(u.keys))
	opts := u.c.wopts
	opts.SortOrderID, opts.SortOrder, opts.RowOrder = nil, nil, nil
	out := make([]manifest.DataFile, len(groups))
	errs := make([]error, len(groups))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, u.c.threads))
	for i, g := range groups {
		dir, err := u.c.partitionDir(g.spec, g.partition)
		if err != nil {
			errs[i] = err
			break
		}
		path := fileio.JoinPath(u.c.dataLoc, dir, "00000-0-"+uuid.NewString()+"-eq-deletes.parquet")
		u.c.w.add(path)
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i], errs[i] = u.writeEqualityFile(ctx, tbl, path, keySchema, opts, g)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("equality deletes of %s: %w", path, errs[i])
				return
			}
			out[i].Content = manifest.ContentEqualityDeletes
			out[i].EqualityIDs = slices.Clone(ids)
			out[i].SpecID, out[i].Partition = g.spec, slices.Clone(g.partition)
			out[i].SortOrderID = nil
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// equalityGroups gathers the replaced input rows by the partition of each
// live row they replace, in partition order, and counts the rows
// deleted.
func (u *upsertRun) equalityGroups() ([]*eqDeleteGroup, error) {
	files := make(map[string]*table.DataFileTask, len(u.plan.Partial))
	for i := range u.plan.Partial {
		files[u.plan.Partial[i].File.FilePath] = &u.plan.Partial[i]
	}
	byKey := map[string]*eqDeleteGroup{}
	for path, ms := range u.matches {
		dt := files[path]
		if dt == nil {
			return nil, fmt.Errorf("rows matched in %s, which the plan does not hold", path)
		}
		var g *eqDeleteGroup
		for _, m := range ms {
			if !u.replaces(int(m.row)) {
				continue
			}
			if g == nil {
				key := table.PartitionKey(dt.File.SpecID, dt.File.Partition)
				if g = byKey[key]; g == nil {
					g = &eqDeleteGroup{key: key, spec: dt.File.SpecID, partition: dt.File.Partition}
					byKey[key] = g
				}
			}
			g.rows = append(g.rows, int(m.row))
			u.c.deleted++
		}
	}
	groups := make([]*eqDeleteGroup, 0, len(byKey))
	for _, g := range byKey {
		// A key held twice in one partition is written once.
		slices.Sort(g.rows)
		g.rows = slices.Compact(g.rows)
		groups = append(groups, g)
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].key < groups[j].key })
	return groups, nil
}

// writeEqualityFile writes one group's keys as the file at path.
func (u *upsertRun) writeEqualityFile(ctx context.Context, tbl *table.Table, path string, keySchema *iceberg.Schema, opts writer.Options, g *eqDeleteGroup) (manifest.DataFile, error) {
	recs, err := u.in.keyRows(g.rows)
	if err != nil {
		return manifest.DataFile{}, err
	}
	defer releaseAll(recs)
	fw, err := writer.NewFileWriter(ctx, tbl.IO, path, keySchema, opts)
	if err != nil {
		return manifest.DataFile{}, err
	}
	for _, rec := range recs {
		if err := fw.Write(rec); err != nil {
			_ = fw.Abort()
			return manifest.DataFile{}, err
		}
	}
	df, err := fw.Close()
	if err != nil {
		_ = fw.Abort()
		return manifest.DataFile{}, err
	}
	if df.RecordCount != int64(len(g.rows)) {
		_ = fw.Abort()
		return manifest.DataFile{}, fmt.Errorf("%d keys written, %d given", df.RecordCount, len(g.rows))
	}
	return df, nil
}

// keyRows returns the key columns of the given input rows (ascending
// global row numbers), one batch per input batch they fall in.
func (in *upsertInput) keyRows(rows []int) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	idx := make([]int32, 0, len(rows))
	for start := 0; start < len(rows); {
		b, _ := in.local(rows[start])
		end := start + sort.SearchInts(rows[start:], in.starts[b+1])
		idx = idx[:0]
		for _, g := range rows[start:end] {
			idx = append(idx, int32(g-in.starts[b]))
		}
		rec, err := in.takeKeys(b, idx)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, rec)
		start = end
	}
	return out, nil
}

// takeKeys is batch b's key columns at idx, as a batch.
func (in *upsertInput) takeKeys(b int, idx []int32) (arrow.RecordBatch, error) {
	rec := in.batches[b]
	fields := make([]arrow.Field, len(in.keyCols))
	cols := make([]arrow.Array, 0, len(in.keyCols))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for i, c := range in.keyCols {
		fields[i] = rec.Schema().Field(c)
		col, err := kernels.Take(rec.Column(c), idx, memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	meta := rec.Schema().Metadata()
	return array.NewRecordBatch(arrow.NewSchema(fields, &meta), cols, int64(len(idx))), nil
}
