package main

import (
	"encoding/json"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer"
)

// The snapshot-producing actions of an action list: files written by
// floe_write_files (its bytes, base64 in the JSON), committed as the
// table's own commit functions commit them. Each makes one snapshot.

// txFilesFields are the fields every snapshot action has.
type txFilesFields struct {
	Action string `json:"action"`
	// Files are floe_write_files' bytes, base64 (JSON's form of bytes).
	Files []byte `json:"files"`
	// Branch is the branch the snapshot goes to (default main).
	Branch string `json:"branch"`
	// SnapshotProperties are extra snapshot summary entries.
	SnapshotProperties map[string]string `json:"snapshot-properties"`
}

func (f txFilesFields) options() table.CommitOptions {
	return table.CommitOptions{Branch: f.Branch, Properties: f.SnapshotProperties}
}

// files decodes the entries; required says the action needs some.
func (f txFilesFields) files(a txAction, required bool) ([]manifest.DataFile, error) {
	if len(f.Files) == 0 {
		if required {
			return nil, a.invalid("no \"files\" (floe_write_files' bytes, base64)")
		}
		return nil, nil
	}
	files, err := writer.DecodeDataFiles(f.Files)
	if err != nil {
		return nil, a.invalid("files: %v", err)
	}
	return files, nil
}

// txFilter reads a filter given as pyiceberg's text or a REST JSON
// expression object.
func txFilter(a txAction, raw json.RawMessage) (expr.Expr, error) {
	if len(raw) == 0 {
		return nil, a.invalid("no \"filter\" (use \"true\" for every row)")
	}
	text := string(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		text = s
	}
	e, err := expr.ParseFilter(text)
	if err != nil {
		return nil, a.invalid("filter: %v", err)
	}
	if e == nil {
		return nil, a.invalid("empty filter (use \"true\" for every row)")
	}
	return e, nil
}

func init() {
	registerTx(map[string]func(txAction, *txActions) error{
		"append-files": func(a txAction, into *txActions) error {
			var v txFilesFields
			if err := a.decode(&v); err != nil {
				return err
			}
			files, err := v.files(a, true)
			if err != nil {
				return err
			}
			into.files = append(into.files, files...)
			into.then(func(tx *table.Transaction) error { return tx.Append(files, v.options()) })
			return nil
		},
		"replace-partitions-files": func(a txAction, into *txActions) error {
			var v struct {
				txFilesFields
				RunID string `json:"run-id"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			files, err := v.files(a, true)
			if err != nil {
				return err
			}
			into.files = append(into.files, files...)
			opts := v.options()
			opts.RunID = v.RunID
			into.then(func(tx *table.Transaction) error { return tx.ReplacePartitions(files, opts) })
			return nil
		},
		"overwrite-files": func(a txAction, into *txActions) error {
			var v struct {
				txFilesFields
				Filter json.RawMessage `json:"filter"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			where, err := txFilter(a, v.Filter)
			if err != nil {
				return err
			}
			files, err := v.files(a, false)
			if err != nil {
				return err
			}
			into.files = append(into.files, files...)
			into.then(func(tx *table.Transaction) error { return tx.Overwrite(where, files, v.options()) })
			return nil
		},
		"commit-files": func(a txAction, into *txActions) error {
			var v struct {
				txFilesFields
				Removed []string `json:"removed"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			return commitFilesStep(a, into, v.txFilesFields, v.Removed)
		},
		"delete-files": func(a txAction, into *txActions) error {
			var v struct {
				Action             string            `json:"action"`
				Removed            []string          `json:"removed"`
				Branch             string            `json:"branch"`
				SnapshotProperties map[string]string `json:"snapshot-properties"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if len(v.Removed) == 0 {
				return a.invalid("no \"removed\" (an array of file paths as the table's manifests write them)")
			}
			return commitFilesStep(a, into, txFilesFields{Branch: v.Branch, SnapshotProperties: v.SnapshotProperties}, v.Removed)
		},
	})
}

// commitFilesStep adds files and removes others by path in one snapshot.
func commitFilesStep(a txAction, into *txActions, v txFilesFields, removed []string) error {
	for _, p := range removed {
		if p == "" {
			return a.invalid("removed: an empty path")
		}
	}
	files, err := v.files(a, false)
	if err != nil {
		return err
	}
	if len(files) == 0 && len(removed) == 0 {
		return a.invalid("neither \"files\" nor \"removed\": nothing to commit")
	}
	into.files = append(into.files, files...)
	into.then(func(tx *table.Transaction) error { return tx.CommitFiles(files, removed, v.options()) })
	return nil
}
