package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer/ops"
)

const deleteUsage = "usage: floe delete TABLE EXPR [--mode copy-on-write|merge-on-read] [--token T] [--property K=V]…"

// runDelete deletes the rows a filter selects, in one snapshot.
func runDelete(ctx context.Context, raw []string, out, _ io.Writer) error {
	a, err := parseArgs(raw, []string{"warehouse", "map", "mode", "token", "property"}, []string{"no-relocate"})
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
	props, err := keyValues(a.values["property"], "--property")
	if err != nil {
		return err
	}
	token, _ := a.last("token")
	t, _, err := a.openTable(ctx, deleteUsage)
	if err != nil {
		return err
	}
	res, err := ops.DeleteRows(ctx, t, filter, ops.RowOptions{
		Commit: table.CommitOptions{Token: token, Properties: props},
		Mode:   ops.DeleteMode(mode),
	})
	if err != nil {
		return err
	}
	id := res.SnapshotID
	switch {
	case res.TokenFound:
		fmt.Fprintf(out, "snapshot %d: token %q was already committed; nothing deleted\n", id, token)
		return nil
	case !res.Committed:
		fmt.Fprintf(out, "snapshot %d: no row matched; nothing deleted\n", id)
		return nil
	}
	fmt.Fprintf(out, "snapshot %d: deleted %d rows\n", id, res.DeletedRows)
	return nil
}
