package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

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
	// evolveSchema is the schema append --evolve brings the table's
	// (current) up to by name: the input's columns with no field ids (ids
	// in an input belong to whatever wrote it).
	evolveSchema(current *iceberg.Schema) (*iceberg.Schema, error)
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
		if _, err := os.Stat(path); err != nil {
			return nil, err
		}
		return jsonlFile(path), nil
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

// evolveSchema is the file's schema without field ids: its types are
// real, so a column it holds wider than the table's promotes the table's.
func (p *parquetInput) evolveSchema(*iceberg.Schema) (*iceberg.Schema, error) {
	s, err := p.schema()
	if err != nil {
		return nil, err
	}
	return withoutFieldIDsSchema(s), nil
}

func (p *parquetInput) batches(ctx context.Context, _ *iceberg.Schema) (array.RecordReader, error) {
	rr, err := p.fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.path, err)
	}
	// Field ids the file carries belong to whatever wrote it; the writer
	// binds columns by name and never reads them.
	return rr, nil
}

func (p *parquetInput) rows() int64 { return p.pf.NumRows() }

func (p *parquetInput) close() { p.pf.Close() }

// jsonlInput is a file of JSON objects, one per line, read as a stream:
// each pass (schema inference, row count, the rows) opens it afresh and
// holds a line and a batch at a time, never the whole file.
type jsonlInput struct {
	path string
	open func() (io.ReadCloser, error)
	// opened are the readers batches handed out, closed by close.
	opened []io.Closer
}

func jsonlFile(path string) *jsonlInput {
	return &jsonlInput{path: path, open: func() (io.ReadCloser, error) { return os.Open(path) }}
}

// jsonlBytes is JSON lines held in memory, named name in errors.
func jsonlBytes(name string, data []byte) *jsonlInput {
	return &jsonlInput{path: name, open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}

// schema infers columns from every row: integers are long, other numbers
// double, objects structs, arrays lists; a key only ever null is a string.
// Columns, at every depth, come in the order they first appear.
func (j *jsonlInput) schema() (*iceberg.Schema, error) {
	f, err := j.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	root := &jsonShape{}
	rd := bufio.NewReaderSize(f, 1<<20)
	for line := 1; ; line++ {
		text, err := rd.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s: %w", j.path, err)
		}
		if text = bytes.TrimSpace(text); len(text) > 0 {
			if text[0] != '{' || !json.Valid(text) {
				return nil, fmt.Errorf("%s: line %d is not one JSON object", j.path, line)
			}
			dec := json.NewDecoder(bytes.NewReader(text))
			dec.UseNumber()
			row, derr := decodeOrdered(dec)
			if derr != nil {
				return nil, fmt.Errorf("%s: line %d: %w", j.path, line, derr)
			}
			if err := root.add(row, "", j.path, line); err != nil {
				return nil, err
			}
		}
		if err == io.EOF {
			break
		}
	}
	if len(root.fields) == 0 {
		return nil, fmt.Errorf("%s: no rows to take a schema from", j.path)
	}
	st := root.icebergType().(*iceberg.StructType)
	return iceberg.NewSchema(0, st.Fields), nil
}

// evolveSchema is the inferred schema with the table's types for the
// columns the table has: inferred types are guesses (every integer a
// long), and a table's int column must take JSON integers, not be
// promoted by them; the new columns take the inferred types.
func (j *jsonlInput) evolveSchema(current *iceberg.Schema) (*iceberg.Schema, error) {
	s, err := j.schema()
	if err != nil {
		return nil, err
	}
	s = withoutFieldIDsSchema(s)
	fields := adoptTypes(s.Fields, current.Fields)
	return iceberg.NewSchema(0, fields), nil
}

// batches reads the rows as batches of the table's schema, bound by name
// (jsonlines.Reader: a key the table lacks, or a value that does not fit
// its column, is refused naming the line and the column).
func (j *jsonlInput) batches(_ context.Context, tableSchema *iceberg.Schema) (array.RecordReader, error) {
	as, err := arrowschema.ArrowSchema(tableSchema.Fields)
	if err != nil {
		return nil, err
	}
	geo, err := geoColumns(tableSchema)
	if err != nil {
		return nil, err
	}
	f, err := j.open()
	if err != nil {
		return nil, err
	}
	j.opened = append(j.opened, f)
	if len(geo) > 0 {
		jr := jsonlines.NewReader(f, withGeoStrings(as, geo), inputBatchRows, nil)
		return &errPrefixReader{RecordReader: newGeoInputReader(jr, as, geo), prefix: j.path}, nil
	}
	jr := jsonlines.NewReader(f, as, inputBatchRows, nil)
	return &errPrefixReader{RecordReader: jr, prefix: j.path}, nil
}

// rows counts the lines that are not blank: one row each (0 when the file
// cannot be read; batches will say why).
func (j *jsonlInput) rows() int64 {
	f, err := j.open()
	if err != nil {
		return 0
	}
	defer f.Close()
	var n int64
	rd := bufio.NewReaderSize(f, 1<<20)
	blank := true
	for {
		chunk, err := rd.ReadSlice('\n')
		if len(bytes.TrimSpace(chunk)) > 0 {
			blank = false
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if !blank {
			n++
		}
		blank = true
		if err != nil {
			return n
		}
	}
}

func (j *jsonlInput) close() {
	for _, c := range j.opened {
		c.Close()
	}
	j.opened = nil
}

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
	case jsonObject:
		kind = "struct"
		if s.fields == nil {
			s.fields = map[string]*jsonShape{}
		}
		for _, m := range x {
			f, ok := s.fields[m.key]
			if !ok {
				f = &jsonShape{}
				s.fields[m.key] = f
				s.order = append(s.order, m.key)
			}
			if err := f.add(m.val, joinPath(path, m.key), file, line); err != nil {
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

// jsonObject is a JSON object with its keys in the order written (a Go
// map would lose it, and a new table's columns follow it).
type jsonObject []jsonMember

type jsonMember struct {
	key string
	val any
}

// decodeOrdered reads one JSON value: objects as jsonObject, arrays as
// []any, numbers as json.Number (dec must UseNumber).
func decodeOrdered(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'):
		obj := jsonObject{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			obj = append(obj, jsonMember{k.(string), v})
		}
		_, err = dec.Token()
		return obj, err
	case json.Delim('['):
		arr := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err = dec.Token()
		return arr, err
	}
	return t, nil
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
