package expr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/floedb/floe/errkind"
)

// ErrInvalidFilter marks a filter that does not parse or does not bind to
// the table's schema: the caller's mistake, not the table's. The cause
// stays reachable (errors.Is, errors.As) beside it.
var ErrInvalidFilter = errkind.New(errkind.InvalidArgument, "invalid filter")

// InvalidFilter wraps err, a parse or bind failure, as ErrInvalidFilter.
func InvalidFilter(err error) error { return fmt.Errorf("%w: %w", ErrInvalidFilter, err) }

// ParseFilter reads a filter as a user writes it (a command line, a C
// string): an Iceberg REST JSON expression when it starts with '{', else
// pyiceberg's row_filter text (blank text is an error, never "no
// filter": a delete must not take it for every row). Errors wrap
// ErrInvalidFilter.
func ParseFilter(text string) (Expr, error) {
	text = strings.TrimSpace(text)
	var e Expr
	var err error
	if strings.HasPrefix(text, "{") {
		e, err = ParseJSON([]byte(text))
	} else {
		e, err = ParseText(text)
	}
	if err != nil {
		return nil, InvalidFilter(err)
	}
	return e, nil
}

// ParseFilterJSON reads a filter in its JSON forms, as scan options and
// serialised tasks carry it: a JSON string holds pyiceberg's row_filter
// text, anything else is the REST JSON expression; empty or null is no
// filter (nil). Errors wrap ErrInvalidFilter.
func ParseFilterJSON(raw []byte) (Expr, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var e Expr
	var err error
	if raw[0] == '"' {
		var text string
		if err = json.Unmarshal(raw, &text); err == nil {
			e, err = ParseText(text)
		}
	} else {
		e, err = ParseJSON(raw)
	}
	if err != nil {
		return nil, InvalidFilter(err)
	}
	return e, nil
}
