package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/floedb/floe/iceberg/action"
)

const rollbackUsage = "usage: floe rollback TABLE --to-snapshot ID | --to-timestamp MS"

// runRollback moves main back to one of its ancestors, without writing a
// snapshot (ManageSnapshots.RollbackTo, RollbackToTime).
func runRollback(ctx context.Context, raw []string, out, _ io.Writer) error {
	a, err := parseArgs(raw, []string{"warehouse", "map", "to-snapshot", "to-timestamp"}, []string{"no-relocate"})
	if err != nil {
		return err
	}
	id, byID := a.last("to-snapshot")
	ts, byTime := a.last("to-timestamp")
	if len(a.positional) != 1 || byID == byTime {
		return errors.New(rollbackUsage)
	}
	ms := &action.ManageSnapshots{}
	verb := "rollback-to-snapshot"
	if byID {
		n, err := parseSnapshotID("--to-snapshot", id)
		if err != nil {
			return err
		}
		ms.RollbackTo(n)
	} else {
		n, err := parseTimestampMs(ts)
		if err != nil {
			return err
		}
		ms.RollbackToTime(n)
		verb = "rollback-to-timestamp"
	}
	t, err := a.loadTable(ctx, a.positional[0])
	if err != nil {
		return err
	}
	return applyAndReport(ctx, out, "rollback", []string{verb}, t, ms)
}

// parseTimestampMs reads --to-timestamp: milliseconds since the epoch, or
// an RFC 3339 time (2026-12-06T10:00:00Z).
func parseTimestampMs(v string) (int64, error) {
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		return ms, nil
	}
	if ts, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return ts.UnixMilli(), nil
	}
	return 0, fmt.Errorf("--to-timestamp wants milliseconds since the epoch or an RFC 3339 time, got %q", v)
}
