package inspect

import (
	"context"
	"slices"
	"strings"

	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// manifestScope is which manifests a files or entries table reads: one
// snapshot's, or (all_*) every manifest any snapshot lists, each once as
// Java reads them (de-duplicated by path, so a file carried into several
// manifests shows once per manifest, as in Java's all_files), of the
// content the table shows.
type manifestScope struct {
	t    *table.Table
	snap *metadata.Snapshot // nil with all: every snapshot
	all  bool
	// data, deletes: which manifests' content the table shows.
	data, deletes bool
	// sequential reads one manifest at a time, not a window ahead: a
	// read with a limit stops after the manifests it needs.
	sequential bool
	// prune skips manifests by their partition summaries (nil: none).
	prune *manifestPruner
	// only, when not nil, is the manifests read instead of the
	// snapshots' lists: a Task's, chosen and pruned when it was planned.
	only []manifest.ManifestFile
}

// each hands every entry of the scope's manifests to fn, manifest by
// manifest; fn returning false stops the read (no manifest is read after
// it).
func (s *manifestScope) each(ctx context.Context, fn func(mf *manifest.ManifestFile, e *manifest.Entry) bool) error {
	if s.only != nil {
		_, err := s.readList(ctx, s.only, fn)
		return err
	}
	return s.lists(ctx, func(list []manifest.ManifestFile) (bool, error) { return s.readList(ctx, list, fn) })
}

// lists hands fn the manifests the scope reads, one snapshot's list at a
// time (kept to the content shown, pruned by the filter, each manifest once
// for all_*); fn
// returning true stops. Reading them (each) and planning tasks of them
// (PlanTasks) choose the same manifests in the same order.
func (s *manifestScope) lists(ctx context.Context, fn func(list []manifest.ManifestFile) (bool, error)) error {
	var snaps []*metadata.Snapshot
	switch {
	case s.all:
		for i := range s.t.Metadata.Snapshots {
			snaps = append(snaps, &s.t.Metadata.Snapshots[i])
		}
	case s.snap != nil:
		snaps = []*metadata.Snapshot{s.snap}
	}
	// Paths of manifests read already (all_*): the memory of the whole
	// history's manifest paths, not its entries.
	seen := map[string]bool{}
	for _, snap := range snaps {
		list, err := s.t.ManifestList(ctx, snap)
		if err != nil {
			return err
		}
		list = slices.DeleteFunc(list, func(mf manifest.ManifestFile) bool {
			want := s.data && mf.Content == manifest.ManifestContentData || s.deletes && mf.Content == manifest.ManifestContentDeletes
			if !want || s.all && seen[mf.Path] {
				return true
			}
			if s.all {
				seen[mf.Path] = true
			}
			return !s.prune.keep(&mf)
		})
		stopped, err := fn(list)
		if err != nil || stopped {
			return err
		}
	}
	return nil
}

// readList hands list's entries to fn, reporting whether fn stopped it.
func (s *manifestScope) readList(ctx context.Context, list []manifest.ManifestFile, fn func(mf *manifest.ManifestFile, e *manifest.Entry) bool) (bool, error) {
	deliver := func(i int, entries []manifest.Entry) error {
		for k := range entries {
			if !fn(&list[i], &entries[k]) {
				return table.ErrStop
			}
		}
		return nil
	}
	if s.sequential {
		for i := range list {
			entries, err := s.t.ReadManifest(ctx, list[i])
			if err != nil {
				return false, err
			}
			if err := deliver(i, entries); err != nil {
				return true, nil
			}
		}
		return false, nil
	}
	stopped := false
	err := s.t.StreamManifests(ctx, list, func(i int, entries []manifest.Entry) error {
		err := deliver(i, entries)
		stopped = err != nil
		return err
	})
	return stopped, err
}

// wants reports whether a read needs column name: every column without
// a column list, or with a filter (which may name any).
func wants(opts Options, name string) bool {
	if opts.Columns == nil || opts.Filter != nil {
		return true
	}
	for _, c := range opts.Columns {
		if c == name || opts.CaseInsensitive && strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}
