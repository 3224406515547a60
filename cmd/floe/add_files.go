package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/progress"
	"github.com/floedb/floe/writer/ops"
)

const addFilesUsage = "usage: floe add-files TABLE FILE.parquet… [--token T] [--property K=V]…"

// runAddFiles registers existing Parquet files in a table without
// rewriting them (ops.AddFiles).
func runAddFiles(ctx context.Context, raw []string, out, errOut io.Writer) error {
	a, err := parseArgs(raw, []string{"warehouse", "token", "property", "map"}, []string{"no-relocate"})
	if err != nil {
		return err
	}
	if len(a.positional) < 2 {
		return errors.New(addFilesUsage)
	}
	props, err := keyValues(a.values["property"], "--property")
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
	token, _ := a.last("token")
	meter := &progress.Meter{}
	status := startProgress(a, errOut, "add-files", "files", meter.Sample)
	res, err := ops.AddFiles(progress.With(ctx, meter), t, paths, table.CommitOptions{Token: token, Properties: props})
	status.finish()
	if err != nil {
		return err
	}
	if res.TokenFound {
		fmt.Fprintf(out, "snapshot %d: token %q was already committed; nothing added\n", res.SnapshotID, token)
		return nil
	}
	var rows int64
	for _, f := range res.Files {
		rows += f.RecordCount
	}
	fmt.Fprintf(out, "snapshot %d: added %d files, %d rows\n", res.SnapshotID, len(res.Files), rows)
	return nil
}
