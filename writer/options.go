package writer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/writer/parquetfile"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	pqbrotli "github.com/parquet-go/parquet-go/compress/brotli"
	pqgzip "github.com/parquet-go/parquet-go/compress/gzip"
)

// Table properties the writer reads, and Java's defaults for them.
const (
	PropCodec               = "write.parquet.compression-codec"
	PropCompressionLevel    = "write.parquet.compression-level"
	PropRowGroupSize        = "write.parquet.row-group-size-bytes"
	PropPageSize            = "write.parquet.page-size-bytes"
	PropPageRowLimit        = "write.parquet.page-row-limit"
	PropDictSize            = "write.parquet.dict-size-bytes"
	PropTargetFileSize      = "write.target-file-size-bytes"
	PropMetricsDefault      = "write.metadata.metrics.default"
	PropMetricsColumnPrefix = "write.metadata.metrics.column."
	PropMetricsMaxInferred  = "write.metadata.metrics.max-inferred-column-defaults"
	// Bloom filters: enabled per column (dotted name, "true"/"false"), a
	// false-positive probability for all of them or per column, and a cap
	// on one column chunk's filter. Java names all but PropBloomFPP so.
	PropBloomColumnPrefix    = "write.parquet.bloom-filter-enabled.column."
	PropBloomFPP             = "write.parquet.bloom-filter-fpp"
	PropBloomFPPColumnPrefix = "write.parquet.bloom-filter-fpp.column."
	PropBloomMaxBytes        = "write.parquet.bloom-filter-max-bytes"
	DefaultBloomFPP          = 0.01
	DefaultBloomMaxBytes     = parquetfile.DefaultBloomMaxBytes
	DefaultCodec             = "zstd"
	DefaultRowGroupSize      = 128 << 20
	DefaultPageSize          = 1 << 20
	DefaultPageRowLimit      = 20_000
	DefaultDictSize          = 2 << 20
	DefaultTargetFileSize    = 512 << 20
	DefaultMaxInferredMetric = 100
)

// Options control how data files are written. Start from DefaultOptions or
// OptionsFromProperties; zero sizes and an empty codec take the defaults.
type Options struct {
	// Codec is the Parquet compression codec: zstd, snappy, gzip, brotli,
	// lz4 (written as LZ4_RAW, the codec Parquet now defines) or
	// uncompressed.
	Codec string
	// CompressionLevel is the zstd, gzip or brotli level; 0 is the codec's
	// default.
	CompressionLevel int
	// RowGroupSize is the buffered bytes at which a row group is cut.
	RowGroupSize int64
	// PageSize is the bytes at which a page is cut; PageRowLimit the rows.
	PageSize     int
	PageRowLimit int
	// DictionarySize is the dictionary bytes past which a column chunk falls
	// back from dictionary to plain encoding.
	DictionarySize int64
	// NoDictionary writes every column PLAIN.
	NoDictionary bool
	// TargetFileSize is the size at which a partition's file is closed and
	// the next one begun.
	TargetFileSize int64
	// Metrics is the default metrics mode; ColumnMetrics overrides it per
	// field id.
	Metrics       MetricsMode
	ColumnMetrics map[int]MetricsMode
	// BloomFilters maps the field ids of columns that get a Parquet
	// split-block bloom filter to its false-positive probability, in
	// (0, 1). Boolean columns never get one.
	BloomFilters map[int]float64
	// BloomFilterMaxBytes caps one column chunk's filter; 0 means 1 MiB.
	BloomFilterMaxBytes int
	// SortOrderID, when set, is recorded in every file's entry: the caller
	// vouches that the rows are sorted by that order.
	SortOrderID *int
	// SortOrder, when it has fields, makes the writer sort each file's
	// rows by it and record its id as SortOrderID (sorted.go); the rows of
	// up to SortBufferSize bytes of Arrow batches are held to sort (0:
	// DefaultSortBufferSize). TableOptions sets it to the table's default
	// sort order.
	SortOrder      *iceberg.SortOrder
	SortBufferSize int64
	// RowOrder, when set (and SortOrder not), orders rows the caller's way
	// on the sorted writes' path: batches are held as for a sort order, and
	// RowOrder reorders rows (indexes into rec, one partition's) in place
	// before they are written (maintain's z-order). No sort order id is
	// recorded: the order is none of the table's.
	RowOrder RowOrderFunc
	// Parallelism is how many columns of a batch are converted at once;
	// 0 means GOMAXPROCS.
	Parallelism int
	// FilePrefix starts every file name; the default is a random UUID, so
	// two writers never pick the same name.
	FilePrefix string
}

// DefaultOptions are Java's defaults: zstd, 128 MiB row groups, 512 MiB
// files, truncate(16) metrics.
func DefaultOptions() Options {
	return Options{
		Codec:          DefaultCodec,
		RowGroupSize:   DefaultRowGroupSize,
		PageSize:       DefaultPageSize,
		PageRowLimit:   DefaultPageRowLimit,
		DictionarySize: DefaultDictSize,
		TargetFileSize: DefaultTargetFileSize,
		Metrics:        DefaultMetricsMode,
	}
}

// TableOptions are the options a table's data files are written with:
// its properties' (OptionsFromProperties, for the schema given) and its
// default sort order, which the writer sorts each file's rows by.
func TableOptions(md *metadata.Metadata, schema *iceberg.Schema) (Options, error) {
	o, err := OptionsFromProperties(md.Properties, schema)
	if err != nil {
		return o, err
	}
	if order := md.DefaultSortOrder(); order != nil && len(order.Fields) > 0 {
		o.SortOrder = order
	}
	return o, nil
}

// OptionsFromProperties reads the write.* table properties. Metrics modes
// follow Java's MetricsConfig: a column mode names its column by dotted
// name; without an explicit default, a schema with more top-level columns
// than write.metadata.metrics.max-inferred-column-defaults (100) keeps
// truncate(16) for the first ones only and none for the rest. As in Java, an
// unparsable metrics mode falls back to the default rather than failing the
// write, and a mode for a column the schema lacks is ignored; malformed
// sizes and codecs are errors.
func OptionsFromProperties(props map[string]string, schema *iceberg.Schema) (Options, error) {
	o := DefaultOptions()
	if v, ok := props[PropCodec]; ok {
		o.Codec = strings.ToLower(strings.TrimSpace(v))
		if _, err := o.codec(); err != nil {
			return Options{}, err
		}
	}
	ints := []struct {
		key string
		dst *int64
	}{{PropRowGroupSize, &o.RowGroupSize}, {PropTargetFileSize, &o.TargetFileSize}, {PropDictSize, &o.DictionarySize}}
	for _, p := range ints {
		if v, ok := props[p.key]; ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n <= 0 {
				return Options{}, errkind.Errorf(errkind.InvalidArgument, "table property %s=%q: want a positive number of bytes", p.key, v)
			}
			*p.dst = n
		}
	}
	smallInts := []struct {
		key string
		dst *int
	}{{PropPageSize, &o.PageSize}, {PropPageRowLimit, &o.PageRowLimit}, {PropCompressionLevel, &o.CompressionLevel}}
	for _, p := range smallInts {
		if v, ok := props[p.key]; ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 || (n == 0 && p.key != PropCompressionLevel) || n > 1<<30 {
				return Options{}, errkind.Errorf(errkind.InvalidArgument, "table property %s=%q: want a positive integer", p.key, v)
			}
			*p.dst = n
		}
	}
	o.Metrics, o.ColumnMetrics = metricsFromProperties(props, schema)
	var err error
	if o.BloomFilters, o.BloomFilterMaxBytes, err = bloomFromProperties(props, schema); err != nil {
		return Options{}, err
	}
	return o, nil
}

// bloomFromProperties reads the bloom filter properties. As with metrics
// modes, a column the schema lacks is ignored (a dropped column's
// property must not stop writes); a malformed flag, probability or size is
// an error.
func bloomFromProperties(props map[string]string, schema *iceberg.Schema) (map[int]float64, int, error) {
	maxBytes := 0
	if v, ok := props[PropBloomMaxBytes]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 32 || n > 128<<20 {
			return nil, 0, errkind.Errorf(errkind.InvalidArgument, "table property %s=%q: want bytes from 32 to 128 MiB", PropBloomMaxBytes, v)
		}
		maxBytes = n
	}
	parseFPP := func(key, v string) (float64, error) {
		p, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(p > 0 && p < 1) {
			return 0, errkind.Errorf(errkind.InvalidArgument, "table property %s=%q: want a probability between 0 and 1", key, v)
		}
		return p, nil
	}
	fpp := DefaultBloomFPP
	if v, ok := props[PropBloomFPP]; ok {
		var err error
		if fpp, err = parseFPP(PropBloomFPP, v); err != nil {
			return nil, 0, err
		}
	}
	var columns map[int]float64
	for key, v := range props {
		name, ok := strings.CutPrefix(key, PropBloomColumnPrefix)
		if !ok {
			continue
		}
		on, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return nil, 0, errkind.Errorf(errkind.InvalidArgument, "table property %s=%q: want true or false", key, v)
		}
		if !on || schema == nil {
			continue
		}
		f, found := schema.FindFieldByName(name)
		if !found {
			continue
		}
		p := fpp
		if v, ok := props[PropBloomFPPColumnPrefix+name]; ok {
			if p, err = parseFPP(PropBloomFPPColumnPrefix+name, v); err != nil {
				return nil, 0, err
			}
		}
		if columns == nil {
			columns = map[int]float64{}
		}
		columns[f.ID] = p
	}
	return columns, maxBytes, nil
}

func metricsFromProperties(props map[string]string, schema *iceberg.Schema) (MetricsMode, map[int]MetricsMode) {
	columns := map[int]MetricsMode{}
	def := DefaultMetricsMode
	if v, ok := props[PropMetricsDefault]; ok {
		if m, err := ParseMetricsMode(v); err == nil {
			def = m
		}
	} else if schema != nil {
		limit := DefaultMaxInferredMetric
		if v, ok := props[PropMetricsMaxInferred]; ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
				limit = n
			}
		}
		if len(schema.Fields) > limit {
			for _, f := range schema.Fields[:limit] {
				forEachFieldID(f, func(id int) { columns[id] = DefaultMetricsMode })
			}
			def = MetricsMode{Kind: MetricsNone}
		}
	}
	for key, v := range props {
		name, ok := strings.CutPrefix(key, PropMetricsColumnPrefix)
		if !ok || schema == nil {
			continue
		}
		f, found := schema.FindFieldByName(name)
		if !found {
			continue
		}
		m, err := ParseMetricsMode(v)
		if err != nil {
			m = def
		}
		columns[f.ID] = m
	}
	if len(columns) == 0 {
		columns = nil
	}
	return def, columns
}

// forEachFieldID calls fn for f and every field nested in it.
func forEachFieldID(f iceberg.NestedField, fn func(int)) {
	fn(f.ID)
	switch t := f.Type.(type) {
	case *iceberg.StructType:
		for _, c := range t.Fields {
			forEachFieldID(c, fn)
		}
	case *iceberg.ListType:
		forEachFieldID(iceberg.NestedField{ID: t.ElementID, Type: t.Element}, fn)
	case *iceberg.MapType:
		forEachFieldID(iceberg.NestedField{ID: t.KeyID, Type: t.Key}, fn)
		forEachFieldID(iceberg.NestedField{ID: t.ValueID, Type: t.Value}, fn)
	}
}

// withDefaults fills zero fields and checks the rest.
func (o Options) withDefaults() (Options, error) {
	d := DefaultOptions()
	if o.Codec == "" {
		o.Codec = d.Codec
	}
	if o.RowGroupSize <= 0 {
		o.RowGroupSize = d.RowGroupSize
	}
	if o.PageSize <= 0 {
		o.PageSize = d.PageSize
	}
	if o.PageRowLimit <= 0 {
		o.PageRowLimit = d.PageRowLimit
	}
	if o.DictionarySize <= 0 {
		o.DictionarySize = d.DictionarySize
	}
	if o.TargetFileSize <= 0 {
		o.TargetFileSize = d.TargetFileSize
	}
	if o.SortBufferSize <= 0 {
		o.SortBufferSize = DefaultSortBufferSize
	}
	if _, err := o.codec(); err != nil {
		return o, err
	}
	check := func(m MetricsMode, what string) error {
		if m.Kind > MetricsFull || (m.Kind == MetricsTruncate && m.Length <= 0) {
			return errkind.Errorf(errkind.InvalidArgument, "%s metrics mode %v is not valid", what, m)
		}
		return nil
	}
	if err := check(o.Metrics, "default"); err != nil {
		return o, err
	}
	for id, m := range o.ColumnMetrics {
		if err := check(m, fmt.Sprintf("column %d", id)); err != nil {
			return o, err
		}
	}
	for id, p := range o.BloomFilters {
		if !(p > 0 && p < 1) {
			return o, errkind.Errorf(errkind.InvalidArgument, "column %d: bloom filter probability %v is not between 0 and 1", id, p)
		}
	}
	return o, nil
}

// metricsFor is the resolved mode of a column.
func (o Options) metricsFor(fieldID int) MetricsMode {
	return o.ColumnMetrics[fieldID].resolved(o.Metrics.resolved(DefaultMetricsMode))
}

// codec is the parquet-go codec of the options.
func (o Options) codec() (compress.Codec, error) {
	switch strings.ToLower(o.Codec) {
	case "zstd":
		if o.CompressionLevel != 0 {
			return newZstdCodec(zstd.EncoderLevelFromZstd(o.CompressionLevel)), nil
		}
		return newZstdCodec(defaultZstdLevel), nil
	case "snappy":
		return &snappyCodec{}, nil
	case "gzip":
		if o.CompressionLevel != 0 {
			if o.CompressionLevel < 1 || o.CompressionLevel > 9 {
				return nil, errkind.Errorf(errkind.InvalidArgument, "gzip compression level %d: want 1 to 9", o.CompressionLevel)
			}
			return &pqgzip.Codec{Level: o.CompressionLevel}, nil
		}
		return &parquet.Gzip, nil
	case "brotli":
		if o.CompressionLevel != 0 {
			if o.CompressionLevel > 11 {
				return nil, errkind.Errorf(errkind.InvalidArgument, "brotli compression level %d: want 0 to 11", o.CompressionLevel)
			}
			return &pqbrotli.Codec{Quality: o.CompressionLevel, LGWin: pqbrotli.DefaultLGWin}, nil
		}
		return &parquet.Brotli, nil
	case "lz4", "lz4_raw":
		return &parquet.Lz4Raw, nil
	case "uncompressed", "none":
		return &parquet.Uncompressed, nil
	}
	return nil, errkind.Errorf(errkind.Unsupported, "parquet compression codec %q is not supported: use zstd, snappy, gzip, brotli, lz4 or uncompressed", o.Codec)
}
