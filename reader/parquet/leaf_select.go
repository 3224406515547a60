package parquet

import "github.com/floedb/floe/kernels"

// readSelected decodes, of the next n rows of a flat column, those whose
// bit is set in keep (kept of them), skipping the values of the others so
// they are never gathered or copied: the payload half of late
// materialisation.
func (l *LeafReader) readSelected(keep []byte, n, kept int) error {
	if err := l.chunk.ensureLoaded(); err != nil {
		return err
	}
	if l.rowPos < l.chunk.skippedRows {
		return l.errorf("rows %d..%d were left out of the read", l.rowPos, l.chunk.skippedRows)
	}
	l.defs, l.reps = l.defs[:0], l.reps[:0]
	l.out.begin(kept)
	done := 0
	// Rows past the last kept one need not be decompressed (page_prefix.go).
	need := selectedPrefix(keep, n)
	left := func(from int) int {
		if need == 0 {
			return 0
		}
		return need - from
	}
	err := kernels.SetRuns(keep, n, func(start, end int) error {
		if start > done {
			l.prefixLeft = left(done)
			if err := l.skipRows(start - done); err != nil {
				return err
			}
		}
		l.prefixLeft = left(start)
		if err := l.readFlat(end - start); err != nil {
			return err
		}
		done = end
		return nil
	})
	l.prefixLeft = 0
	// Rows after the last selected one are skipped by the next window's
	// skipTo, so pages holding none of them stay compressed.
	l.rowPos += int64(done)
	return err
}
