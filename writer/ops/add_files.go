package ops

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/progress"
	"github.com/floedb/floe/reader/parquet"
	"github.com/floedb/floe/writer"
)

// AddFiles registers Parquet files that already exist as data files of t,
// in one append snapshot, without rewriting them (pyiceberg's add_files,
// Spark's add_files procedure): each file's entry comes from its footer
// (writer.ExistingFile). A file the table already references, or named
// twice, is refused; so is one whose columns do not fit the schema. When
// some file has no field ids and the table no name mapping, the table
// first gets schema.name-mapping.default (one mapping by the schema's
// names) in the same commit, so that every reader finds the columns.
// The files are never deleted, whatever happens. A token already
// committed makes the call a no-op, as for every commit.
func AddFiles(ctx context.Context, t *table.Table, paths []string, opts table.CommitOptions) (Result, error) {
	if res, ok, err := tokenFound(t, opts.Token); err != nil || ok {
		return res, err
	}
	if len(paths) == 0 {
		return Result{}, errkind.Errorf(errkind.InvalidArgument, "add files: no files given")
	}
	seen := map[string]bool{}
	for _, p := range paths {
		k := t.Locations.Apply(p)
		if seen[k] {
			return Result{}, errkind.Errorf(errkind.InvalidArgument, "add files: %s is given twice", p)
		}
		seen[k] = true
	}
	if _, branchExists := t.Metadata.Refs[opts.Branch]; opts.Branch == "" || branchExists {
		plan, err := t.PlanFiles(ctx, table.SnapshotSelector{Ref: opts.Branch})
		if err != nil {
			return Result{}, err
		}
		for _, task := range plan.Tasks {
			if seen[t.Locations.Apply(task.File.FilePath)] {
				return Result{}, errkind.Errorf(errkind.Conflict, "add files: the table already references %s", task.File.FilePath)
			}
		}
	}
	md := t.Metadata
	schema := md.CurrentSchema()
	wopts, err := writer.OptionsFromProperties(md.Properties, schema)
	if err != nil {
		return Result{}, err
	}
	mapping, err := md.NameMapping()
	if err != nil {
		return Result{}, err
	}
	desc := writer.ExistingFile{Schema: schema, Spec: md.DefaultSpec(), Mapping: mapping, Options: wopts}
	files := make([]manifest.DataFile, 0, len(paths))
	needMapping := false
	meter := progress.From(ctx)
	meter.Plan(int64(len(paths)), 0, 0)
	for _, p := range paths {
		df, hasIDs, err := describe(ctx, t, desc, p)
		if err != nil {
			return Result{}, err
		}
		meter.Done(1, df.FileSizeInBytes, df.RecordCount)
		needMapping = needMapping || !hasIDs
		files = append(files, df)
	}
	// The name mapping, when the files need one, and the files go in one
	// transaction: no reader ever sees the files without it.
	tx := t.Transaction()
	if needMapping && mapping == nil {
		raw, err := json.Marshal(iceberg.MappingFromFields(schema.Fields))
		if err != nil {
			return Result{}, err
		}
		tx.SetProperties(map[string]string{metadata.PropertyNameMapping: string(raw)}, nil)
	}
	if err := tx.Append(files, opts); err != nil {
		return Result{}, fmt.Errorf("add files: %w", err)
	}
	return commit(ctx, &written{}, files, func() (table.CommitResult, error) {
		res, err := tx.Commit(ctx)
		return commitResultOf(res), err
	})
}

// describe opens one file and builds its entry; hasIDs tells whether its
// columns carry field ids.
func describe(ctx context.Context, t *table.Table, desc writer.ExistingFile, path string) (manifest.DataFile, bool, error) {
	f, err := t.IO.Open(ctx, path)
	if err != nil {
		return manifest.DataFile{}, false, fmt.Errorf("add file %s: %w", path, err)
	}
	defer f.Close()
	pf, err := parquet.OpenFile(f, f.Size(), nil)
	if err != nil {
		return manifest.DataFile{}, false, errkind.Default(errkind.Corrupt, fmt.Errorf("add file %s: %w", path, err))
	}
	hasIDs := false
	for _, l := range pf.Leaves {
		hasIDs = hasIDs || l.HasFieldID
	}
	df, err := desc.Describe(pf, path)
	return df, hasIDs, err
}
