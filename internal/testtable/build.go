package testtable

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/floedb/floe/iceberg"
)

// Options describe the table Build writes.
type Options struct {
	// Schema is the table's schema: top-level primitive columns only.
	// Nil means Schema().
	Schema *iceberg.Schema
	// Spec partitions the rows; the zero value is unpartitioned. Fields
	// without a FieldID are numbered from 1000, fields without a Name are
	// named as Java names them (col, col_bucket, col_trunc, col_day…).
	Spec iceberg.PartitionSpec
	// Rows are the table's rows in the canonical Go forms of package
	// iceberg, one value per schema field (nil = null). Decimals stored as
	// FIXED_LEN_BYTE_ARRAY (precision above 18) must not be negative:
	// parquet-go orders such values as unsigned bytes in its statistics,
	// which would make the files lie to a reader that prunes with them.
	Rows [][]any
	// RowsPerFile caps a data file: each partition's rows, in order, are
	// cut into files of at most this many rows. Default 1000.
	RowsPerFile int
	// RowsPerRowGroup cuts each file into row groups. Default 250.
	RowsPerRowGroup int
	// RowsPerPage is how many rows a data page of the first column holds;
	// the second column's pages hold 1.5 times as many, the third's twice,
	// then again, so page boundaries differ between columns as they do in
	// real files. Default 40, so a row group has several pages.
	RowsPerPage int
	// DataPageVersion is 1 (what Spark writes; the default) or 2.
	DataPageVersion int
	// Manifests spreads the data files over this many manifests, in file
	// order. Default 2 (fewer when there are fewer files).
	Manifests int
	// MetricsMode is Iceberg's write.metadata.metrics.default for every
	// column: "none", "counts", "full" or "truncate(N)". Default
	// "truncate(16)", as Java.
	MetricsMode string
	// WithoutFieldIDs writes the Parquet files without field ids, as Hive
	// and other non-Iceberg writers do; readers then resolve columns by
	// the table's name mapping (put one in Properties). The manifests
	// still carry metrics by field id, as a migration that matched the
	// columns by name writes them.
	WithoutFieldIDs bool
	// Properties are added to the table's properties (such as
	// schema.name-mapping.default).
	Properties map[string]string
	// FormatVersion is the table's format version: 2 (the default) or 3,
	// which fields with an initial-default need.
	FormatVersion int
}

// Table is a table Build wrote.
type Table struct {
	// Location is the table directory and MetadataPath its metadata file
	// (scan.New of table.Open(ctx, MetadataPath, ...) reads it).
	Location     string
	MetadataPath string
	Schema       *iceberg.Schema
	Spec         iceberg.PartitionSpec
	// Rows are Options.Rows; Files say which went where.
	Rows  [][]any
	Files []DataFile
	// Bytes is the total size of the data files.
	Bytes int64
}

// DataFile is one written Parquet file.
type DataFile struct {
	Path string
	// Partition is the file's partition tuple in spec order.
	Partition []any
	// Rows are indexes into Table.Rows, in file order; RowGroups the
	// number of rows in each row group.
	Rows      []int
	RowGroups []int
	// Manifest is the index of the manifest listing the file.
	Manifest int
	Size     int64
}

func (o *Options) withDefaults() (Options, error) {
	out := *o
	if out.Schema == nil {
		out.Schema = Schema()
	}
	if out.RowsPerFile <= 0 {
		out.RowsPerFile = 1000
	}
	if out.RowsPerRowGroup <= 0 {
		out.RowsPerRowGroup = 250
	}
	if out.RowsPerPage <= 0 {
		out.RowsPerPage = 40
	}
	if err := versionOption(&out.DataPageVersion, "data page version", 1, 2); err != nil {
		return out, err
	}
	if out.Manifests <= 0 {
		out.Manifests = 2
	}
	if err := versionOption(&out.FormatVersion, "format version", 2, 3); err != nil {
		return out, err
	}
	if out.MetricsMode == "" {
		out.MetricsMode = "truncate(16)"
	}
	for _, f := range out.Schema.Fields {
		if _, ok := f.Type.(iceberg.PrimitiveType); !ok {
			return out, fmt.Errorf("column %s is a %s: only primitive columns are supported", f.Name, f.Type)
		}
	}
	fields := make([]iceberg.PartitionField, len(out.Spec.Fields))
	for i, pf := range out.Spec.Fields {
		if pf.FieldID == 0 {
			pf.FieldID = iceberg.PartitionFieldIDStart + i
		}
		if pf.Name == "" {
			src, ok := out.Schema.FindField(pf.SourceID)
			if !ok {
				return out, fmt.Errorf("partition field %d: no column with id %d", i, pf.SourceID)
			}
			pf.Name = partitionFieldName(src.Name, pf.Transform)
		}
		fields[i] = pf
	}
	out.Spec.Fields = fields
	return out, nil
}

// versionOption defaults *v to def (0: unset) and accepts def or next.
func versionOption(v *int, what string, def, next int) error {
	switch *v {
	case 0:
		*v = def
	case def, next:
	default:
		return fmt.Errorf("%s %d: want %d or %d", what, *v, def, next)
	}
	return nil
}

func partitionFieldName(source string, t iceberg.Transform) string {
	switch t := t.(type) {
	case iceberg.IdentityTransform:
		return source
	case iceberg.BucketTransform:
		return source + "_bucket"
	case iceberg.TruncateTransform:
		return source + "_trunc"
	default:
		return source + "_" + t.String()
	}
}

// Build writes the table under dir (which should be empty, such as
// t.TempDir()) and returns where it is.
func Build(dir string, opts Options) (*Table, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("testtable: %w", err)
	}
	location, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := checkRows(o.Schema, o.Rows); err != nil {
		return nil, fmt.Errorf("testtable: %w", err)
	}
	partType, err := o.Spec.PartitionType(o.Schema)
	if err != nil {
		return nil, fmt.Errorf("testtable: %w", err)
	}
	groups, err := partitionRows(o.Schema, &o.Spec, o.Rows)
	if err != nil {
		return nil, fmt.Errorf("testtable: %w", err)
	}
	t := &Table{Location: location, Schema: o.Schema, Spec: o.Spec, Rows: o.Rows}
	var written []*writtenFile
	for _, g := range groups {
		for start := 0; start < len(g.rows); start += o.RowsPerFile {
			rows := g.rows[start:min(start+o.RowsPerFile, len(g.rows))]
			dirName := filepath.Join(location, "data")
			if len(o.Spec.Fields) > 0 {
				dirName = filepath.Join(dirName, filepath.FromSlash(o.Spec.PartitionPath(partType, g.tuple)))
			}
			if err := os.MkdirAll(dirName, 0o755); err != nil {
				return nil, err
			}
			path := filepath.Join(dirName, fmt.Sprintf("%05d-data.parquet", len(written)))
			wf, err := writeDataFile(path, &o, rows)
			if err != nil {
				return nil, fmt.Errorf("testtable: %s: %w", path, err)
			}
			wf.partition = g.tuple
			written = append(written, wf)
		}
	}
	manifests := min(o.Manifests, len(written))
	for i, wf := range written {
		m := 0
		if manifests > 0 {
			m = i * manifests / len(written)
		}
		t.Files = append(t.Files, DataFile{Path: wf.path, Partition: wf.partition, Rows: wf.rows, RowGroups: wf.rowGroups, Manifest: m, Size: wf.size})
		t.Bytes += wf.size
	}
	if t.MetadataPath, err = writeMetadata(location, &o, partType, written, manifests); err != nil {
		return nil, fmt.Errorf("testtable: %w", err)
	}
	return t, nil
}

// checkRows makes sure every value is in its column's canonical form, so
// a mistake in a test's rows is reported here rather than as a confusing
// scan result.
func checkRows(schema *iceberg.Schema, rows [][]any) error {
	for r, row := range rows {
		if len(row) != len(schema.Fields) {
			return fmt.Errorf("row %d has %d values for %d columns", r, len(row), len(schema.Fields))
		}
		for c, f := range schema.Fields {
			v := row[c]
			if v == nil {
				if f.Required {
					return fmt.Errorf("row %d: required column %s is null", r, f.Name)
				}
				continue
			}
			if err := iceberg.CheckValue(f.Type, v); err != nil {
				return fmt.Errorf("row %d, column %s: %w", r, f.Name, err)
			}
			if dt, ok := f.Type.(iceberg.DecimalType); ok && dt.Precision > 18 {
				if d := v.(iceberg.Decimal); d.Hi < 0 {
					return fmt.Errorf("row %d, column %s: negative decimal %s stored as fixed-length bytes (see Options.Rows)", r, f.Name, d)
				}
			}
		}
	}
	return nil
}

// partitionGroup is the rows of one partition tuple, in row order.
type partitionGroup struct {
	tuple []any
	rows  []int
}

// partitionRows groups rows by partition tuple, in order of each tuple's
// first row.
func partitionRows(schema *iceberg.Schema, spec *iceberg.PartitionSpec, rows [][]any) ([]*partitionGroup, error) {
	pos := map[int]int{}
	for i, f := range schema.Fields {
		pos[f.ID] = i
	}
	byKey := map[string]*partitionGroup{}
	var groups []*partitionGroup
	for r, row := range rows {
		tuple := make([]any, len(spec.Fields))
		var key strings.Builder
		for i, pf := range spec.Fields {
			c, ok := pos[pf.SourceID]
			if !ok {
				return nil, fmt.Errorf("partition field %s: no column with id %d", pf.Name, pf.SourceID)
			}
			v, err := pf.Transform.Apply(schema.Fields[c].Type, row[c])
			if err != nil {
				return nil, fmt.Errorf("partition field %s, row %d: %w", pf.Name, r, err)
			}
			tuple[i] = v
			fmt.Fprintf(&key, "%T:%v|", v, v)
		}
		g, ok := byKey[key.String()]
		if !ok {
			g = &partitionGroup{tuple: tuple}
			byKey[key.String()] = g
			groups = append(groups, g)
		}
		g.rows = append(g.rows, r)
	}
	if len(groups) == 0 {
		return nil, errors.New("no rows")
	}
	return groups, nil
}
