package table

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/floedb/floe/iceberg/fileio"
)

// relocate handles a table whose files were copied or moved elsewhere:
// its metadata was found at a table root other than the location the
// metadata records, which every path in it starts with. That root, the
// directory the table was opened from, is the table's root for every
// read, write and delete: unless the options turn it off, the recorded
// location (in each of its spellings, hdfs:// and file://relative
// included) is mapped onto it, as DuckDB's allow_moved_paths does, and
// whatever the map gives, writes and deletes are confined to it
// (fileio.Confine). The returned table's IO names, for any file still
// missing, the recorded prefix and the --map that would fix it.
//
// It is so whether or not the recorded location still exists: after
// cp -r prod test, the copy's metadata names prod's files, and a copy
// that read, appended beside or expired them would damage its original.
// The copy reads its own copies of them instead (the same bytes: data
// files are immutable). A commit to the copy records new files under the
// recorded location's spelling, mapped like every other path, so every
// path in the table stays under the one recorded prefix, and the copy can
// itself be copied or moved again.
//
// The decision is made once, at open, rather than per file on the first
// not-found: the paths a planner compares (a data file named by a manifest
// and by a position delete file) must all go through the same map.
func relocate(ctx context.Context, t *Table, location string, opts Options, locations fileio.LocationMap) (*Table, error) {
	h := &missingHint{recorded: t.Metadata.Location, locations: locations}
	root := tableRoot(t.MetadataLocation)
	if root != "" {
		h.root = physical(locations, root)
	}
	switch {
	case h.recorded == "" || h.root == "" || t.Metadata.Properties[PropMetadataPath] != "":
		// The root is not known: the metadata file is not in a metadata/
		// directory, or write.metadata.path puts it elsewhere.
		t.IO = fileio.WithMissingHint(t.IO, h.forPath)
		return t, nil
	case physical(locations, h.recorded) == h.root:
		// The table is where it says: a missing file is just missing. The
		// comparison is of one spelling: a recorded hdfs://nn/wh/t found
		// at /wh/t is still relocated, so that its paths are read locally.
		return t, nil
	}
	if !opts.NoRelocate {
		moved, changed, err := locations.Relocated(h.recorded, h.root)
		// A map that cannot stay idempotent (the table copied beneath its
		// own recorded location, or a recorded location above the root) is
		// left out: the hint still says what to map, and the confinement
		// below refuses every write and delete outside the root.
		if err == nil && changed {
			files, err := fileio.ForLocation(location, opts.fileIOOptions(moved))
			if err != nil {
				return nil, err
			}
			t.IO, t.Locations = files, moved
			h.relocated = true
		}
	}
	t.IO = fileio.Confine(fileio.WithMissingHint(t.IO, h.forPath), h.root)
	return t, nil
}

// sameLocation tells whether two locations, mapped and absolute, name
// one directory in any of their spellings (s3 and s3a, /p and hdfs://nn/p).
func sameLocation(a, b string) bool {
	prefix, ok := fileio.RecordedPrefix(a, b)
	return ok && prefix == strings.TrimRight(fileio.Canonical(a), "/")
}

// tableRoot is the directory holding the metadata/ directory a metadata
// file sits in, or "" when it sits elsewhere.
func tableRoot(metadataPath string) string {
	dir := parentDir(metadataPath)
	if lastElem(dir) != "metadata" {
		return ""
	}
	return parentDir(dir)
}

// physical is where the map sends a location, local paths made absolute,
// so that two spellings of one directory compare equal.
func physical(locations fileio.LocationMap, location string) string {
	p := locations.Apply(location)
	if fileio.Scheme(p) != "" {
		return strings.TrimRight(p, "/")
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// missingHint says, for a file that is not there, what would find it.
type missingHint struct {
	recorded  string // the location the metadata records
	root      string // where the table was found, mapped and absolute; "" if unknown
	locations fileio.LocationMap
	relocated bool
}

func (h *missingHint) forPath(path string) string {
	prefix, under := fileio.RecordedPrefix(path, h.recorded)
	if !under {
		return fmt.Sprintf("if the table's files were moved, map the prefix %s was written under to where it is now with --map PREFIX=DIR (location_map outside the CLI)", path)
	}
	if h.relocated && !h.locations.Covers(prefix) {
		return fmt.Sprintf("the table records its files under %s and was found at %s, where this file is missing", prefix, h.root)
	}
	target := h.root
	if target == "" {
		target = "DIR"
	}
	where := "which does not exist"
	if h.locations.Covers(prefix) {
		where = fmt.Sprintf("mapped to %s, which does not hold it", h.locations.Apply(prefix))
	}
	return fmt.Sprintf("table data is recorded under %s, %s; pass --map %s=%s (location_map outside the CLI)", prefix, where, prefix, target)
}
