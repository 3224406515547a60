package jsonlines

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/floedb/floe/errkind"
)

// FuzzReader holds the reader to its promise on any input: it never
// panics; it fails with an invalid argument (the input is at fault) or
// reads one row for every non-blank line, each of which is one JSON
// object.
func FuzzReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n[1]\n"))
	f.Add([]byte("\n {\"id\": 1, \"info\": {\"city\": \"x\"}} \n{}"))
	f.Add([]byte(`{"id": 1, "items": [{"qty": 2}, null], "attrs": [{"key": "k", "value": {"v": 3}}]}`))
	f.Add([]byte(`{"id": "three", "nmae": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), rowSchema(), 3, nil)
		defer r.Release()
		rows := 0
		for r.Next() {
			rows += int(r.RecordBatch().NumRows())
		}
		if err := r.Err(); err != nil {
			if !errors.Is(err, errkind.InvalidArgument) {
				t.Fatalf("error %v is not an invalid argument", err)
			}
			return
		}
		want := 0
		for _, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			if line[0] != '{' || !json.Valid(line) {
				t.Fatalf("line %q is not one object, yet read", line)
			}
			want++
		}
		if rows != want {
			t.Fatalf("%d rows for %d lines", rows, want)
		}
	})
}
