package writer

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr/bounds"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/reader/parquet"
	"github.com/floedb/floe/reader/prune"
)

// Registering a Parquet file written elsewhere (add_files): its manifest
// entry comes from its footer, as Java's ParquetUtil.fileMetrics builds
// it. Column sizes and value counts are summed over the row groups, null
// counts too when every row group has them; bounds are merged from the
// chunks' statistics under the rules the pruner trusts them by
// (prune.ChunkSummary) and truncated as the table's metrics modes say,
// as for files floe writes. NaN counts are not in Parquet's statistics,
// so float columns get none (a reader then treats NaNs as possible).
// Bounds are kept only for leaves outside lists and maps.

// ExistingFile describes a Parquet file to register in a table.
type ExistingFile struct {
	Schema *iceberg.Schema
	Spec   *iceberg.PartitionSpec
	// Mapping resolves the columns of a file without field ids by name
	// (the table's schema.name-mapping.default, or one derived from the
	// schema).
	Mapping iceberg.NameMapping
	// Options give the metrics modes (OptionsFromProperties).
	Options Options
}

// Describe returns the manifest entry of f, the Parquet file at path. A
// column whose type or required-ness does not fit the schema is refused,
// naming the file and column; so is a partitioned table's file whose
// partition values neither its path (Hive-style k=v directories, identity
// fields only) nor its statistics (one value per file) give.
func (e ExistingFile) Describe(f *parquet.File, path string) (manifest.DataFile, error) {
	df := manifest.DataFile{Content: manifest.ContentData, FilePath: path, FileFormat: "PARQUET", FileSizeInBytes: f.Size()}
	if e.Spec != nil {
		df.SpecID = e.Spec.ID
	}
	for i := range f.RowGroups {
		rg := &f.RowGroups[i]
		df.RecordCount += rg.NumRows
		if off := rowGroupStart(rg); off > 0 {
			df.SplitOffsets = append(df.SplitOffsets, off)
		}
	}
	leaves, err := e.resolve(f, path)
	if err != nil {
		return df, err
	}
	opts := e.Options
	if opts.Metrics.Kind == MetricsUnset {
		opts.Metrics = DefaultMetricsMode
	}
	summaries := map[int]*mergedSummary{}
	var metrics manifest.MetricMaps
	for _, l := range leaves {
		mode := opts.ColumnMetrics[l.field.ID].resolved(opts.Metrics)
		if !mode.counts() {
			continue
		}
		var size, values, nulls int64
		nullsKnown := true
		for i := range f.RowGroups {
			c := &f.RowGroups[i].Columns[l.node.Leaf]
			size += c.TotalCompressedSize
			values += c.NumValues
			if c.Statistics != nil && c.Statistics.HasNullCount {
				nulls += c.Statistics.NullCount
			} else {
				nullsKnown = false
			}
		}
		id := l.field.ID
		setInt(&metrics.ColumnSizes, id, size)
		setInt(&metrics.ValueCounts, id, values)
		if nullsKnown {
			setInt(&metrics.NullValueCounts, id, nulls)
		}
		if l.inRepeated {
			continue
		}
		m := mergeChunks(f, l.node, l.field.Type)
		summaries[id] = m
		if !mode.bounds() || !m.complete {
			continue
		}
		var st leafStats
		if !m.setStats(&st) {
			continue
		}
		lower, upper := st.bounds(l.field.Type)
		if lower == nil {
			continue
		}
		lower, upper, hasUpper := truncateBounds(l.field.Type, lower, upper, mode.truncateLength())
		lb, err := iceberg.ValueToBytes(l.field.Type, lower)
		if err != nil {
			return df, fmt.Errorf("%s: lower bound of %q: %w", path, l.field.Name, err)
		}
		setBytes(&metrics.LowerBounds, id, lb)
		if hasUpper {
			ub, err := iceberg.ValueToBytes(l.field.Type, upper)
			if err != nil {
				return df, fmt.Errorf("%s: upper bound of %q: %w", path, l.field.Name, err)
			}
			setBytes(&metrics.UpperBounds, id, ub)
		}
	}
	df.Metrics = manifest.MetricsOf(metrics)
	if e.Spec != nil && len(e.Spec.Fields) > 0 {
		if df.Partition, err = e.partition(path, summaries); err != nil {
			return df, err
		}
	}
	return df, nil
}

// rowGroupStart is where a row group's first chunk begins, as Java takes
// it (the first chunk's start: some parquet-mr versions wrote a wrong
// file_offset, PARQUET-2078).
func rowGroupStart(rg *parquet.RowGroup) int64 {
	if len(rg.Columns) > 0 {
		return rg.Columns[0].Start()
	}
	return rg.FileOffset
}

// existingLeaf is a primitive field of the schema and the file's column
// holding it.
type existingLeaf struct {
	field      iceberg.NestedField
	node       *parquet.Node
	inRepeated bool
}

// resolve pairs the schema's primitive fields with the file's leaves: by
// field id when the file has them, else by name through the mapping
// (structs only: list and map members of a file without ids get no
// metrics, and are read through the same mapping). A field the file
// lacks must be optional.
func (e ExistingFile) resolve(f *parquet.File, path string) ([]existingLeaf, error) {
	hasIDs := false
	for _, l := range f.Leaves {
		if l.HasFieldID {
			hasIDs = true
			break
		}
	}
	mapping := e.Mapping
	if !hasIDs && mapping == nil {
		mapping = iceberg.MappingFromFields(e.Schema.Fields)
	}
	var out []existingLeaf
	var walk func(fields []iceberg.NestedField, parent *parquet.Node, names iceberg.NameMapping, inRepeated, byID bool) error
	walk = func(fields []iceberg.NestedField, parent *parquet.Node, names iceberg.NameMapping, inRepeated, byID bool) error {
		for _, field := range fields {
			var node *parquet.Node
			var sub iceberg.NameMapping
			switch {
			case byID:
				node = f.NodeByFieldID(int32(field.ID))
			case parent != nil:
				for _, m := range names {
					if m.FieldID == nil || *m.FieldID != field.ID {
						continue
					}
					sub = m.Fields
					for _, name := range m.Names {
						if node = parent.Child(name); node != nil {
							break
						}
					}
				}
			}
			if node == nil {
				if field.Required {
					return errkind.Errorf(errkind.InvalidArgument, "add file %s: it has no column for the table's required column %q", path, field.Name)
				}
				continue
			}
			if field.Required && node.Repetition != parquet.Required {
				return errkind.Errorf(errkind.InvalidArgument, "add file %s: column %q is optional in the file but required in the table", path, field.Name)
			}
			switch t := field.Type.(type) {
			case *iceberg.StructType:
				if node.IsLeaf() {
					return errkind.Errorf(errkind.InvalidArgument, "add file %s: column %q is %s in the file, a struct in the table", path, field.Name, node.Physical)
				}
				if err := walk(t.Fields, node, sub, inRepeated, byID); err != nil {
					return err
				}
			case *iceberg.ListType, *iceberg.MapType:
				if node.IsLeaf() {
					return errkind.Errorf(errkind.InvalidArgument, "add file %s: column %q is %s in the file, a %s in the table", path, field.Name, node.Physical, field.Type)
				}
				if byID {
					if err := walk(iceberg.MappedChildren(field.Type), node, nil, true, true); err != nil {
						return err
					}
				}
			default:
				if !node.IsLeaf() {
					return errkind.Errorf(errkind.InvalidArgument, "add file %s: column %q is a group in the file, %s in the table", path, field.Name, field.Type)
				}
				if !readableAs(node, field.Type) {
					return errkind.Errorf(errkind.InvalidArgument, "add file %s: column %q is %s (%s) in the file, which does not read as the table's %s", path, field.Name, node.Physical, node.Logical, field.Type)
				}
				out = append(out, existingLeaf{field: field, node: node, inRepeated: inRepeated || node.RepLevel > 0})
			}
		}
		return nil
	}
	if err := walk(e.Schema.Fields, f.Root, mapping, false, hasIDs); err != nil {
		return nil, err
	}
	return out, nil
}

// readableAs tells whether a leaf's stored type reads as an Iceberg type
// (the type itself, or one it is promoted to).
func readableAs(n *parquet.Node, t iceberg.Type) bool {
	lg := n.Logical
	intOK := func(bits int8) bool {
		return lg.Kind == parquet.LogicalNone || (lg.Kind == parquet.LogicalInteger && lg.Signed && lg.BitWidth <= bits)
	}
	switch t := t.(type) {
	case iceberg.BooleanType:
		return n.Physical == parquet.Boolean
	case iceberg.IntType:
		return n.Physical == parquet.Int32 && intOK(32)
	case iceberg.LongType:
		return (n.Physical == parquet.Int32 && intOK(32)) || (n.Physical == parquet.Int64 && intOK(64))
	case iceberg.FloatType:
		return n.Physical == parquet.Float
	case iceberg.DoubleType:
		return n.Physical == parquet.Float || n.Physical == parquet.Double
	case iceberg.DateType:
		return n.Physical == parquet.Int32 && lg.Kind == parquet.LogicalDate
	case iceberg.TimeType:
		return lg.Kind == parquet.LogicalTime && ((n.Physical == parquet.Int64 && lg.Unit == parquet.Micros) || (n.Physical == parquet.Int32 && lg.Unit == parquet.Millis))
	case iceberg.TimestampType, iceberg.TimestamptzType:
		_, tz := t.(iceberg.TimestamptzType)
		if n.Physical == parquet.Int96 {
			return true
		}
		return n.Physical == parquet.Int64 && lg.Kind == parquet.LogicalTimestamp && lg.AdjustedToUTC == tz && (lg.Unit == parquet.Micros || lg.Unit == parquet.Millis)
	case iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		_, tz := t.(iceberg.TimestamptzNsType)
		return n.Physical == parquet.Int64 && lg.Kind == parquet.LogicalTimestamp && lg.AdjustedToUTC == tz && lg.Unit == parquet.Nanos
	case iceberg.StringType:
		return n.Physical == parquet.ByteArray && (lg.Kind == parquet.LogicalNone || lg.Kind == parquet.LogicalString || lg.Kind == parquet.LogicalEnum || lg.Kind == parquet.LogicalJSON)
	case iceberg.BinaryType:
		return n.Physical == parquet.ByteArray && (lg.Kind == parquet.LogicalNone || lg.Kind == parquet.LogicalBSON)
	case iceberg.FixedType:
		return n.Physical == parquet.FixedLenByteArray && n.TypeLength == t.Length && lg.Kind == parquet.LogicalNone
	case iceberg.UUIDType:
		return n.Physical == parquet.FixedLenByteArray && n.TypeLength == 16
	case iceberg.DecimalType:
		if lg.Kind != parquet.LogicalDecimal || int(lg.Scale) != t.Scale || int(lg.Precision) > t.Precision {
			return false
		}
		switch n.Physical {
		case parquet.Int32, parquet.Int64, parquet.FixedLenByteArray, parquet.ByteArray:
			return true
		}
	}
	return false
}

// mergedSummary is a column's chunks' statistics merged over the file.
type mergedSummary struct {
	domain   bounds.Domain
	lower    bounds.Value
	upper    bounds.Value
	has      bool
	complete bool // every row group gave both bounds (or held only nulls)
	exact    bool
	nulls    int64
	rows     int64
	nullsOK  bool
}

func mergeChunks(f *parquet.File, n *parquet.Node, t iceberg.Type) *mergedSummary {
	m := &mergedSummary{domain: bounds.DomainOf(t), complete: true, exact: true, nullsOK: true}
	for i := range f.RowGroups {
		s, ok := prune.ChunkSummary(f, i, n, t)
		m.rows += f.RowGroups[i].NumRows
		if !ok {
			m.complete, m.nullsOK = false, false
			continue
		}
		if s.HasNulls {
			m.nulls += s.Nulls
		} else {
			m.nullsOK = false
		}
		allNull := s.HasNulls && s.HasValues && s.Nulls >= s.Values
		if !s.HasLower || !s.HasUpper {
			if !allNull {
				m.complete = false
			}
			continue
		}
		if m.domain == bounds.DomainFloat && (s.Lower.Float != s.Lower.Float || s.Upper.Float != s.Upper.Float) {
			m.complete = false
			continue
		}
		m.exact = m.exact && s.Exact
		if !m.has {
			m.lower, m.upper, m.has = s.Lower, s.Upper, true
			continue
		}
		if m.domain.Compare(&s.Lower, &m.lower) < 0 {
			m.lower = s.Lower
		}
		if m.domain.Compare(&s.Upper, &m.upper) > 0 {
			m.upper = s.Upper
		}
	}
	return m
}

// setStats hands the merged bounds to the writer's statistics, whose
// conversion to the column's type and truncation every written file uses.
func (m *mergedSummary) setStats(st *leafStats) bool {
	if !m.has {
		return false
	}
	switch m.domain {
	case bounds.DomainInt:
		st.addInt(m.lower.Int, m.upper.Int)
	case bounds.DomainFloat:
		st.addFloat(m.lower.Float, m.upper.Float)
	case bounds.DomainBytes:
		st.addBytes(m.lower.Bytes, m.upper.Bytes)
	case bounds.DomainDecimal:
		st.addDecimal(decimal128.New(m.lower.Hi, m.lower.Lo), decimal128.New(m.upper.Hi, m.upper.Lo))
	default:
		return false
	}
	return true
}

// single is the one value every row of the column holds, when the
// statistics prove it: nil for a column of nulls only.
func (m *mergedSummary) single(t iceberg.Type) (v any, ok bool) {
	if !m.nullsOK {
		return nil, false
	}
	if m.nulls == m.rows {
		return nil, true
	}
	if m.nulls != 0 || !m.has || !m.complete || !m.exact || m.domain.Compare(&m.lower, &m.upper) != 0 {
		return nil, false
	}
	var st leafStats
	if !m.setStats(&st) {
		return nil, false
	}
	lower, _ := st.bounds(t)
	return lower, lower != nil
}

// partition finds the file's partition tuple: an identity field from a
// Hive-style directory name=value in its path, else any field from its
// source column's statistics when they prove one transformed value.
func (e ExistingFile) partition(path string, summaries map[int]*mergedSummary) ([]any, error) {
	hive := hiveValues(path)
	out := make([]any, len(e.Spec.Fields))
	for i, pf := range e.Spec.Fields {
		src, ok := e.Schema.FindField(pf.SourceID)
		if !ok {
			return nil, errkind.Errorf(errkind.InvalidArgument, "add file %s: partition field %q has no source column", path, pf.Name)
		}
		if _, void := pf.Transform.(iceberg.VoidTransform); void {
			continue
		}
		if _, identity := pf.Transform.(iceberg.IdentityTransform); identity {
			if raw, found := hive[pf.Name]; found {
				v, err := parseHiveValue(src.Type, raw)
				if err != nil {
					return nil, errkind.Errorf(errkind.InvalidArgument, "add file %s: partition %s=%s: %v", path, pf.Name, raw, err)
				}
				out[i] = v
				continue
			}
		}
		m := summaries[src.ID]
		if m == nil {
			return nil, errkind.Errorf(errkind.InvalidArgument, "add file %s: no statistics of column %q to derive partition %q from", path, src.Name, pf.Name)
		}
		v, err := e.partitionValue(pf, src, m)
		if err != nil {
			return nil, errkind.Errorf(errkind.InvalidArgument, "add file %s: partition %q: %v", path, pf.Name, err)
		}
		out[i] = v
	}
	return out, nil
}

// partitionValue is the transform of the column's one value, or of its
// bounds when a transform that keeps order maps both to one value.
func (e ExistingFile) partitionValue(pf iceberg.PartitionField, src iceberg.NestedField, m *mergedSummary) (any, error) {
	if v, ok := m.single(src.Type); ok {
		if v == nil {
			return nil, nil
		}
		return pf.Transform.Apply(src.Type, v)
	}
	switch pf.Transform.(type) {
	case iceberg.YearTransform, iceberg.MonthTransform, iceberg.DayTransform, iceberg.HourTransform, iceberg.TruncateTransform:
		if m.nullsOK && m.nulls == 0 && m.has && m.complete && m.exact {
			var st leafStats
			if m.setStats(&st) {
				lo, hi := st.bounds(src.Type)
				a, err := pf.Transform.Apply(src.Type, lo)
				if err != nil {
					return nil, err
				}
				b, err := pf.Transform.Apply(src.Type, hi)
				if err != nil {
					return nil, err
				}
				if iceberg.Compare(resultType(pf, src), a, b) == 0 {
					return a, nil
				}
			}
		}
	}
	return nil, fmt.Errorf("the file's column %q holds more than one partition's values, or its statistics do not show it holds one; write the file per partition (or under %s=value directories for an identity field)", src.Name, pf.Name)
}

// resultType is the partition field's type (the source's when the
// transform does not say).
func resultType(pf iceberg.PartitionField, src iceberg.NestedField) iceberg.Type {
	t, err := pf.Transform.ResultType(src.Type)
	if err != nil {
		return src.Type
	}
	return t
}

// hiveValues reads the name=value directories of a path.
func hiveValues(path string) map[string]string {
	out := map[string]string{}
	parts := strings.Split(path, "/")
	for _, p := range parts[:max(len(parts)-1, 0)] {
		if name, value, ok := strings.Cut(p, "="); ok && name != "" {
			if un, err := url.PathUnescape(value); err == nil {
				value = un
			}
			out[name] = value
		}
	}
	return out
}

// parseHiveValue reads a partition directory's value as Hive and Spark
// write them (the human-readable form; __HIVE_DEFAULT_PARTITION__ and
// "null" for null).
func parseHiveValue(t iceberg.Type, raw string) (any, error) {
	if raw == "__HIVE_DEFAULT_PARTITION__" || raw == "null" {
		return nil, nil
	}
	switch t.(type) {
	case iceberg.StringType:
		return raw, nil
	case iceberg.IntType, iceberg.LongType, iceberg.BooleanType, iceberg.FloatType, iceberg.DoubleType:
		return iceberg.ValueFromJSON(t, []byte(raw))
	}
	return iceberg.ValueFromJSON(t, []byte(strconv.Quote(raw)))
}
