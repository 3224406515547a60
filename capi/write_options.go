package main

import (
	"encoding/json"
	"os"
	"strings"
	"time"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer/ops"
)

// createOptions is the options_json of floe_table_create.
type createOptions struct {
	// PartitionSpec is a spec in Iceberg's JSON form (source ids);
	// PartitionBy names source columns instead. At most one of the two.
	PartitionSpec json.RawMessage   `json:"partition_spec"`
	PartitionBy   []partitionBy     `json:"partition_by"`
	SortOrder     json.RawMessage   `json:"sort_order"`
	Properties    map[string]string `json:"properties"`
	FormatVersion int               `json:"format_version"`
	Warehouse     string            `json:"warehouse"`
	// S3 configures s3:// and s3a:// locations, as in the table options.
	S3 *fileio.S3Options `json:"s3"`
	// GCS configures gs:// locations, as in the table options.
	GCS *fileio.GCSOptions `json:"gcs"`
	// Azure configures Azure locations, as in the table options.
	Azure *fileio.AzureOptions `json:"azure"`
	// Ensure opens an existing table instead of failing, bringing its
	// schema up to the given one by name (table.EnsureTable).
	Ensure bool `json:"ensure"`
	// Location is where a catalog puts a new table instead of its default
	// under the warehouse (floe_catalog_create_table only: a path table's
	// location is the call's own argument).
	Location string `json:"location"`
}

// partitionBy is one partition field named by its source column.
type partitionBy struct {
	Column    string `json:"column"`
	Transform string `json:"transform"` // Iceberg form: identity, day, bucket[16], truncate[4]…; "" is identity
	Name      string `json:"name"`      // "" takes the reference implementation's default name
}

func parseCreateOptions(data []byte) (createOptions, error) {
	var o createOptions
	if err := decodeStrict(data, &o, "create options"); err != nil {
		return o, err
	}
	if len(o.PartitionSpec) > 0 && len(o.PartitionBy) > 0 {
		return o, invalidArgument("create options: give partition_spec or partition_by, not both")
	}
	if err := checkS3Options("create options", o.S3); err != nil {
		return o, err
	}
	if err := checkGCSOptions("create options", o.GCS); err != nil {
		return o, err
	}
	if err := checkAzureOptions("create options", o.Azure); err != nil {
		return o, err
	}
	return o, nil
}

// spec builds the partition spec the options describe against schema;
// nil means unpartitioned.
func (o createOptions) spec(schema *iceberg.Schema) (*iceberg.PartitionSpec, error) {
	if len(o.PartitionSpec) > 0 {
		var spec iceberg.PartitionSpec
		if err := json.Unmarshal(o.PartitionSpec, &spec); err != nil {
			return nil, invalidArgument("create options: partition_spec: %v", err)
		}
		return &spec, nil
	}
	if len(o.PartitionBy) == 0 {
		return nil, nil
	}
	spec := &iceberg.PartitionSpec{}
	for _, p := range o.PartitionBy {
		field, ok := schema.FindFieldByName(p.Column)
		if !ok {
			return nil, invalidArgument("create options: partition_by: no column %q in the schema", p.Column)
		}
		if field.ID == 0 {
			return nil, invalidArgument("create options: partition_by needs a schema with field ids (column %q has none)", p.Column)
		}
		name := strings.TrimSpace(p.Transform)
		if name == "" {
			name = "identity"
		}
		tr, err := iceberg.ParseTransform(name)
		if _, unknown := tr.(iceberg.UnknownTransform); err != nil || unknown {
			return nil, invalidArgument("create options: partition_by %q: transform %q is not one floe can write (identity, year, month, day, hour, bucket[N], truncate[W], void)", p.Column, name)
		}
		fieldName := p.Name
		if fieldName == "" {
			fieldName = defaultPartitionName(p.Column, name)
		}
		spec.Fields = append(spec.Fields, iceberg.PartitionField{SourceID: field.ID, Name: fieldName, Transform: tr})
	}
	return spec, nil
}

// defaultPartitionName names a partition field as the reference
// implementation does: the column for identity, else column_suffix.
func defaultPartitionName(column, transform string) string {
	base, _, _ := strings.Cut(transform, "[")
	switch base {
	case "identity":
		return column
	case "truncate":
		return column + "_trunc"
	case "void":
		return column + "_null"
	}
	return column + "_" + base
}

func (o createOptions) sortOrder() (*iceberg.SortOrder, error) {
	if len(o.SortOrder) == 0 {
		return nil, nil
	}
	var order iceberg.SortOrder
	if err := json.Unmarshal(o.SortOrder, &order); err != nil {
		return nil, invalidArgument("create options: sort_order: %v", err)
	}
	return &order, nil
}

// commitOptions is the commit_json every committing entry point takes.
type commitOptions struct {
	Token      string            `json:"token"`
	Properties map[string]string `json:"properties"`
	RunID      string            `json:"run_id"`
	Branch     string            `json:"branch"`
	// TimeoutMs bounds this call instead of the table handle's timeout_ms.
	TimeoutMs *int64 `json:"timeout_ms"`
}

// parseCommitOptions reads commit_json: the commit's options, and its
// timeout_ms (nil when not given: the table handle's applies).
func parseCommitOptions(data []byte) (table.CommitOptions, *time.Duration, error) {
	var o commitOptions
	if err := decodeStrict(data, &o, "commit options"); err != nil {
		return table.CommitOptions{}, nil, err
	}
	timeout, err := o.timeout()
	if err != nil {
		return table.CommitOptions{}, nil, err
	}
	return o.table(), timeout, nil
}

func (o commitOptions) timeout() (*time.Duration, error) {
	if o.TimeoutMs == nil {
		return nil, nil
	}
	d, err := timeoutOption("commit options", *o.TimeoutMs)
	return &d, err
}

func (o commitOptions) table() table.CommitOptions {
	return table.CommitOptions{Token: o.Token, Properties: o.Properties, RunID: o.RunID, Branch: o.Branch}
}

// rowCommitOptions is the commit_json of the entry points that delete
// rows: a commit's options and how rows are deleted.
type rowCommitOptions struct {
	commitOptions
	// DeleteMode is "copy-on-write" or "merge-on-read"; empty follows the
	// table's write.delete.mode.
	DeleteMode string `json:"delete_mode"`
}

func parseRowCommitOptions(data []byte) (ops.RowOptions, *time.Duration, error) {
	var o rowCommitOptions
	if err := decodeStrict(data, &o, "commit options"); err != nil {
		return ops.RowOptions{}, nil, err
	}
	mode := ops.DeleteMode(o.DeleteMode)
	if err := mode.Check(); err != nil {
		return ops.RowOptions{}, nil, invalidArgument("commit options: %v", err)
	}
	timeout, err := o.timeout()
	if err != nil {
		return ops.RowOptions{}, nil, err
	}
	return ops.RowOptions{Commit: o.table(), Mode: mode}, timeout, nil
}

// expireOptions is the options_json of floe_expire_snapshots.
type expireOptions struct {
	OlderThanMs *int64 `json:"older_than_ms"`
	RetainLast  *int   `json:"retain_last"`
	KeepFiles   bool   `json:"keep_files"`
}

func parseExpireOptions(data []byte) (expireOptions, error) {
	var o expireOptions
	if err := decodeStrict(data, &o, "expire options"); err != nil {
		return o, err
	}
	if o.RetainLast != nil && *o.RetainLast < 1 {
		return o, invalidArgument("expire options: retain_last must be at least 1, not %d", *o.RetainLast)
	}
	return o, nil
}

// parseRemovedPaths reads the JSON array of file paths floe_commit removes.
func parseRemovedPaths(data []byte) ([]string, error) { return parsePaths(data, "removed paths") }

// parsePaths reads a JSON array of file paths (what names them in
// messages).
func parsePaths(data []byte, what string) ([]string, error) {
	data, err := checkJSON(data, what)
	if err != nil || data == nil {
		return nil, err
	}
	var paths []string
	if err := json.Unmarshal(data, &paths); err != nil {
		return nil, invalidArgument("%s: want a JSON array of strings: %v", what, err)
	}
	for _, p := range paths {
		if p == "" {
			return nil, invalidArgument("%s: an empty path", what)
		}
	}
	return paths, nil
}

// resolveLocation turns a dataset name ("ns.table", no path separator)
// into a location under the warehouse; anything else is a location.
func resolveLocation(location, warehouse string) (string, error) {
	if strings.ContainsAny(location, `/\:`) || !strings.Contains(location, ".") || strings.HasSuffix(location, ".json") {
		return location, nil
	}
	if _, err := os.Stat(location); err == nil {
		return location, nil // a directory in the working directory wins, as in table.Open
	}
	loc, err := table.WarehouseLocation(warehouse, location)
	if err != nil {
		return "", invalidArgument("%v", err)
	}
	return loc, nil
}
