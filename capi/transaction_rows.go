package main

import (
	"context"
	"encoding/json"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer/ops"
)

// The row-level and expiry actions of an action list (pyiceberg's
// tx.delete, tx.overwrite and Java's expireSnapshots inside a
// transaction). A row-level action is planned on the table as the
// transaction began and writes its delete or rewritten files while the
// list is added (ops.DeleteRowsIn); the transaction deletes them when it
// does not commit. overwrite-rows takes its new rows as files already
// written (floe_write_files through the table or a preview of the list),
// as every other snapshot action does: the rows the filter selects are
// deleted in one snapshot and the files appended in a second, as
// pyiceberg's overwrite does (a delete, then a fast append).

// txRowsFields are the fields of delete-rows and overwrite-rows.
type txRowsFields struct {
	Action string `json:"action"`
	// Filter is the rows to delete: pyiceberg's row_filter text or a REST
	// JSON expression, as floe_delete_rows takes it.
	Filter json.RawMessage `json:"filter"`
	// DeleteMode is floe_delete_rows' delete_mode ("copy-on-write" or
	// "merge-on-read"); empty follows the table's write.delete.mode.
	DeleteMode         string            `json:"delete-mode"`
	Branch             string            `json:"branch"`
	SnapshotProperties map[string]string `json:"snapshot-properties"`
}

// parse reads the filter and the row options.
func (f txRowsFields) parse(a txAction) (expr.Expr, ops.RowOptions, error) {
	where, err := txFilter(a, f.Filter)
	if err != nil {
		return nil, ops.RowOptions{}, err
	}
	mode := ops.DeleteMode(f.DeleteMode)
	if err := mode.Check(); err != nil {
		return nil, ops.RowOptions{}, a.invalid("delete-mode: %v", err)
	}
	commit := table.CommitOptions{Branch: f.Branch, Properties: f.SnapshotProperties}
	return where, ops.RowOptions{Commit: commit, Mode: mode}, nil
}

func init() {
	registerTx(map[string]func(txAction, *txActions) error{
		"delete-rows": func(a txAction, into *txActions) error {
			var v txRowsFields
			if err := a.decode(&v); err != nil {
				return err
			}
			where, opts, err := v.parse(a)
			if err != nil {
				return err
			}
			into.thenRun(func(ctx context.Context, tx *table.Transaction) error {
				return ops.DeleteRowsIn(ctx, tx, where, opts)
			})
			return nil
		},
		"overwrite-rows": func(a txAction, into *txActions) error {
			var v struct {
				txRowsFields
				Files []byte `json:"files"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			where, opts, err := v.parse(a)
			if err != nil {
				return err
			}
			// No files (an empty data frame) is a delete alone.
			files, err := txFilesFields{Files: v.Files}.files(a, false)
			if err != nil {
				return err
			}
			into.files = append(into.files, files...)
			into.thenRun(func(ctx context.Context, tx *table.Transaction) error {
				if err := ops.DeleteRowsIn(ctx, tx, where, opts); err != nil {
					return err
				}
				if len(files) == 0 {
					return nil
				}
				return tx.Append(files, opts.Commit)
			})
			return nil
		},
		"expire-snapshots": func(a txAction, into *txActions) error {
			var v struct {
				Action      string `json:"action"`
				OlderThanMs *int64 `json:"older-than-ms"`
				RetainLast  *int   `json:"retain-last"`
				KeepFiles   bool   `json:"keep-files"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if v.RetainLast != nil && *v.RetainLast < 1 {
				return a.invalid("retain-last must be at least 1, not %d", *v.RetainLast)
			}
			into.then(func(tx *table.Transaction) error {
				return tx.ExpireSnapshots(v.OlderThanMs, v.RetainLast, table.ExpireOptions{KeepFiles: v.KeepFiles})
			})
			return nil
		},
	})
}
