// Package jsonlines checks JSON-lines input (one JSON object a line) before
// Arrow's JSON reader sees it: that reader takes a bare value or a split
// object without complaint, so the C API and the CLI check first and word
// the error for their callers.
package jsonlines

import (
	"bytes"
	"encoding/json"
)

// FirstBad is the 1-based number of the first non-blank line of data that
// is not one JSON object, 0 when every line is one.
func FirstBad(data []byte) int {
	line := 0
	for len(data) > 0 {
		line++
		text := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			text, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		text = bytes.TrimSpace(text)
		if len(text) == 0 {
			continue
		}
		if text[0] != '{' || !json.Valid(text) {
			return line
		}
	}
	return 0
}
