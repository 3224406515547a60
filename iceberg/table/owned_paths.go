package table

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/fileio"
)

// ownedFiles returns the test of whether a path is a file expiry and
// purge may delete: one under the table's location. Metadata names files
// by any location, and a hostile or careless one (a manifest naming
// /etc/passwd or ../../other/data/f.parquet, a file add_files registered
// from elsewhere) must not turn a maintenance call into a delete outside
// the table. So:
//
//   - the location must be where the table was opened from (deleteRoot),
//     else nothing is deleted and the call fails;
//   - both path and the location go through the table's location map and
//     relocation, then are compared in their canonical spelling (s3/s3a,
//     hdfs://nn/p and /p, file:///p and /p are one);
//   - a path with a "." or ".." segment, a backslash or NUL is refused
//     outright (no writer makes one; normalising it is a guess);
//   - on a local disk, the file's directory with its symlinks resolved
//     must still lie inside the location with its symlinks resolved (the
//     file itself may be a symlink: deleting removes the link only).
//
// The location is resolved once, here, for every path the test is asked
// about.
func (t *Table) ownedFiles() (func(path string) bool, error) {
	root, err := t.deleteRoot()
	if err != nil {
		return nil, err
	}
	return t.ownedUnder(root), nil
}

// OwnedUnder is ownedFiles' test for files beneath dir, one of the table's
// directories as its metadata spells it (mapped through the table's
// location map here), instead of the table's root: what a caller may
// delete there (ops.DiscardFiles, under the data location), with the same
// refusals of dot segments and of symlinks leading out.
func (t *Table) OwnedUnder(dir string) func(path string) bool {
	return t.ownedUnder(fileio.Canonical(t.Locations.Apply(dir)))
}

// ownedUnder is the test of ownedFiles for a root already mapped and in
// canonical spelling.
func (t *Table) ownedUnder(root string) func(path string) bool {
	if root == "" || fileio.HasDotSegment(root) {
		return func(string) bool { return false }
	}
	local := fileio.Scheme(root) == ""
	realRoot, rootErr := "", error(nil)
	if local {
		realRoot, rootErr = resolveExisting(root)
	}
	return func(path string) bool {
		if path == "" || strings.ContainsAny(path, "\\\x00") || fileio.HasDotSegment(path) {
			return false
		}
		p := fileio.Canonical(t.Locations.Apply(path))
		if _, ok := fileio.RecordedPrefix(p, root); !ok || samePath(p, root) {
			return false
		}
		if !local || fileio.Scheme(p) != "" {
			return true // object stores have no symlinks
		}
		if rootErr != nil {
			return false
		}
		realDir, err := resolveExisting(filepath.Dir(p))
		if err != nil {
			return false
		}
		return realDir == realRoot || strings.HasPrefix(realDir, realRoot+string(filepath.Separator))
	}
}

// deleteRoot is the directory expiry and purge may delete inside: the
// table's recorded location as its map resolves it. When the table's
// metadata file sits in a metadata/ directory, the directory above it is
// where the table was opened from, and deletes stay there: a recorded
// location that lies above it (a hostile metadata file naming a parent
// folder, a copy made beneath its original) is refused for every table,
// and for a table opened by path, so is any location the map does not
// bring onto it (a copy opened with NoRelocate still names its original).
func (t *Table) deleteRoot() (string, error) {
	recorded := fileio.Canonical(t.Locations.Apply(t.Metadata.Location))
	dir := tableRoot(t.MetadataLocation)
	if recorded == "" || dir == "" || t.Metadata.Properties[PropMetadataPath] != "" {
		return recorded, nil
	}
	opened := physical(t.Locations, dir)
	mapped := physical(t.Locations, t.Metadata.Location)
	switch {
	case sameLocation(mapped, opened):
		return recorded, nil
	case underLocation(opened, mapped):
		return "", errkind.Errorf(errkind.InvalidArgument,
			"table at %s records its location as %s, a directory above it: refusing to delete files there (the metadata is damaged or hostile, or the table was copied beneath its original)", opened, t.Metadata.Location)
	case t.Publisher == nil:
		return "", errkind.Errorf(errkind.InvalidArgument,
			"table opened at %s records its location as %s, which is not mapped onto it (opened with no relocation, or a --map sends it elsewhere): refusing to delete files outside the directory it was opened from", opened, t.Metadata.Location)
	}
	return recorded, nil
}

// underLocation tells whether path lies beneath location (not at it), in
// any spelling of location.
func underLocation(path, location string) bool {
	_, ok := fileio.RecordedPrefix(path, location)
	return ok && !sameLocation(path, location)
}

func samePath(a, b string) bool {
	return strings.TrimRight(a, "/") == strings.TrimRight(b, "/")
}

// resolveExisting is dir with its symlinks resolved; for a directory that
// no longer exists (a partition emptied before), its deepest existing
// ancestor resolved, with the rest appended.
func resolveExisting(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	var missing []string
	for {
		real, err := filepath.EvalSymlinks(abs)
		if err == nil {
			return filepath.Join(append([]string{real}, missing...)...), nil
		}
		if !os.IsNotExist(err) {
			return "", err
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return "", err
		}
		missing = append([]string{filepath.Base(abs)}, missing...)
		abs = parent
	}
}
