package inspect

import "github.com/floedb/floe/iceberg/manifest"

// metricPairs are one file's metrics as pairs, walked out of the compact
// manifest.Metrics once per row and shared by the columns that show them:
// the six metric maps and readable_metrics would otherwise each walk the
// encoding again. The slices are reused from row to row.
//
// The columns of a row are appended in the order their appenders were
// made (reader.appendItem), so the first appender made that shows metrics
// (the leader) walks them for each row and the others read what it
// walked; they check it is their row's file, and walk it themselves if
// not.
type metricPairs struct {
	df     *manifest.DataFile // whose pairs these are
	leader bool               // a leader was chosen
	// countIDs[k], counts[k]: kind k's ascending field ids and values
	// (column_sizes, value_counts, null_value_counts, nan_value_counts).
	countIDs [4][]int32
	counts   [4][]int64
	// boundIDs[k], bounds[k]: lower (0) and upper (1) bounds, the bytes
	// the manifest's (not to be modified).
	boundIDs [2][]int32
	bounds   [2][][]byte
}

// user registers an appender that reads the pairs; the first is the
// leader.
func (p *metricPairs) user() (leader bool) {
	if p.leader {
		return false
	}
	p.leader = true
	return true
}

// of is df's pairs: walked afresh by the leader, or when df is not the
// file walked last.
func (p *metricPairs) of(df *manifest.DataFile, leader bool) *metricPairs {
	if leader || p.df != df {
		p.walk(df.Metrics)
		p.df = df
	}
	return p
}

func (p *metricPairs) walk(m manifest.Metrics) {
	for k := range p.countIDs {
		p.countIDs[k], p.counts[k] = p.countIDs[k][:0], p.counts[k][:0]
	}
	for k := range p.boundIDs {
		p.boundIDs[k], p.bounds[k] = p.boundIDs[k][:0], p.bounds[k][:0]
	}
	// Each kind through its own method called in place, so the iterator
	// is inlined and the loop allocates nothing.
	for id, v := range m.ColumnSizes() {
		p.addCount(0, id, v)
	}
	for id, v := range m.ValueCounts() {
		p.addCount(1, id, v)
	}
	for id, v := range m.NullCounts() {
		p.addCount(2, id, v)
	}
	for id, v := range m.NaNCounts() {
		p.addCount(3, id, v)
	}
	for id, v := range m.LowerBounds() {
		p.addBound(0, id, v)
	}
	for id, v := range m.UpperBounds() {
		p.addBound(1, id, v)
	}
}

func (p *metricPairs) addCount(k, id int, v int64) {
	p.countIDs[k] = append(p.countIDs[k], int32(id))
	p.counts[k] = append(p.counts[k], v)
}

func (p *metricPairs) addBound(k, id int, v []byte) {
	p.boundIDs[k] = append(p.boundIDs[k], int32(id))
	p.bounds[k] = append(p.bounds[k], v)
}
