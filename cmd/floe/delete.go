package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/writer/ops"
)

const deleteUsage = "usage: floe delete TABLE EXPR [--mode copy-on-write|merge-on-read] [--token T] [--property K=V]… [--branch NAME] [--wap-id ID] [--stage]"

// runDelete deletes the rows a filter selects, in one snapshot.
func runDelete(ctx context.Context, raw []string, out, errOut io.Writer) error {
	a, err := parseArgs(raw, append([]string{"warehouse", "map", "mode"}, writeFlags...), append([]string{"no-relocate"}, writeBools...))
	if err != nil {
		return err
	}
	if len(a.positional) != 2 {
		return errors.New(deleteUsage)
	}
	filter, err := expr.ParseFilter(a.positional[1])
	if err != nil {
		return err
	}
	a.positional = a.positional[:1]
	mode, _ := a.last("mode")
	if err := ops.DeleteMode(mode).Check(); err != nil {
		return fmt.Errorf("--mode: %w", err)
	}
	opts, err := writeOptions(a)
	if err != nil {
		return err
	}
	t, _, err := a.openTable(ctx, deleteUsage)
	if err != nil {
		return err
	}
	res, err := ops.DeleteRows(ctx, t, filter, ops.RowOptions{Commit: opts, Mode: ops.DeleteMode(mode)})
	if err != nil {
		return err
	}
	statisticsOnCommit(ctx, t, errOut)
	label := snapshotLabel(t, opts, res.SnapshotID)
	switch {
	case res.TokenFound:
		fmt.Fprintf(out, "%s: token %q was already committed; nothing deleted\n", label, opts.Token)
		return nil
	case !res.Committed:
		fmt.Fprintf(out, "%s: no row matched; nothing deleted\n", label)
		return nil
	}
	fmt.Fprintf(out, "%s: deleted %d rows\n", label, res.DeletedRows)
	return nil
}
