package writer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"unicode/utf8"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
)

// The encoding of written files' entries that a worker hands to the
// process that commits them: JSON (portable across languages and readable
// when debugging, like serialised scan tasks), versioned, with every field
// of manifest.DataFile. Partition values carry their Go form as a tag,
// since the decoder has no partition type to read them by.

const dataFilesVersion = 1

type encodedFiles struct {
	Version int           `json:"version"`
	Files   []encodedFile `json:"files"`
}

type encodedFile struct {
	Content            int             `json:"content"`
	FilePath           string          `json:"file_path"`
	FileFormat         string          `json:"file_format"`
	Partition          []*encodedValue `json:"partition,omitempty"`
	SpecID             int             `json:"spec_id"`
	RecordCount        int64           `json:"record_count"`
	FileSizeInBytes    int64           `json:"file_size_in_bytes"`
	ColumnSizes        map[int]int64   `json:"column_sizes,omitempty"`
	ValueCounts        map[int]int64   `json:"value_counts,omitempty"`
	NullValueCounts    map[int]int64   `json:"null_value_counts,omitempty"`
	NaNValueCounts     map[int]int64   `json:"nan_value_counts,omitempty"`
	LowerBounds        map[int][]byte  `json:"lower_bounds,omitempty"`
	UpperBounds        map[int][]byte  `json:"upper_bounds,omitempty"`
	KeyMetadata        []byte          `json:"key_metadata,omitempty"`
	SplitOffsets       []int64         `json:"split_offsets,omitempty"`
	EqualityIDs        []int           `json:"equality_ids,omitempty"`
	SortOrderID        *int            `json:"sort_order_id,omitempty"`
	FirstRowID         *int64          `json:"first_row_id,omitempty"`
	ReferencedDataFile string          `json:"referenced_data_file,omitempty"`
	ContentOffset      *int64          `json:"content_offset,omitempty"`
	ContentSizeInBytes *int64          `json:"content_size_in_bytes,omitempty"`
}

// encodedValue is one partition value; exactly one field is set.
type encodedValue struct {
	Bool        *bool           `json:"bool,omitempty"`
	Int         *int32          `json:"int,omitempty"`
	Long        *int64          `json:"long,omitempty"`
	FloatBits   *uint32         `json:"float_bits,omitempty"`
	DoubleBits  *uint64         `json:"double_bits,omitempty"`
	Decimal     *encodedDecimal `json:"decimal,omitempty"`
	String      *string         `json:"string,omitempty"`
	StringBytes *[]byte         `json:"string_bytes,omitempty"` // a string that is not valid UTF-8
	UUID        *string         `json:"uuid,omitempty"`
	Bytes       *[]byte         `json:"bytes,omitempty"`
}

type encodedDecimal struct {
	Unscaled string `json:"unscaled"`
	Scale    int    `json:"scale"`
}

// EncodeDataFiles encodes file entries, every field of them, for
// DecodeDataFiles.
func EncodeDataFiles(files []manifest.DataFile) ([]byte, error) {
	out := encodedFiles{Version: dataFilesVersion, Files: make([]encodedFile, len(files))}
	for i := range files {
		f := &files[i]
		m := f.Metrics.Maps()
		e := encodedFile{
			Content: int(f.Content), FilePath: f.FilePath, FileFormat: f.FileFormat,
			SpecID: f.SpecID, RecordCount: f.RecordCount, FileSizeInBytes: f.FileSizeInBytes,
			ColumnSizes: m.ColumnSizes, ValueCounts: m.ValueCounts, NullValueCounts: m.NullValueCounts,
			NaNValueCounts: m.NaNValueCounts, LowerBounds: m.LowerBounds, UpperBounds: m.UpperBounds,
			KeyMetadata: f.KeyMetadata, SplitOffsets: f.SplitOffsets, EqualityIDs: f.EqualityIDs,
			SortOrderID: f.SortOrderID, FirstRowID: f.FirstRowID, ReferencedDataFile: f.ReferencedDataFile,
			ContentOffset: f.ContentOffset, ContentSizeInBytes: f.ContentSizeInBytes,
		}
		for j, v := range f.Partition {
			ev, err := encodeValue(v)
			if err != nil {
				return nil, fmt.Errorf("encode data file %s: partition value %d: %w", f.FilePath, j, err)
			}
			e.Partition = append(e.Partition, ev)
		}
		out.Files[i] = e
	}
	return json.Marshal(out)
}

func encodeValue(v any) (*encodedValue, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return &encodedValue{Bool: &x}, nil
	case int32:
		return &encodedValue{Int: &x}, nil
	case int64:
		return &encodedValue{Long: &x}, nil
	case float32:
		bits := math.Float32bits(x)
		return &encodedValue{FloatBits: &bits}, nil
	case float64:
		bits := math.Float64bits(x)
		return &encodedValue{DoubleBits: &bits}, nil
	case iceberg.Decimal:
		return &encodedValue{Decimal: &encodedDecimal{Unscaled: x.Unscaled().String(), Scale: x.Scale}}, nil
	case string:
		if !utf8.ValidString(x) {
			b := []byte(x)
			return &encodedValue{StringBytes: &b}, nil
		}
		return &encodedValue{String: &x}, nil
	case [16]byte:
		s := iceberg.FormatUUID(x)
		return &encodedValue{UUID: &s}, nil
	case []byte:
		b := x
		if b == nil {
			b = []byte{}
		}
		return &encodedValue{Bytes: &b}, nil
	}
	return nil, fmt.Errorf("%T is not a canonical partition value", v)
}

// DecodeDataFiles decodes what EncodeDataFiles wrote.
func DecodeDataFiles(data []byte) ([]manifest.DataFile, error) {
	var in encodedFiles
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("decode data files: %w", err)
	}
	if dec.More() {
		return nil, errors.New("decode data files: trailing data after the entries")
	}
	if in.Version != dataFilesVersion {
		return nil, fmt.Errorf("decode data files: version %d; this floe reads version %d", in.Version, dataFilesVersion)
	}
	out := make([]manifest.DataFile, len(in.Files))
	for i, e := range in.Files {
		if err := e.check(); err != nil {
			return nil, fmt.Errorf("decode data files: entry %d: %w", i, err)
		}
		f := manifest.DataFile{
			Content: manifest.FileContent(e.Content), FilePath: e.FilePath, FileFormat: e.FileFormat,
			SpecID: e.SpecID, RecordCount: e.RecordCount, FileSizeInBytes: e.FileSizeInBytes,
			Metrics: manifest.MetricsOf(manifest.MetricMaps{
				ColumnSizes: e.ColumnSizes, ValueCounts: e.ValueCounts, NullValueCounts: e.NullValueCounts,
				NaNValueCounts: e.NaNValueCounts, LowerBounds: e.LowerBounds, UpperBounds: e.UpperBounds,
			}),
			KeyMetadata: e.KeyMetadata, SplitOffsets: e.SplitOffsets, EqualityIDs: e.EqualityIDs,
			SortOrderID: e.SortOrderID, FirstRowID: e.FirstRowID, ReferencedDataFile: e.ReferencedDataFile,
			ContentOffset: e.ContentOffset, ContentSizeInBytes: e.ContentSizeInBytes,
		}
		for j, ev := range e.Partition {
			v, err := ev.decode()
			if err != nil {
				return nil, fmt.Errorf("decode data files: entry %d (%s): partition value %d: %w", i, e.FilePath, j, err)
			}
			f.Partition = append(f.Partition, v)
		}
		out[i] = f
	}
	return out, nil
}

// check refuses entries no writer produces.
func (e *encodedFile) check() error {
	switch {
	case e.Content < int(manifest.ContentData) || e.Content > int(manifest.ContentEqualityDeletes):
		return fmt.Errorf("content %d is not data, position deletes or equality deletes", e.Content)
	case e.FilePath == "":
		return errors.New("no file path")
	case e.FileFormat == "":
		return errors.New("no file format")
	case e.RecordCount < 0 || e.FileSizeInBytes < 0:
		return fmt.Errorf("negative record count or file size")
	}
	return nil
}

func (ev *encodedValue) decode() (any, error) {
	if ev == nil {
		return nil, nil
	}
	var out any
	set := 0
	if ev.Bool != nil {
		out, set = *ev.Bool, set+1
	}
	if ev.Int != nil {
		out, set = *ev.Int, set+1
	}
	if ev.Long != nil {
		out, set = *ev.Long, set+1
	}
	if ev.FloatBits != nil {
		out, set = math.Float32frombits(*ev.FloatBits), set+1
	}
	if ev.DoubleBits != nil {
		out, set = math.Float64frombits(*ev.DoubleBits), set+1
	}
	if ev.Decimal != nil {
		u, ok := new(big.Int).SetString(ev.Decimal.Unscaled, 10)
		if !ok || len(ev.Decimal.Unscaled) > 50 {
			return nil, fmt.Errorf("bad decimal %q", ev.Decimal.Unscaled)
		}
		if ev.Decimal.Scale < -1000 || ev.Decimal.Scale > 1000 {
			return nil, fmt.Errorf("decimal scale %d is out of range", ev.Decimal.Scale)
		}
		d, err := iceberg.DecimalFromBigInt(u, ev.Decimal.Scale)
		if err != nil {
			return nil, err
		}
		out, set = d, set+1
	}
	if ev.String != nil {
		out, set = *ev.String, set+1
	}
	if ev.StringBytes != nil {
		out, set = string(*ev.StringBytes), set+1
	}
	if ev.UUID != nil {
		u, err := iceberg.ParseUUID(*ev.UUID)
		if err != nil {
			return nil, err
		}
		out, set = u, set+1
	}
	if ev.Bytes != nil {
		out, set = *ev.Bytes, set+1
	}
	if set != 1 {
		return nil, fmt.Errorf("a partition value needs exactly one typed field, found %d", set)
	}
	return out, nil
}
