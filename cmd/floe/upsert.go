package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/floedb/floe/writer/ops"
)

const upsertUsage = "usage: floe upsert TABLE FILE.parquet|FILE.jsonl [--on K1,K2] [--mode merge-on-read|copy-on-write|equality-deletes] [--no-update] [--no-insert] [--token T] [--property K=V]… [--branch NAME] [--wap-id ID] [--stage]"

// upsertOutput is the JSON object floe upsert prints.
type upsertOutput struct {
	Command      string `json:"command"`
	SnapshotID   int64  `json:"snapshot_id"`
	Committed    bool   `json:"committed"`
	TokenFound   bool   `json:"token_found"`
	RowsUpdated  int64  `json:"rows_updated"`
	RowsInserted int64  `json:"rows_inserted"`
	RowsDeleted  int64  `json:"rows_deleted"`
}

// runUpsert merges a file's rows into a table by key (ops.Upsert), read
// as append reads its input, and prints one JSON object.
func runUpsert(ctx context.Context, raw []string, out, errOut io.Writer) error {
	a, err := parseArgs(raw, append([]string{"warehouse", "map", "on", "mode"}, writeFlags...), append([]string{"no-relocate", "no-update", "no-insert"}, writeBools...))
	if err != nil {
		return err
	}
	if len(a.positional) != 2 {
		return errors.New(upsertUsage)
	}
	path := a.positional[1]
	a.positional = a.positional[:1]
	opts := ops.UpsertOptions{WhenMatchedUpdateAll: !a.bools["no-update"], WhenNotMatchedInsertAll: !a.bools["no-insert"]}
	if on, ok := a.last("on"); ok {
		for _, k := range strings.Split(on, ",") {
			if k = strings.TrimSpace(k); k != "" {
				opts.JoinCols = append(opts.JoinCols, k)
			}
		}
		if len(opts.JoinCols) == 0 {
			return fmt.Errorf("--on wants column names, got %q", on)
		}
	}
	mode, _ := a.last("mode")
	opts.Mode = ops.UpsertMode(mode)
	if opts.Commit, err = writeOptions(a); err != nil {
		return err
	}
	in, err := openInput(path)
	if err != nil {
		return err
	}
	defer in.close()
	t, _, err := a.openTable(ctx, upsertUsage)
	if err != nil {
		return err
	}
	rdr, err := in.batches(ctx, t.Metadata.CurrentSchema())
	if err != nil {
		return err
	}
	defer rdr.Release()
	res, err := ops.Upsert(ctx, t, &panicSafeReader{RecordReader: rdr}, opts)
	if err != nil {
		return err
	}
	statisticsOnCommit(ctx, t, errOut)
	data, err := json.Marshal(upsertOutput{
		Command: "upsert", SnapshotID: res.SnapshotID, Committed: res.Committed, TokenFound: res.TokenFound,
		RowsUpdated: res.RowsUpdated, RowsInserted: res.RowsInserted, RowsDeleted: res.DeletedRows,
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(out, string(data))
	return nil
}
