package inspect

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/manifest"
)

// The columnar form of readable_metrics (columnar.go): a file's metrics
// gathered for every column in one walk of each kind's pairs (they
// ascend by field id, as the columns taken in id order do), then
// appended into the struct's builders, the bounds decoded straight into
// their typed builders; the same values readableMetrics.value gives.

// columnMetrics are one column's metrics of one file.
type columnMetrics struct {
	counts       [4]int64 // column_size, value_count, null_value_count, nan_value_count
	has          [4]bool
	lower, upper []byte
	hasLower     bool
	hasUpper     bool
}

// appender appends a file's readable_metrics to b, the column's struct
// builder, from the file's metric pairs (l.pairs); the counts are held
// until the batch ends (l.end). The scratch it gathers into is reused
// from file to file.
func (rm *readableMetrics) appender(b array.Builder, l *fileRead) (func(df *manifest.DataFile) error, error) {
	sb, err := builderAs[*array.StructBuilder](b, rm.field.Name)
	if err != nil {
		return nil, err
	}
	n := len(rm.cols)
	// byID[j] is the column (index in rm.cols) of the j-th smallest id.
	byID := make([]int, n)
	for i := range byID {
		byID[i] = i
	}
	slices.SortFunc(byID, func(a, b int) int { return rm.cols[a].id - rm.cols[b].id })
	ids := make([]int32, n)
	for j, i := range byID {
		ids[j] = int32(rm.cols[i].id)
	}
	type colBuilders struct {
		sb           *array.StructBuilder
		counts       [4]heldInt64s
		lower, upper func(raw []byte) error
	}
	cols := make([]colBuilders, n)
	for i, c := range rm.cols {
		name := rm.field.Type.(*iceberg.StructType).Fields[i].Name
		cb := &cols[i]
		if cb.sb, err = builderAs[*array.StructBuilder](sb.FieldBuilder(i), name); err != nil {
			return nil, err
		}
		for k := range cb.counts {
			if cb.counts[k].b, err = builderAs[*array.Int64Builder](cb.sb.FieldBuilder(k), name); err != nil {
				return nil, err
			}
			l.end.add(cb.counts[k].flush)
		}
		if cb.lower, err = rm.boundAppender(c, cb.sb.FieldBuilder(4)); err != nil {
			return nil, err
		}
		if cb.upper, err = rm.boundAppender(c, cb.sb.FieldBuilder(5)); err != nil {
			return nil, err
		}
	}
	g := &metricsGather{ids: ids, byID: byID, got: make([]columnMetrics, n)}
	got := g.got
	p := &l.pairs
	leader := p.user()
	return func(df *manifest.DataFile) error {
		g.gather(p.of(df, leader))
		sb.Append(true)
		for i := range cols {
			cb, c := &cols[i], &got[i]
			cb.sb.Append(true)
			for k := range cb.counts {
				cb.counts[k].add(c.counts[k], c.has[k])
			}
			if err := appendBound(cb.sb.FieldBuilder(4), cb.lower, c.lower, c.hasLower); err != nil {
				return err
			}
			if err := appendBound(cb.sb.FieldBuilder(5), cb.upper, c.upper, c.hasUpper); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// metricsGather sorts a file's metric pairs into its columns: each
// kind's pairs ascend by field id, so one walk of each against the
// columns' ids in ascending order finds them all.
type metricsGather struct {
	ids  []int32 // the columns' field ids, ascending
	byID []int   // byID[j]: the column (index in got) of ids[j]
	got  []columnMetrics
}

func (g *metricsGather) gather(p *metricPairs) {
	clear(g.got)
	for k := range p.countIDs {
		vals := p.counts[k]
		g.merge(p.countIDs[k], func(c *columnMetrics, i int) { c.counts[k], c.has[k] = vals[i], true })
	}
	lower, upper := p.bounds[0], p.bounds[1]
	g.merge(p.boundIDs[0], func(c *columnMetrics, i int) { c.lower, c.hasLower = lower[i], true })
	g.merge(p.boundIDs[1], func(c *columnMetrics, i int) { c.upper, c.hasUpper = upper[i], true })
}

// merge calls set with the column of each of ids (ascending) that is a
// column's, and the id's index; ids of no column (a column dropped since,
// or not primitive) are passed over.
func (g *metricsGather) merge(ids []int32, set func(c *columnMetrics, i int)) {
	j := 0
	for i, id := range ids {
		for j < len(g.ids) && g.ids[j] < id {
			j++
		}
		if j == len(g.ids) {
			return
		}
		if g.ids[j] == id {
			set(&g.got[g.byID[j]], i)
		}
	}
}

func appendBound(b array.Builder, app func([]byte) error, raw []byte, has bool) error {
	if !has {
		b.AppendNull()
		return nil
	}
	return app(raw)
}

// boundAppender appends a bound of column c decoded into b. The common
// types, at their usual widths, are decoded here; anything else (other
// widths, uuids, fixed) goes through readableMetrics.bound and
// AppendValue, the row form's decoding.
func (rm *readableMetrics) boundAppender(c readableColumn, b array.Builder) (func(raw []byte) error, error) {
	if !c.decode {
		bb, err := builderAs[*array.BinaryBuilder](b, "bound")
		return func(raw []byte) error { bb.Append(raw); return nil }, err
	}
	return arrowschema.BinaryAppender(b, c.bound)
}
