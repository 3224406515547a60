package parquet

import "github.com/floedb/floe/kernels"

// RowSelection is the rows of one batch window a caller wants decoded,
// prepared once and shared by every column of the window: the kept rows
// as a bitmap and as ascending indices, and how they fall into runs.
//
// The run count picks the decoding strategy. A few long runs are decoded
// run by run, skipping the values (and whole pages) between them. Many
// short runs (a tenth of the rows deleted at random, say) would cost a
// skip and a resumed decode each, so the window's pages are walked once
// instead, copying only the kept values into the output.
type RowSelection struct {
	keep    []byte
	sel     kernels.Selection
	fewRuns bool
}

// minRowsPerRun is how many window rows each run of kept rows must stand
// for, on average, for run-by-run decoding to pay.
const minRowsPerRun = 16

// Set prepares the selection of the rows of an n-row window whose bit is
// set in keep (LSB order). keep is used, not copied, and must not change
// while the selection is in use; index storage is reused across calls.
func (s *RowSelection) Set(keep []byte, n int) error {
	if err := s.sel.SetBitmap(keep, 0, n); err != nil {
		return err
	}
	s.keep = keep
	s.fewRuns = kernels.CountRuns(keep, n)*minRowsPerRun <= n
	return nil
}

// Rows is the window's row count; Kept how many of them are selected.
func (s *RowSelection) Rows() int { return s.sel.Rows() }
func (s *RowSelection) Kept() int { return s.sel.Len() }

// Selection is the kept rows as a kernels.Selection, for cutting down a
// column that was decoded whole.
func (s *RowSelection) Selection() kernels.Selection { return s.sel }

// indices are the kept rows, ascending; nil when every row is kept.
func (s *RowSelection) indices() []int32 {
	if s.sel.All() {
		return nil
	}
	return s.sel.Indices()
}
