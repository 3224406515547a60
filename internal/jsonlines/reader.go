package jsonlines

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// Reader reads JSON lines (one object a row) as Arrow record batches of a
// schema, a batch at a time: only the batch being built and the line being
// read are in memory, never the whole input. Keys bind to columns by name
// at every depth (struct fields, list elements, map entries); a key the
// schema does not have is refused naming the closest column, since its
// value would otherwise be dropped without a word. A value that does not
// fit its column is refused naming the line, the column and the value.
// Every refusal is an invalid argument; a read error of the source is
// returned as it is.
type Reader struct {
	src    *bufio.Reader
	schema *arrow.Schema
	mem    memory.Allocator
	bldr   *array.RecordBuilder
	rows   int // per batch
	line   int // lines read so far
	cur    arrow.RecordBatch
	err    error
	done   bool
	refs   atomic.Int64
	buf    []byte
}

// NewReader reads r's lines as batches of schema with at most batchRows
// rows each, allocated from mem (nil: Go memory).
func NewReader(r io.Reader, schema *arrow.Schema, batchRows int, mem memory.Allocator) *Reader {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	rd := &Reader{src: bufio.NewReaderSize(r, 1<<20), schema: schema, mem: mem, rows: max(batchRows, 1)}
	rd.bldr = array.NewRecordBuilder(mem, schema)
	rd.refs.Add(1)
	return rd
}

func (r *Reader) Schema() *arrow.Schema { return r.schema }

func (r *Reader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is RecordBatch (array.RecordReader still asks for it).
func (r *Reader) Record() arrow.RecordBatch { return r.cur }

func (r *Reader) Err() error { return r.err }

func (r *Reader) Retain() { r.refs.Add(1) }

func (r *Reader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.bldr != nil {
		r.bldr.Release()
		r.bldr = nil
	}
}

// Next builds the next batch; false at the end of the input or on an
// error (Err).
func (r *Reader) Next() (ok bool) {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.done {
		return false
	}
	defer func() {
		// arrow-go's builders panic on some input they were not meant to
		// see; that is a refused line, not a crash.
		if p := recover(); p != nil {
			r.err, ok = errkind.Errorf(errkind.InvalidArgument, "line %d: %v", r.line, p), false
		}
	}()
	n := 0
	for n < r.rows {
		text, err := r.readLine()
		if err != nil {
			r.err = err
			return false
		}
		if text == nil {
			r.done = true
			break
		}
		if text = bytes.TrimSpace(text); len(text) == 0 {
			continue
		}
		if err := r.addRow(text); err != nil {
			r.err = err
			return false
		}
		n++
	}
	if n == 0 {
		return false
	}
	r.cur = r.bldr.NewRecordBatch()
	return true
}

// readLine is the next line without its newline, nil at the end of the
// input. Lines of any length are read whole.
func (r *Reader) readLine() ([]byte, error) {
	r.buf = r.buf[:0]
	for {
		chunk, err := r.src.ReadSlice('\n')
		r.buf = append(r.buf, chunk...)
		switch {
		case err == nil:
			r.line++
			return r.buf[:len(r.buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(r.buf) == 0 {
				return nil, nil
			}
			r.line++
			return r.buf, nil
		default:
			return nil, err
		}
	}
}

// addRow appends one non-blank line to the batch being built.
func (r *Reader) addRow(text []byte) error {
	if text[0] != '{' || !json.Valid(text) {
		return errkind.Errorf(errkind.InvalidArgument, "line %d is not one JSON object", r.line)
	}
	if err := checkKeys(text, r.schema.Fields(), ""); err != nil {
		return fmt.Errorf("line %d: %w", r.line, err)
	}
	if err := r.bldr.UnmarshalJSON(text); err != nil {
		if msg := r.diagnose(text, r.schema.Fields(), ""); msg != "" {
			return errkind.Errorf(errkind.InvalidArgument, "line %d, %s", r.line, msg)
		}
		return errkind.Errorf(errkind.InvalidArgument, "line %d: %v", r.line, err)
	}
	return nil
}

// member is one key of a JSON object and its value's text.
type member struct {
	key string
	raw json.RawMessage
}

// members are the keys of the JSON object text in their order; nil when
// text is not an object.
func members(text []byte) []member {
	dec := json.NewDecoder(bytes.NewReader(text))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return out
		}
		out = append(out, member{key, raw})
	}
	return out
}

// elements are the values of the JSON array text; nil when it is not one.
func elements(text []byte) []json.RawMessage {
	if len(text) == 0 || text[0] != '[' {
		return nil
	}
	var out []json.RawMessage
	if json.Unmarshal(text, &out) != nil {
		return nil
	}
	return out
}

// checkKeys refuses a key of the object text that fields lack, looking
// into the objects its struct values, list elements and map entries hold.
// prefix is the dotted name of the object's column and a dot. text must
// be valid JSON (addRow checks): the scan below skips values without
// decoding them, the check running on every row.
func checkKeys(text []byte, fields []arrow.Field, prefix string) error {
	_, err := scanObject(text, 0, fields, prefix)
	return err
}

// scanObject checks the keys of the object starting at text[i] ('{') and
// returns the position after it.
func scanObject(text []byte, i int, fields []arrow.Field, prefix string) (int, error) {
	i = skipSpace(text, i+1)
	for i < len(text) && text[i] != '}' {
		end := skipString(text, i)
		key, err := keyText(text[i:end])
		if err != nil {
			return 0, err
		}
		i = skipSpace(text, end)
		i = skipSpace(text, i+1) // the colon
		k := fieldIndex(fields, key)
		if k < 0 {
			names := make([]string, len(fields))
			for n, f := range fields {
				names[n] = f.Name
			}
			return 0, iceberg.UnknownColumn(prefix, key, names)
		}
		if i, err = scanValue(text, i, fields[k].Type, prefix+key); err != nil {
			return 0, err
		}
		i = skipSpace(text, i)
		if i < len(text) && text[i] == ',' {
			i = skipSpace(text, i+1)
		}
	}
	return i + 1, nil
}

// scanValue checks the keys inside the value at text[i] of type t and
// returns the position after it.
func scanValue(text []byte, i int, t arrow.DataType, name string) (int, error) {
	switch t := t.(type) {
	case *arrow.StructType:
		if text[i] == '{' {
			return scanObject(text, i, t.Fields(), name+".")
		}
	case arrow.ListLikeType: // lists and maps (a list of key/value entries)
		if text[i] == '[' && nested(t.Elem()) {
			i = skipSpace(text, i+1)
			for i < len(text) && text[i] != ']' {
				var err error
				if i, err = scanValue(text, i, t.Elem(), name); err != nil {
					return 0, err
				}
				i = skipSpace(text, i)
				if i < len(text) && text[i] == ',' {
					i = skipSpace(text, i+1)
				}
			}
			return i + 1, nil
		}
	}
	return skipValue(text, i), nil
}

// keyText is the string a quoted JSON key holds.
func keyText(quoted []byte) (string, error) {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return "", errkind.Errorf(errkind.InvalidArgument, "key %s: %v", quoted, err)
	}
	return s, nil
}

func skipSpace(text []byte, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the position after the string starting at text[i].
func skipString(text []byte, i int) int {
	for i++; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the position after the value starting at text[i].
func skipValue(text []byte, i int) int {
	switch text[i] {
	case '"':
		return skipString(text, i)
	case '{', '[':
		depth := 0
		for ; i < len(text); i++ {
			switch text[i] {
			case '"':
				i = skipString(text, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for ; i < len(text); i++ {
		switch text[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
	}
	return i
}

// nested reports whether values of t can hold keys to check.
func nested(t arrow.DataType) bool {
	switch t.(type) {
	case *arrow.StructType, arrow.ListLikeType:
		return true
	}
	return false
}

func fieldIndex(fields []arrow.Field, name string) int {
	for i, f := range fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// diagnose finds the innermost value of the object text that arrow-go's
// builders refuse, by building each value alone in a batch of one column,
// and says which column it is in and what it should have been:
// `column "id": "three" is not a long`. "" when no single value is to
// blame (the row as a whole is).
func (r *Reader) diagnose(text []byte, fields []arrow.Field, prefix string) string {
	for _, m := range members(text) {
		i := fieldIndex(fields, m.key)
		if i < 0 || r.fits(m.raw, fields[i].Type) {
			continue
		}
		return r.diagnoseValue(m.raw, fields[i].Type, prefix+m.key)
	}
	return ""
}

func (r *Reader) diagnoseValue(raw []byte, t arrow.DataType, name string) string {
	switch tt := t.(type) {
	case *arrow.StructType:
		if len(raw) > 0 && raw[0] == '{' {
			if msg := r.diagnose(raw, tt.Fields(), name+"."); msg != "" {
				return msg
			}
		}
	case arrow.ListLikeType:
		for k, e := range elements(raw) {
			if !r.fits(e, tt.Elem()) {
				return r.diagnoseValue(e, tt.Elem(), fmt.Sprintf("%s[%d]", name, k))
			}
		}
	}
	return fmt.Sprintf("column %q: %s is not %s", name, shorten(raw), TypeName(t))
}

// fits reports whether raw builds as a value of type t.
func (r *Reader) fits(raw []byte, t arrow.DataType) bool {
	b := array.NewRecordBuilder(r.mem, arrow.NewSchema([]arrow.Field{{Name: "v", Type: t, Nullable: true}}, nil))
	defer b.Release()
	doc := make([]byte, 0, len(raw)+6)
	doc = append(append(append(doc, `{"v":`...), raw...), '}')
	ok := func() (ok bool) {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		return b.UnmarshalJSON(doc) == nil
	}()
	if ok {
		rec := b.NewRecordBatch()
		rec.Release()
	}
	return ok
}

// shorten is a JSON value's text cut to a length an error can show.
func shorten(raw []byte) string {
	const limit = 40
	if len(raw) <= limit {
		return string(raw)
	}
	return string(raw[:limit]) + "…"
}

// TypeName is how errors name the Iceberg type an Arrow type holds, with
// its article: "a long", "an int", "a decimal(9, 2)".
func TypeName(t arrow.DataType) string {
	name := t.String()
	switch t := t.(type) {
	case *arrow.Int64Type:
		name = "long"
	case *arrow.Int32Type:
		name = "int"
	case *arrow.Float64Type:
		name = "double"
	case *arrow.Float32Type:
		name = "float"
	case *arrow.BooleanType:
		name = "boolean"
	case *arrow.StringType, *arrow.LargeStringType:
		name = "string"
	case *arrow.BinaryType, *arrow.LargeBinaryType:
		name = "binary (base64 text)"
	case *arrow.Date32Type:
		name = "date"
	case *arrow.Time64Type:
		name = "time"
	case *arrow.TimestampType:
		name = "timestamp"
		if t.TimeZone != "" {
			name = "timestamptz"
		}
	case *arrow.Decimal128Type:
		name = fmt.Sprintf("decimal(%d, %d)", t.Precision, t.Scale)
	case *arrow.FixedSizeBinaryType:
		name = fmt.Sprintf("fixed[%d] (base64 text)", t.ByteWidth)
	case *arrow.StructType:
		name = "struct (a JSON object)"
	case *arrow.MapType:
		name = `map (a JSON array of {"key": …, "value": …})`
	case arrow.ListLikeType:
		name = "list (a JSON array)"
	}
	switch name[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + name
	}
	return "a " + name
}
