package main

import (
	"strings"
	"testing"
)

// A NUL inside any string of an argument's JSON (a name, a path, a
// property, a schema's field name) is refused as an invalid argument:
// past the C ABI a NUL would cut a name short ("important\x00junk"
// naming "important"). An escaped backslash before "u0000" is text, not
// a NUL, and passes.
func TestJSONArgumentsRefuseNUL(t *testing.T) {
	parsers := map[string]func([]byte) error{
		"table options":      func(b []byte) error { _, err := parseTableOptions(b); return err },
		"catalog properties": func(b []byte) error { _, err := catalogProperties(b); return err },
		"paths":              func(b []byte) error { _, err := parsePaths(b, "paths"); return err },
		"create options":     func(b []byte) error { _, err := parseCreateOptions(b); return err },
	}
	bad := map[string]string{
		"table options":      `{"warehouse": "/w/prod\u0000junk"}`,
		"catalog properties": `{"warehouse": "/w", "na\u0000me": "x"}`,
		"paths":              `["/data/a.parquet", "/data/b\u0000.parquet"]`,
		"create options":     `{"properties": {"k": "v\u0000"}}`,
	}
	good := map[string]string{
		"table options":      `{"warehouse": "/w/a\\u0000b"}`,
		"catalog properties": `{"warehouse": "/w\\u0000"}`,
		"paths":              `["/data/a\\u0000.parquet"]`,
		"create options":     `{"properties": {"k": "\\\\u0000"}}`,
	}
	for name, parse := range parsers {
		err := parse([]byte(bad[name]))
		if err == nil || classify(err, statusInternal) != statusInvalidArgument || !strings.Contains(err.Error(), "NUL") {
			t.Errorf("%s %s: %v", name, bad[name], err)
		}
		if err := parse([]byte(good[name])); err != nil {
			t.Errorf("%s %s: %v", name, good[name], err)
		}
	}
	// The refusal says where the NUL is, never the string: it may be a
	// secret.
	_, err := catalogProperties([]byte(`{"uri": "x", "headers": "h", "token": "S3CRETVALUE\u0000"}`))
	if err == nil || strings.Contains(err.Error(), "S3CRETVALUE") || !strings.Contains(err.Error(), "/token") {
		t.Errorf("a secret with a NUL: %v", err)
	}
}
