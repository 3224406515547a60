package lineitem

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// FilterRow is the part of a generated row the benchmark's filters test.
type FilterRow struct {
	OrderKey, PartKey int64
}

// ExpectedWhere replays the generator (files in parallel) and returns, for
// each predicate, how many rows it keeps and their sum of l_partkey: what
// a filtered scan must return, worked out without reading the files.
func ExpectedWhere(p Params, preds ...func(FilterRow) bool) ([]Expected, error) {
	if err := p.validate(); err != nil {
		return nil, fmt.Errorf("lineitem: %w", err)
	}
	perFile := make([][]Expected, p.Files)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), p.Files) {
		wg.Go(func() {
			var cols columns
			for i := range next {
				first, end := fileRows(p, i)
				g := newGenerator(p.Seed, i, first, p.Rows)
				g.fill(&cols, int(end-first))
				out := make([]Expected, len(preds))
				for r := range cols.orderKey {
					row := FilterRow{OrderKey: cols.orderKey[r], PartKey: cols.partKey[r]}
					for k, keep := range preds {
						if keep(row) {
							out[k].Rows++
							out[k].SumPartKey += row.PartKey
						}
					}
				}
				perFile[i] = out
			}
		})
	}
	for i := range p.Files {
		next <- i
	}
	close(next)
	wg.Wait()
	total := make([]Expected, len(preds))
	for _, out := range perFile {
		if out == nil {
			return nil, errors.New("lineitem: a file was not replayed")
		}
		for k := range total {
			total[k].Rows += out[k].Rows
			total[k].SumPartKey += out[k].SumPartKey
		}
	}
	return total, nil
}

// fileRows is the range of global row indexes file i holds.
func fileRows(p Params, i int) (first, end int64) {
	return int64(i) * p.Rows / int64(p.Files), int64(i+1) * p.Rows / int64(p.Files)
}

// ClusteredOrderKeys picks an l_orderkey range [lo, hi) holding about
// fraction of the table's rows, in the middle of the second row group of
// the middle file (the first when there is one row group): l_orderkey
// ascends through the files, so its rows are contiguous there, and a
// reader that uses statistics and page indexes can skip everything else.
func ClusteredOrderKeys(p Params, fraction float64) (lo, hi int64, err error) {
	if err := p.validate(); err != nil {
		return 0, 0, fmt.Errorf("lineitem: %w", err)
	}
	file := p.Files / 2
	first, end := fileRows(p, file)
	n := end - first
	var cols columns
	newGenerator(p.Seed, file, first, p.Rows).fill(&cols, int(n))
	group := min(1, p.RowGroupsPerFile-1)
	groupStart := int64(group) * n / int64(p.RowGroupsPerFile)
	groupEnd := int64(group+1) * n / int64(p.RowGroupsPerFile)
	want := max(1, int64(fraction*float64(p.Rows)))
	want = min(want, groupEnd-groupStart-1)
	start := groupStart + (groupEnd-groupStart-want)/2
	return cols.orderKey[start], cols.orderKey[start+want], nil
}
