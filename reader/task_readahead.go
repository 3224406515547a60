package reader

// readAhead starts fetching the next row group's column chunks while the
// current one decodes, within the file's read-ahead budget. It is only
// done when every byte of them will be read: with a filter, pruning may
// skip pages or the whole group, and with a limit decoding may stop.
func (r *taskReader) readAhead(leaves []*leafReader) {
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
	ranges := make([]byteRange, 0, len(leaves))
	for _, l := range leaves {
		c := &rg.Columns[l.node.Leaf]
		ranges = append(ranges, byteRange{c.Start(), c.TotalCompressedSize})
	}
	r.file.prefetch(ranges, next, false, true)
}
