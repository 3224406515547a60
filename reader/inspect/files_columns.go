package inspect

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/manifest"
)

// The columnar form of dataFileFields (columnar.go): each column of a
// content file appended from manifest.DataFile straight into its typed
// builder, the same values fileLayout.row gives.

// fileAppender appends one column of a content file.
type fileAppender func(df *manifest.DataFile) error

// fileRead is one read's appenders' state: the current file's metric
// pairs, and what they do when a batch ends.
type fileRead struct {
	*fileLayout
	pairs metricPairs
	end   batchEnd
}

func (l *fileLayout) newRead() *fileRead { return &fileRead{fileLayout: l} }

// appender is the appender of f, one of dataFileFields, into b.
func (l *fileRead) appender(f iceberg.NestedField, b array.Builder) (fileAppender, error) {
	switch f.ID {
	case 134: // content
		return int32Column(b, f.Name, func(df *manifest.DataFile) int32 { return int32(df.Content) })
	case 141: // spec_id
		return int32Column(b, f.Name, func(df *manifest.DataFile) int32 { return int32(df.SpecID) })
	case 100: // file_path
		sb, err := builderAs[*array.StringBuilder](b, f.Name)
		return func(df *manifest.DataFile) error { sb.Append(df.FilePath); return nil }, err
	case 101: // file_format: Java shows it as its enum names it; writers spell it either way.
		sb, err := builderAs[*array.StringBuilder](b, f.Name)
		return func(df *manifest.DataFile) error { sb.Append(strings.ToUpper(df.FileFormat)); return nil }, err
	case 102:
		return l.partitionAppender(b)
	case 103: // record_count
		return int64Column(b, f.Name, func(df *manifest.DataFile) int64 { return df.RecordCount })
	case 104: // file_size_in_bytes
		return int64Column(b, f.Name, func(df *manifest.DataFile) int64 { return df.FileSizeInBytes })
	case 108:
		return countMapColumn(b, f.Name, l, 0)
	case 109:
		return countMapColumn(b, f.Name, l, 1)
	case 110:
		return countMapColumn(b, f.Name, l, 2)
	case 137:
		return countMapColumn(b, f.Name, l, 3)
	case 125:
		return boundMapColumn(b, f.Name, l, 0)
	case 128:
		return boundMapColumn(b, f.Name, l, 1)
	case 131: // key_metadata
		bb, err := builderAs[*array.BinaryBuilder](b, f.Name)
		return func(df *manifest.DataFile) error {
			if len(df.KeyMetadata) == 0 {
				bb.AppendNull()
			} else {
				bb.Append(df.KeyMetadata)
			}
			return nil
		}, err
	case 132: // split_offsets
		lb, err := builderAs[*array.ListBuilder](b, f.Name)
		if err != nil {
			return nil, err
		}
		vb, err := builderAs[*array.Int64Builder](lb.ValueBuilder(), f.Name)
		return func(df *manifest.DataFile) error {
			if len(df.SplitOffsets) == 0 {
				lb.AppendNull()
				return nil
			}
			lb.Append(true)
			vb.AppendValues(df.SplitOffsets, nil)
			return nil
		}, err
	case 135: // equality_ids
		lb, err := builderAs[*array.ListBuilder](b, f.Name)
		if err != nil {
			return nil, err
		}
		vb, err := builderAs[*array.Int32Builder](lb.ValueBuilder(), f.Name)
		return func(df *manifest.DataFile) error {
			if len(df.EqualityIDs) == 0 {
				lb.AppendNull()
				return nil
			}
			lb.Append(true)
			for _, id := range df.EqualityIDs {
				vb.Append(int32(id))
			}
			return nil
		}, err
	case 140: // sort_order_id
		ib, err := builderAs[*array.Int32Builder](b, f.Name)
		return func(df *manifest.DataFile) error {
			if df.SortOrderID == nil {
				ib.AppendNull()
			} else {
				ib.Append(int32(*df.SortOrderID))
			}
			return nil
		}, err
	case 142:
		return optInt64Column(b, f.Name, func(df *manifest.DataFile) *int64 { return df.FirstRowID })
	case 143: // referenced_data_file
		sb, err := builderAs[*array.StringBuilder](b, f.Name)
		return func(df *manifest.DataFile) error {
			if df.ReferencedDataFile == "" {
				sb.AppendNull()
			} else {
				sb.Append(df.ReferencedDataFile)
			}
			return nil
		}, err
	case 144:
		return optInt64Column(b, f.Name, func(df *manifest.DataFile) *int64 { return df.ContentOffset })
	case 145:
		return optInt64Column(b, f.Name, func(df *manifest.DataFile) *int64 { return df.ContentSizeInBytes })
	}
	return nil, fmt.Errorf("column %s: no appender for field %d", f.Name, f.ID)
}

// structAppender appends a content file as the data_file struct of the
// entries tables, every field of dataFileFields.
func (l *fileRead) structAppender(fields []iceberg.NestedField, b array.Builder, column string) (fileAppender, error) {
	sb, err := builderAs[*array.StructBuilder](b, column)
	if err != nil {
		return nil, err
	}
	apps := make([]fileAppender, len(fields))
	for i, f := range fields {
		if apps[i], err = l.appender(f, sb.FieldBuilder(i)); err != nil {
			return nil, err
		}
	}
	return func(df *manifest.DataFile) error {
		sb.Append(true)
		for _, a := range apps {
			if err := a(df); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// partitionAppender appends df's tuple in the unified partition struct,
// the fields of other specs null (as fileLayout.partition). Partition
// values arrive as canonical values already, a few per file, so they go
// through AppendValue.
func (l *fileRead) partitionAppender(b array.Builder) (fileAppender, error) {
	sb, err := builderAs[*array.StructBuilder](b, "partition")
	if err != nil {
		return nil, err
	}
	fields := l.partType.Fields
	vals := make([]any, len(fields))
	return func(df *manifest.DataFile) error {
		clear(vals)
		if slots := l.slots[df.SpecID]; len(slots) == len(df.Partition) {
			for i, v := range df.Partition {
				vals[slots[i]] = v
			}
		}
		sb.Append(true)
		for i, f := range fields {
			if err := arrowschema.AppendValue(sb.FieldBuilder(i), f.Type, vals[i]); err != nil {
				return fmt.Errorf("partition.%s: %w", f.Name, err)
			}
		}
		return nil
	}, nil
}

func int32Column(b array.Builder, name string, get func(*manifest.DataFile) int32) (fileAppender, error) {
	ib, err := builderAs[*array.Int32Builder](b, name)
	return func(df *manifest.DataFile) error { ib.Append(get(df)); return nil }, err
}

func int64Column(b array.Builder, name string, get func(*manifest.DataFile) int64) (fileAppender, error) {
	ib, err := builderAs[*array.Int64Builder](b, name)
	return func(df *manifest.DataFile) error { ib.Append(get(df)); return nil }, err
}

func optInt64Column(b array.Builder, name string, get func(*manifest.DataFile) *int64) (fileAppender, error) {
	ib, err := builderAs[*array.Int64Builder](b, name)
	return func(df *manifest.DataFile) error {
		if p := get(df); p != nil {
			ib.Append(*p)
		} else {
			ib.AppendNull()
		}
		return nil
	}, err
}

// metricMapColumn appends one kind of metric as a map<int, V> (kind k of
// metricPairs' counts or bounds, as countMap and boundMap): null when the
// file has none of that kind. A batch's maps are held back and appended
// whole when it ends (the map builder's calls per map cost more than the
// copying).
func metricMapColumn[V any, B interface {
	array.Builder
	AppendValues([]V, []bool)
}](b array.Builder, name string, l *fileRead, pairs func(*metricPairs) ([]int32, []V)) (fileAppender, error) {
	mb, err := builderAs[*array.MapBuilder](b, name)
	if err != nil {
		return nil, err
	}
	h := &heldMaps[V, B]{mb: mb}
	if h.kb, err = builderAs[*array.Int32Builder](mb.KeyBuilder(), name); err != nil {
		return nil, err
	}
	if h.vb, err = builderAs[B](mb.ItemBuilder(), name); err != nil {
		return nil, err
	}
	l.end.add(h.flush)
	p := &l.pairs
	leader := p.user()
	return func(df *manifest.DataFile) error {
		ids, vals := pairs(p.of(df, leader))
		h.add(ids, vals)
		return nil
	}, nil
}

// heldMaps holds a batch of a map<int, V> column's values.
type heldMaps[V any, B interface {
	array.Builder
	AppendValues([]V, []bool)
}] struct {
	mb      *array.MapBuilder
	kb      *array.Int32Builder
	vb      B
	offsets []int32 // each map's first pair in keys
	valid   []bool
	keys    []int32
	vals    []V
	trues   []bool // all true, for the pairs' struct slots
}

// add holds a map of ids and vals, null when it has none.
func (h *heldMaps[V, B]) add(ids []int32, vals []V) {
	h.offsets = append(h.offsets, int32(len(h.keys)))
	h.valid = append(h.valid, len(ids) > 0)
	h.keys = append(h.keys, ids...)
	h.vals = append(h.vals, vals...)
}

func (h *heldMaps[V, B]) flush() {
	if len(h.offsets) == 0 {
		return
	}
	// Offsets count from the pairs already in the builder.
	if base := int32(h.kb.Len()); base != 0 {
		for i := range h.offsets {
			h.offsets[i] += base
		}
	}
	// The pairs' struct slots first: the map builder would add them
	// after the keys, reserving the key and item builders as much again.
	if sb, ok := h.mb.ValueBuilder().(*array.StructBuilder); ok {
		h.trues = growTrues(h.trues, len(h.keys))
		sb.AppendValues(h.trues[:len(h.keys)])
	}
	if bb, ok := any(h.vb).(*array.BinaryBuilder); ok {
		n := 0
		for _, v := range any(h.vals).([][]byte) {
			n += len(v)
		}
		bb.ReserveData(n)
	}
	h.kb.AppendValues(h.keys, nil)
	h.vb.AppendValues(h.vals, nil)
	h.mb.AppendValues(h.offsets, h.valid)
	clear(h.vals) // bounds point into manifests no longer needed
	h.offsets, h.valid, h.keys, h.vals = h.offsets[:0], h.valid[:0], h.keys[:0], h.vals[:0]
}

func countMapColumn(b array.Builder, name string, l *fileRead, k int) (fileAppender, error) {
	return metricMapColumn[int64, *array.Int64Builder](b, name, l, func(p *metricPairs) ([]int32, []int64) { return p.countIDs[k], p.counts[k] })
}

func boundMapColumn(b array.Builder, name string, l *fileRead, k int) (fileAppender, error) {
	return metricMapColumn[[]byte, *array.BinaryBuilder](b, name, l, func(p *metricPairs) ([]int32, [][]byte) { return p.boundIDs[k], p.bounds[k] })
}
