package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/floedb/floe/internal/progress"
	"github.com/floedb/floe/writer/ops"
)

const addFilesUsage = "usage: floe add-files TABLE FILE.parquet… [--token T] [--property K=V]… [--branch NAME] [--wap-id ID] [--stage]"

// runAddFiles registers existing Parquet files in a table without
// rewriting them (ops.AddFiles).
func runAddFiles(ctx context.Context, raw []string, out, errOut io.Writer) error {
	a, err := parseArgs(raw, append([]string{"warehouse", "map"}, writeFlags...), append([]string{"no-relocate"}, writeBools...))
	if err != nil {
		return err
	}
	if len(a.positional) < 2 {
		return errors.New(addFilesUsage)
	}
	opts, err := writeOptions(a)
	if err != nil {
		return err
	}
	name := a.positional[0]
	if loc, err := tableLocation(a); err == nil && !a.hasCatalog() {
		name = loc
	}
	t, err := a.loadTable(ctx, name)
	if err != nil {
		return err
	}
	var paths []string
	for _, p := range a.positional[1:] {
		// A local path given relative to here is the file here.
		if filepath.IsLocal(p) {
			if abs, err := filepath.Abs(p); err == nil {
				p = filepath.ToSlash(abs)
			}
		}
		paths = append(paths, p)
	}
	meter := &progress.Meter{}
	status := startProgress(a, errOut, "add-files", "files", meter.Sample)
	res, err := ops.AddFiles(progress.With(ctx, meter), t, paths, opts)
	status.finish()
	if err != nil {
		return err
	}
	statisticsOnCommit(ctx, t, errOut)
	if res.TokenFound {
		fmt.Fprintf(out, "%s: token %q was already committed; nothing added\n", snapshotLabel(t, opts, res.SnapshotID), opts.Token)
		return nil
	}
	var rows int64
	for _, f := range res.Files {
		rows += f.RecordCount
	}
	fmt.Fprintf(out, "%s: added %d files, %d rows\n", snapshotLabel(t, opts, res.SnapshotID), len(res.Files), rows)
	return nil
}
