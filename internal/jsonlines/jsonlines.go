// Package jsonlines reads JSON-lines input (one JSON object a line) as
// Arrow record batches of a table's schema, streaming (Reader): keys bind
// to columns by name at every depth, an unknown key is refused naming the
// closest column, and a value that does not fit is refused naming its line
// and column. It is the one JSON-rows conversion: the C API's
// floe_json_rows_stream (and so Python's lists of dicts) and the CLI's
// append of .jsonl files both read through it, each prefixing its errors.
package jsonlines
