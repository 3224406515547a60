// Package avronull rewrites Avro object container files so that every
// value is declared nullable, as some Iceberg writers (BigQuery) declare
// the fields of manifests and manifest lists: each record field, array
// item and map value becomes a union of null and its type, records
// included. Tests use it to check that readers accept such files and
// report nulls where the spec requires a value.
//
// Nothing here is used outside tests.
package avronull

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/twmb/avro"
	"github.com/twmb/avro/ocf"
)

// Options say how to rewrite a file.
type Options struct {
	// NullLast writes unions as [T, "null"] instead of ["null", T]; unions
	// already in the file are turned around too.
	NullLast bool
	// Edit, if set, may change each record (decoded by the Avro library,
	// records as map[string]any) before it is written; nil writes a null.
	Edit func(i int, record map[string]any)
}

// Wrap rewrites the container data with every value nullable. The key/value
// metadata and the codec are kept; the records keep their values unless
// Edit changes them.
func Wrap(data []byte, opts Options) ([]byte, error) {
	r, err := ocf.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	meta := r.Metadata()
	dec := json.NewDecoder(bytes.NewReader(meta["avro.schema"]))
	dec.UseNumber()
	var schema any
	if err := dec.Decode(&schema); err != nil {
		return nil, fmt.Errorf("avronull: the file's schema: %w", err)
	}
	wrapped, err := json.Marshal(wrapType(schema, opts.NullLast, false))
	if err != nil {
		return nil, err
	}
	s, err := avro.Parse(string(wrapped))
	if err != nil {
		return nil, fmt.Errorf("avronull: the wrapped schema: %w", err)
	}
	user := map[string][]byte{}
	for k, v := range meta {
		if !strings.HasPrefix(k, "avro.") {
			user[k] = v
		}
	}
	wopts := []ocf.WriterOpt{ocf.WithMetadata(user), ocf.WithBlockCount(3)}
	switch string(meta["avro.codec"]) {
	case "", "null":
	case "deflate":
		wopts = append(wopts, ocf.WithCodec(ocf.DeflateCodec(0)))
	default:
		return nil, fmt.Errorf("avronull: codec %q", meta["avro.codec"])
	}
	var out bytes.Buffer
	w, err := ocf.NewWriter(&out, s, wopts...)
	if err != nil {
		return nil, err
	}
	for i := 0; ; i++ {
		var rec map[string]any
		if err := r.Decode(&rec); err != nil {
			if err == io.EOF {
				break
			}
			return nil, err
		}
		if opts.Edit != nil {
			opts.Edit(i, rec)
		}
		if err := w.Encode(rec); err != nil {
			return nil, fmt.Errorf("avronull: record %d: %w", i, err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// wrapType returns the schema JSON t with its nested values made nullable
// and, when nullable, t itself wrapped too.
func wrapType(t any, nullLast, nullable bool) any {
	switch x := t.(type) {
	case []any: // a union: never nested in another
		out := make([]any, 0, len(x))
		for _, b := range x {
			out = append(out, wrapType(b, nullLast, false))
		}
		if nullLast && len(out) == 2 && out[0] == "null" {
			out[0], out[1] = out[1], out[0]
		}
		return out
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, v := range x {
			c[k] = v
		}
		switch c["type"] {
		case "record", "error":
			fields := c["fields"].([]any)
			out := make([]any, len(fields))
			for i, f := range fields {
				fc := map[string]any{}
				for k, v := range f.(map[string]any) {
					fc[k] = v
				}
				fc["type"] = wrapType(fc["type"], nullLast, true)
				if nullLast {
					// A default must match a union's first branch.
					delete(fc, "default")
				}
				out[i] = fc
			}
			c["fields"] = out
		case "array":
			c["items"] = wrapType(c["items"], nullLast, true)
		case "map":
			c["values"] = wrapType(c["values"], nullLast, true)
		}
		if nullable {
			return union(c, nullLast)
		}
		return c
	}
	if nullable && t != "null" {
		return union(t, nullLast)
	}
	return t
}

func union(t any, nullLast bool) []any {
	if nullLast {
		return []any{t, "null"}
	}
	return []any{"null", t}
}
