package scan

import "github.com/floedb/floe/reader/parquet"

// readAhead starts fetching the next row group's column chunks while the
// current one decodes, within the file's read-ahead budget. It is only
// done when every byte of them will be read: with a filter, pruning may
// skip pages or the whole group, and with a limit decoding may stop.
func (r *taskReader) readAhead(leaves []*parquet.LeafReader) {
	next := r.rowGroup + 1
	if r.filter != nil || r.remaining >= 0 || next >= len(r.file.RowGroups) {
		return
	}
	rg := &r.file.RowGroups[next]
	if !r.task.readsRowGroup(rg) {
		return // another split's
	}
	nextStart := r.rgStart + r.file.RowGroups[r.rowGroup].NumRows
	if r.deletes.deletedIn(nextStart, nextStart+rg.NumRows) == rg.NumRows {
		return
	}
	ranges := make([]parquet.ByteRange, 0, len(leaves))
	for _, l := range leaves {
		c := &rg.Columns[l.Node.Leaf]
		ranges = append(ranges, parquet.ByteRange{Off: c.Start(), Size: c.TotalCompressedSize})
	}
	r.file.Prefetch(ranges, next, false, true)
}
