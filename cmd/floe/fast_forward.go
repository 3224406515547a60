package main

import (
	"context"
	"errors"
	"io"

	"github.com/floedb/floe/iceberg/action"
)

const fastForwardUsage = "usage: floe fast-forward TABLE BRANCH --to REF"

// runFastForward moves a branch forward to the snapshot of another ref
// (write-audit-publish's last step: fast-forward main --to audit).
func runFastForward(ctx context.Context, raw []string, out, _ io.Writer) error {
	a, err := parseArgs(raw, []string{"warehouse", "map", "to"}, []string{"no-relocate"})
	if err != nil {
		return err
	}
	to, ok := a.last("to")
	if len(a.positional) != 2 || !ok {
		return errors.New(fastForwardUsage)
	}
	ms := (&action.ManageSnapshots{}).FastForwardBranch(a.positional[1], to)
	if err := ms.Err(); err != nil {
		return err
	}
	t, err := a.loadTable(ctx, a.positional[0])
	if err != nil {
		return err
	}
	return applyAndReport(ctx, out, "fast-forward", []string{"fast-forward"}, t, ms)
}
