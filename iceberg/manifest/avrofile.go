package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/twmb/avro"
	"github.com/twmb/avro/ocf"
)

// avroFile is an Avro object container file opened for decoding with a
// reader schema rewritten by field id.
type avroFile struct {
	r    *ocf.Reader
	meta map[string][]byte
}

func openAvroFile(data []byte, top *recordLevel, parts *partitionMatcher) (*avroFile, error) {
	if len(data) == 0 {
		return nil, errors.New("empty file")
	}
	r, err := ocf.NewReader(bytes.NewReader(data),
		ocf.WithDecodeOpts(avro.SkipUnknown()),
		ocf.WithReaderSchemaFunc(func(rd *ocf.Reader) (*avro.Schema, error) {
			return readerSchema(rd.Schema(), top, parts)
		}))
	if err != nil {
		return nil, fmt.Errorf("not a readable %s Avro file: %w", top.what, err)
	}
	return &avroFile{r: r, meta: r.Metadata()}, nil
}

// next decodes the next record; it returns false at the end of the file.
func (f *avroFile) next(v any) (bool, error) {
	err := f.r.Decode(v)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

func (f *avroFile) close() { _ = f.r.Close() }

// headerInt reads an optional integer of the Iceberg key/value header;
// files rewritten by avro-tools lack the header.
func (f *avroFile) headerInt(key string) (int64, bool, error) {
	raw, ok := f.meta[key]
	if !ok {
		return 0, false, nil
	}
	s := string(raw)
	if s == "null" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("header %s=%q is not an integer", key, s)
	}
	return n, true, nil
}

// errPanic marks a panic recovered at the package boundary.
var errPanic = errors.New("internal error while decoding Avro")

// guard turns a panic inside the Avro library into an error, so hostile
// input can never crash the host. Parsers here validate on their own; this
// is the last line.
func guard(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%w: %v", errPanic, p)
	}
}
