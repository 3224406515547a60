package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// tableOptions is the options_json of floe_table_open, and the part of
// floe_task_stream's (taskOptions) that says how to reach the files.
type tableOptions struct {
	LocationMap map[string]string `json:"location_map"`
	// Relocate, true unless set false, reads a table found away from the
	// location its metadata records from where it was found
	// (table.Options.NoRelocate).
	Relocate  *bool  `json:"relocate"`
	Warehouse string `json:"warehouse"`
	// S3 configures s3:// and s3a:// locations: {"endpoint", "region",
	// "access_key_id", "secret_access_key", "session_token", "anonymous",
	// "path_style", "max_attempts", "part_size"}; unknown keys are refused.
	S3 *fileio.S3Options `json:"s3"`
	// GCS configures gs:// locations: {"project_id", "oauth2_token",
	// "service_host", "anonymous", "max_attempts", "chunk_size"}; unknown
	// keys are refused.
	GCS *fileio.GCSOptions `json:"gcs"`
	// Azure configures abfs://, abfss://, wasb:// and wasbs:// locations:
	// {"account_name", "account_key", "sas_token", "sas_tokens" (by
	// account), "connection_string", "blob_storage_authority",
	// "blob_storage_scheme", "anonymous", "max_attempts", "block_size"};
	// unknown keys are refused.
	Azure *fileio.AzureOptions `json:"azure"`
	// Properties are Iceberg-style storage properties ("s3.endpoint", …).
	// Storage is configured through "s3" instead, so any property is
	// refused rather than silently ignored.
	Properties map[string]string `json:"properties"`
	// TimeoutMs bounds floe_table_open and is the default bound of every
	// call on the handle (refresh, commits, expiry, scans opened from it)
	// and of a task stream's read (callContext).
	TimeoutMs int64 `json:"timeout_ms"`
	// MemoryLimit is the default memory_limit of scans opened from the
	// handle and of task reads (scan.Options.MemoryLimit).
	MemoryLimit int64 `json:"memory_limit"`
}

// parseTableOptions reads options JSON; empty input means defaults.
func parseTableOptions(data []byte) (tableOptions, error) {
	var o tableOptions
	if err := decodeStrict(data, &o, "table options"); err != nil {
		return o, err
	}
	return o, o.check()
}

// check refuses table options that can never work.
func (o tableOptions) check() error {
	if len(o.Properties) > 0 {
		keys := make([]string, 0, len(o.Properties))
		for k := range o.Properties {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return withStatus(statusUnsupported, fmt.Errorf("table options: storage property %q is not supported; "+
			"configure S3 with the \"s3\" option ({\"endpoint\", \"region\", \"access_key_id\", …})", keys[0]))
	}
	if _, err := fileio.NewLocationMap(o.LocationMap); err != nil {
		return withStatus(statusInvalidArgument, fmt.Errorf("table options: %w", err))
	}
	if err := checkS3Options("table options", o.S3); err != nil {
		return err
	}
	if err := checkGCSOptions("table options", o.GCS); err != nil {
		return err
	}
	if err := checkAzureOptions("table options", o.Azure); err != nil {
		return err
	}
	if _, err := timeoutOption("table options", o.TimeoutMs); err != nil {
		return err
	}
	if o.MemoryLimit < 0 || o.MemoryLimit > 0 && o.MemoryLimit < scan.MinMemoryLimit {
		return invalidArgument("table options: memory_limit %d: give at least %d bytes, or 0 for none", o.MemoryLimit, scan.MinMemoryLimit)
	}
	return nil
}

// checkS3Options refuses S3 settings that can never work at parse time,
// rather than at the first S3 request.
func checkS3Options(what string, s *fileio.S3Options) error {
	if s == nil {
		return nil
	}
	if err := s.Validate(); err != nil {
		return invalidArgument("%s: %v", what, err)
	}
	return nil
}

// checkGCSOptions is checkS3Options for GCS settings.
func checkGCSOptions(what string, g *fileio.GCSOptions) error {
	if g == nil {
		return nil
	}
	if err := g.Validate(); err != nil {
		return invalidArgument("%s: %v", what, err)
	}
	return nil
}

// checkAzureOptions is checkS3Options for Azure settings.
func checkAzureOptions(what string, a *fileio.AzureOptions) error {
	if a == nil {
		return nil
	}
	if err := a.Validate(); err != nil {
		return invalidArgument("%s: %v", what, err)
	}
	return nil
}

func (o tableOptions) timeout() time.Duration { return time.Duration(o.TimeoutMs) * time.Millisecond }

func (o tableOptions) table() table.Options {
	return table.Options{LocationMap: o.LocationMap, NoRelocate: o.Relocate != nil && !*o.Relocate, Warehouse: o.Warehouse, S3: o.S3, GCS: o.GCS, Azure: o.Azure}
}

// decodeStrict decodes one JSON object into v, refusing unknown keys and
// anything after the object. Empty input and "null" leave v as it is.
func decodeStrict(data []byte, v any, what string) error {
	data, err := checkJSON(data, what)
	if err != nil || data == nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalidArgument("%s: %v", what, err)
	}
	return nil
}

// checkJSON returns nil for empty (or blank) input, an error for input
// that is not one valid JSON value, and data otherwise.
func checkJSON(data []byte, what string) ([]byte, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	if !json.Valid(data) {
		return nil, invalidArgument("%s are not valid JSON: %s", what, jsonSyntaxError(data))
	}
	if where, ok := stringWithNUL(data); ok {
		// Where, not what: the string may be a secret (a token).
		return nil, invalidArgument("%s: the string at %s holds a NUL character, which no name, path or property may", what, where)
	}
	return data, nil
}

// stringWithNUL finds a string (key or value) of valid JSON data that
// holds a NUL, and says where it is as a JSON pointer (/key/0): a C
// string cannot carry one, so a name or path with a NUL means something
// other than it says on one side of the C ABI or the other
// ("important\x00junk" naming "important"). Only data spelling "\u0000"
// somewhere is decoded to look.
func stringWithNUL(data []byte) (string, bool) {
	if !bytes.Contains(data, []byte(`\u0000`)) {
		return "", false
	}
	var v any
	if json.Unmarshal(data, &v) != nil {
		return "", false
	}
	var walk func(v any, at string) (string, bool)
	walk = func(v any, at string) (string, bool) {
		switch v := v.(type) {
		case string:
			return at, strings.ContainsRune(v, 0)
		case []any:
			for i, e := range v {
				if where, ok := walk(e, fmt.Sprintf("%s/%d", at, i)); ok {
					return where, true
				}
			}
		case map[string]any:
			for k, e := range v {
				if strings.ContainsRune(k, 0) {
					return at + " (a key)", true
				}
				if where, ok := walk(e, at+"/"+k); ok {
					return where, true
				}
			}
		}
		return "", false
	}
	if at, ok := walk(v, ""); ok {
		if at == "" || at[0] == ' ' {
			at = "/" + at
		}
		return at, true
	}
	return "", false
}

// jsonSyntaxError says where JSON stops being valid.
func jsonSyntaxError(data []byte) string {
	var anything any
	err := json.Unmarshal(data, &anything)
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	if err != nil {
		return err.Error()
	}
	return "invalid"
}
