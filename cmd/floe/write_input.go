package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/internal/jsonlines"
)

// input is a file to append: its rows as Arrow batches, and the Iceberg
// schema a table created for it gets.
type input interface {
	// schema is the Iceberg schema a new table for this input gets.
	schema() (*iceberg.Schema, error)
	// batches reads the rows for a table of schema tableSchema.
	batches(ctx context.Context, tableSchema *iceberg.Schema) (array.RecordReader, error)
	// rows is how many rows the input holds, for the progress line.
	rows() int64
	close()
}

const inputBatchRows = 64 << 10

func openInput(path string) (input, error) {
	switch {
	case strings.HasSuffix(path, ".parquet"):
		return openParquetInput(path)
	case strings.HasSuffix(path, ".jsonl"), strings.HasSuffix(path, ".ndjson"), strings.HasSuffix(path, ".json"):
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return &jsonlInput{path: path, data: data}, nil
	}
	return nil, fmt.Errorf("%s: append reads .parquet and .jsonl files", path)
}

// parquetInput is a Parquet file. A file an Iceberg writer made carries
// its table schema ("iceberg.schema"), which a new table takes as it is;
// otherwise the schema comes from the Parquet columns.
type parquetInput struct {
	path string
	pf   *file.Reader
	fr   *pqarrow.FileReader
}

func openParquetInput(path string) (*parquetInput, error) {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: inputBatchRows}, memory.DefaultAllocator)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &parquetInput{path: path, pf: pf, fr: fr}, nil
}

func (p *parquetInput) schema() (*iceberg.Schema, error) {
	if kv := p.pf.MetaData().KeyValueMetadata().FindValue("iceberg.schema"); kv != nil {
		var s iceberg.Schema
		if err := json.Unmarshal([]byte(*kv), &s); err != nil {
			return nil, fmt.Errorf("%s: iceberg.schema: %w", p.path, err)
		}
		return &s, nil
	}
	as, err := p.fr.Schema()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.path, err)
	}
	return arrowschema.IcebergSchema(as)
}

func (p *parquetInput) batches(ctx context.Context, _ *iceberg.Schema) (array.RecordReader, error) {
	rr, err := p.fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.path, err)
	}
	return &bareReader{RecordReader: rr}, nil
}

func (p *parquetInput) rows() int64 { return p.pf.NumRows() }

func (p *parquetInput) close() { p.pf.Close() }

// bareReader drops field ids from the batches it passes on (see
// withoutFieldIDs).
type bareReader struct {
	array.RecordReader
	cur arrow.RecordBatch
}

func (b *bareReader) Next() bool {
	if b.cur != nil {
		b.cur.Release()
		b.cur = nil
	}
	if !b.RecordReader.Next() {
		return false
	}
	b.cur = withoutFieldIDs(b.RecordReader.RecordBatch())
	return true
}

func (b *bareReader) RecordBatch() arrow.RecordBatch { return b.cur }

func (b *bareReader) Release() {
	if b.cur != nil {
		b.cur.Release()
		b.cur = nil
	}
	b.RecordReader.Release()
}

// jsonlInput is a file of JSON objects, one per line.
type jsonlInput struct {
	path string
	data []byte
}

// schema infers columns from every row: integers are long, other numbers
// double, objects structs, arrays lists; a key only ever null is a string.
// Columns come in the order they first appear.
func (j *jsonlInput) schema() (*iceberg.Schema, error) {
	if err := checkJSONLines(j.data, j.path); err != nil {
		return nil, err
	}
	root := &jsonShape{}
	sc := bufio.NewScanner(bytes.NewReader(j.data))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.UseNumber()
		var row any
		if err := dec.Decode(&row); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", j.path, line, err)
		}
		if _, ok := row.(map[string]any); !ok {
			return nil, fmt.Errorf("%s:%d: a row must be a JSON object", j.path, line)
		}
		if err := root.add(row, "", j.path, line); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", j.path, err)
	}
	if len(root.fields) == 0 {
		return nil, fmt.Errorf("%s: no rows to take a schema from", j.path)
	}
	st := root.icebergType().(*iceberg.StructType)
	return iceberg.NewSchema(0, st.Fields), nil
}

func (j *jsonlInput) batches(_ context.Context, tableSchema *iceberg.Schema) (array.RecordReader, error) {
	// arrow-go's JSON reader panics on some malformed input: it gets only
	// lines that are one JSON object each.
	if err := checkJSONLines(j.data, j.path); err != nil {
		return nil, err
	}
	as, err := arrowschema.ArrowSchema(tableSchema.Fields)
	if err != nil {
		return nil, err
	}
	as = arrow.NewSchema(bareFields(as.Fields()), nil)
	geo, err := geoColumns(tableSchema)
	if err != nil {
		return nil, err
	}
	if len(geo) > 0 {
		jr := array.NewJSONReader(bytes.NewReader(j.data), withGeoStrings(as, geo), array.WithChunk(inputBatchRows))
		return &errPrefixReader{RecordReader: newGeoInputReader(jr, as, geo), prefix: j.path}, nil
	}
	jr := array.NewJSONReader(bytes.NewReader(j.data), as, array.WithChunk(inputBatchRows))
	return &errPrefixReader{RecordReader: jr, prefix: j.path}, nil
}

// checkJSONLines makes sure every non-blank line is one JSON object.
func checkJSONLines(data []byte, path string) error {
	if line := jsonlines.FirstBad(data); line > 0 {
		return fmt.Errorf("%s:%d: not one JSON object", path, line)
	}
	return nil
}

func bareFields(fs []arrow.Field) []arrow.Field {
	out := make([]arrow.Field, len(fs))
	for i, f := range fs {
		out[i] = arrow.Field{Name: f.Name, Type: bareType(f.Type), Nullable: f.Nullable}
	}
	return out
}

// rows counts the lines that are not blank: one row each.
func (j *jsonlInput) rows() int64 {
	var n int64
	for rest := j.data; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
	}
	return n
}

func (j *jsonlInput) close() {}

// errPrefixReader names the input file in read errors.
type errPrefixReader struct {
	array.RecordReader
	prefix string
}

func (e *errPrefixReader) Err() error {
	if err := e.RecordReader.Err(); err != nil && err != io.EOF {
		return fmt.Errorf("%s: %w", e.prefix, err)
	}
	return nil
}

// jsonShape accumulates what the values seen at one place in the rows
// look like.
type jsonShape struct {
	kind   string // "", "bool", "long", "double", "string", "struct", "list"
	fields map[string]*jsonShape
	order  []string
	elem   *jsonShape
}

func (s *jsonShape) add(v any, path, file string, line int) error {
	kind := ""
	switch x := v.(type) {
	case nil:
		return nil
	case bool:
		kind = "bool"
	case json.Number:
		kind = "long"
		if strings.ContainsAny(x.String(), ".eE") {
			kind = "double"
		}
	case string:
		kind = "string"
	case map[string]any:
		kind = "struct"
		if s.fields == nil {
			s.fields = map[string]*jsonShape{}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // Go maps have no order; first-seen order within a row is lost
		for _, k := range keys {
			f, ok := s.fields[k]
			if !ok {
				f = &jsonShape{}
				s.fields[k] = f
				s.order = append(s.order, k)
			}
			if err := f.add(x[k], joinPath(path, k), file, line); err != nil {
				return err
			}
		}
	case []any:
		kind = "list"
		if s.elem == nil {
			s.elem = &jsonShape{}
		}
		for _, e := range x {
			if err := s.elem.add(e, path+"[]", file, line); err != nil {
				return err
			}
		}
	}
	switch {
	case s.kind == "" || s.kind == kind:
		s.kind = kind
	case s.kind == "long" && kind == "double", s.kind == "double" && kind == "long":
		s.kind = "double"
	default:
		return fmt.Errorf("%s:%d: %s is a %s here but a %s in an earlier row", file, line, path, kind, s.kind)
	}
	return nil
}

func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func (s *jsonShape) icebergType() iceberg.Type {
	switch s.kind {
	case "bool":
		return iceberg.BooleanType{}
	case "long":
		return iceberg.LongType{}
	case "double":
		return iceberg.DoubleType{}
	case "struct":
		fields := make([]iceberg.NestedField, len(s.order))
		for i, k := range s.order {
			fields[i] = iceberg.NestedField{Name: k, Type: s.fields[k].icebergType()}
		}
		return &iceberg.StructType{Fields: fields}
	case "list":
		return &iceberg.ListType{Element: s.elem.icebergType()}
	}
	return iceberg.StringType{}
}
