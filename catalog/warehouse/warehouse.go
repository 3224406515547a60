// Package warehouse is the filesystem warehouse as a catalog: table
// ns.t lives at <root>/ns/t (nested namespaces a.b.t at <root>/a/b/t),
// and a table is its own directory of metadata files, committed with
// put-if-absent, as FLOE_WAREHOUSE has always laid tables out (and as
// Iceberg's Hadoop catalog does). The root is a local directory, a
// file:// URI or an s3:// location.
//
// A namespace is a directory holding a marker file, .namespace.json, with
// its properties; a directory under the root that holds tables but no
// marker (a warehouse that predates catalogs) is a namespace too. A
// table is a directory whose metadata directory holds a metadata file.
//
// What a directory cannot do is refused as Unsupported: renaming (a
// table's files would have to move, and on an object store that is a
// copy of every file) and registering a metadata file from elsewhere.
package warehouse

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"strings"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/table"
)

// markerName is the file that makes a directory a namespace.
const markerName = ".namespace.json"

// PropName names the catalog (default "default").
const PropName = "name"

// Catalog is a filesystem warehouse.
type Catalog struct {
	name      string
	root      string
	files     fileio.FileIO
	tableOpts table.Options
}

var _ catalog.Catalog = (*Catalog)(nil)

// Open opens the warehouse at root. Its s3.* properties (Iceberg's names)
// refine tableOpts' S3 settings.
func Open(ctx context.Context, root string, props map[string]string, tableOpts table.Options) (*Catalog, error) {
	root = strings.TrimRight(root, "/")
	if local, ok := strings.CutPrefix(root, "file://"); ok {
		root = local
	}
	if root == "" {
		return nil, errkind.Errorf(errkind.InvalidArgument, "a filesystem warehouse needs a root directory")
	}
	tableOpts.S3 = fileio.WithProperties(tableOpts.S3, props)
	tableOpts.GCS = fileio.WithGCSProperties(tableOpts.GCS, props)
	tableOpts.Azure = fileio.AzureWithProperties(tableOpts.Azure, props)
	tableOpts.Warehouse = root
	files, err := tableOpts.FileIO(root)
	if err != nil {
		return nil, fmt.Errorf("warehouse %s: %w", root, err)
	}
	name := props[PropName]
	if name == "" {
		name = "default"
	}
	return &Catalog{name: name, root: root, files: files, tableOpts: tableOpts}, nil
}

func (c *Catalog) Name() string { return c.name }
func (c *Catalog) Close() error { return nil }

func (c *Catalog) dir(levels ...string) string { return fileio.JoinPath(c.root, levels...) }

func (c *Catalog) tableDir(id catalog.Identifier) string {
	return c.dir(append(append([]string(nil), id.Namespace...), id.Name)...)
}

// checkName refuses names that are not one path segment: in a warehouse
// every name is a directory, so this holds for reads as well as creates.
func checkName(parts ...string) error { return catalog.CheckNewNamespace(parts) }

func checkIdent(id catalog.Identifier) error { return catalog.CheckNewIdentifier(id) }

// isTable tells whether dir holds a table.
func (c *Catalog) isTable(ctx context.Context, dir string) (bool, error) {
	_, err := table.LocateMetadata(ctx, c.files, dir)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, err
}

func (c *Catalog) hasMarker(ctx context.Context, dir string) (bool, error) {
	return c.files.Exists(ctx, fileio.JoinPath(dir, markerName))
}

func (c *Catalog) CreateNamespace(ctx context.Context, ns []string, props map[string]string) error {
	if err := checkName(ns...); err != nil {
		return err
	}
	if exists, err := c.NamespaceExists(ctx, ns); err != nil || exists {
		if err == nil {
			err = catalog.ErrNamespaceExists
		}
		return fmt.Errorf("create namespace %s: %w", catalog.JoinNamespace(ns), err)
	}
	if isTable, err := c.isTable(ctx, c.dir(ns...)); err != nil || isTable {
		if err == nil {
			err = errkind.Errorf(errkind.Conflict, "a table is there")
		}
		return fmt.Errorf("create namespace %s: %w", catalog.JoinNamespace(ns), err)
	}
	if props == nil {
		props = map[string]string{}
	}
	data, err := json.Marshal(props)
	if err != nil {
		return errkind.Wrap(errkind.InvalidArgument, err)
	}
	err = c.files.WriteFileIfAbsent(ctx, fileio.JoinPath(c.dir(ns...), markerName), data)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create namespace %s: %w (created concurrently)", catalog.JoinNamespace(ns), catalog.ErrNamespaceExists)
	}
	return err
}

// NamespaceExists: the directory has a marker, or holds tables.
func (c *Catalog) NamespaceExists(ctx context.Context, ns []string) (bool, error) {
	if err := checkName(ns...); err != nil {
		return false, err
	}
	dir := c.dir(ns...)
	if ok, err := c.hasMarker(ctx, dir); err != nil || ok {
		return ok, err
	}
	if isTable, err := c.isTable(ctx, dir); err != nil || isTable {
		return false, err
	}
	children, err := fileio.ListDirs(ctx, c.files, dir)
	if err != nil {
		return false, err
	}
	for _, child := range children {
		if isTable, err := c.isTable(ctx, child); err != nil || isTable {
			return isTable, err
		}
	}
	return false, nil
}

func (c *Catalog) DropNamespace(ctx context.Context, ns []string) error {
	if err := checkName(ns...); err != nil {
		return err
	}
	exists, err := c.NamespaceExists(ctx, ns)
	if err != nil {
		return err
	}
	if !exists {
		return fmt.Errorf("drop namespace %s: %w", catalog.JoinNamespace(ns), catalog.ErrNoSuchNamespace)
	}
	children, err := c.children(ctx, ns)
	if err != nil {
		return err
	}
	if len(children.tables)+len(children.namespaces) > 0 {
		return fmt.Errorf("drop namespace %s: %w", catalog.JoinNamespace(ns), catalog.ErrNamespaceNotEmpty)
	}
	err = c.files.Delete(ctx, fileio.JoinPath(c.dir(ns...), markerName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

type children struct {
	tables     []string
	namespaces [][]string
}

// children sorts the directories under ns (nil: the root) into tables
// and namespaces; a directory that is neither (empty, or only data) is
// left out.
func (c *Catalog) children(ctx context.Context, ns []string) (children, error) {
	var out children
	dirs, err := fileio.ListDirs(ctx, c.files, c.dir(ns...))
	if err != nil {
		return out, err
	}
	for _, d := range dirs {
		name := d[strings.LastIndexByte(d, '/')+1:]
		isTable, err := c.isTable(ctx, d)
		if err != nil {
			return out, err
		}
		if isTable {
			out.tables = append(out.tables, name)
			continue
		}
		child := append(append([]string(nil), ns...), name)
		if ok, err := c.NamespaceExists(ctx, child); err != nil {
			return out, err
		} else if ok {
			out.namespaces = append(out.namespaces, child)
		}
	}
	return out, nil
}

func (c *Catalog) ListNamespaces(ctx context.Context, parent []string) ([][]string, error) {
	if len(parent) > 0 {
		if ok, err := c.NamespaceExists(ctx, parent); err != nil || !ok {
			if err == nil {
				err = catalog.ErrNoSuchNamespace
			}
			return nil, fmt.Errorf("list namespaces of %s: %w", catalog.JoinNamespace(parent), err)
		}
	}
	ch, err := c.children(ctx, parent)
	return ch.namespaces, err
}

func (c *Catalog) readMarker(ctx context.Context, ns []string) (map[string]string, error) {
	data, err := c.files.ReadFile(ctx, fileio.JoinPath(c.dir(ns...), markerName))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	props := map[string]string{}
	if err := json.Unmarshal(data, &props); err != nil {
		return nil, errkind.Errorf(errkind.Corrupt, "namespace %s: %s: %v", catalog.JoinNamespace(ns), markerName, err)
	}
	return props, nil
}

func (c *Catalog) NamespaceProperties(ctx context.Context, ns []string) (map[string]string, error) {
	if ok, err := c.NamespaceExists(ctx, ns); err != nil || !ok {
		if err == nil {
			err = catalog.ErrNoSuchNamespace
		}
		return nil, fmt.Errorf("namespace %s: %w", catalog.JoinNamespace(ns), err)
	}
	return c.readMarker(ctx, ns)
}

// UpdateNamespaceProperties rewrites the marker. Two updates at once may
// lose one of them: a directory offers no compare-and-swap on a file's
// content (only on its creation).
func (c *Catalog) UpdateNamespaceProperties(ctx context.Context, ns []string, removals []string, updates map[string]string) error {
	props, err := c.NamespaceProperties(ctx, ns)
	if err != nil {
		return err
	}
	props = maps.Clone(props)
	for _, k := range removals {
		delete(props, k)
	}
	maps.Copy(props, updates)
	data, err := json.Marshal(props)
	if err != nil {
		return errkind.Wrap(errkind.InvalidArgument, err)
	}
	return c.files.WriteFile(ctx, fileio.JoinPath(c.dir(ns...), markerName), data)
}

func (c *Catalog) CreateTable(ctx context.Context, id catalog.Identifier, schema *iceberg.Schema, opts catalog.CreateOptions) (*table.Table, error) {
	if err := checkIdent(id); err != nil {
		return nil, err
	}
	location := c.tableDir(id)
	if opts.Location != "" && strings.TrimRight(opts.Location, "/") != location {
		return nil, errkind.Errorf(errkind.InvalidArgument, "create table %s: a warehouse keeps a table at %s, not %s", id, location, opts.Location)
	}
	if ok, err := c.NamespaceExists(ctx, id.Namespace); err != nil || !ok {
		if err == nil {
			err = catalog.ErrNoSuchNamespace
		}
		return nil, fmt.Errorf("create table %s: %w", id, err)
	}
	files, err := c.tableOpts.FileIO(location)
	if err != nil {
		return nil, err
	}
	t, err := table.Create(ctx, files, location, schema, opts.Spec, opts.SortOrder, opts.Properties, opts.FormatVersion)
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", id, err)
	}
	return t, nil
}

func (c *Catalog) LoadTable(ctx context.Context, id catalog.Identifier) (*table.Table, error) {
	if err := checkIdent(id); err != nil {
		return nil, err
	}
	if ok, err := c.isTable(ctx, c.tableDir(id)); err != nil || !ok {
		if err == nil {
			err = catalog.ErrNoSuchTable
		}
		return nil, fmt.Errorf("load table %s: %w", id, err)
	}
	return table.Open(ctx, c.tableDir(id), c.tableOpts)
}

func (c *Catalog) TableExists(ctx context.Context, id catalog.Identifier) (bool, error) {
	if err := checkIdent(id); err != nil {
		return false, err
	}
	return c.isTable(ctx, c.tableDir(id))
}

func (c *Catalog) ListTables(ctx context.Context, ns []string) ([]catalog.Identifier, error) {
	if ok, err := c.NamespaceExists(ctx, ns); err != nil || !ok {
		if err == nil {
			err = catalog.ErrNoSuchNamespace
		}
		return nil, fmt.Errorf("list tables of %s: %w", catalog.JoinNamespace(ns), err)
	}
	ch, err := c.children(ctx, ns)
	if err != nil {
		return nil, err
	}
	var out []catalog.Identifier
	for _, name := range ch.tables {
		out = append(out, catalog.Identifier{Namespace: append([]string(nil), ns...), Name: name})
	}
	return out, nil
}

// DropTable makes the directory no table: every metadata file goes (the
// table is its metadata; nothing else could keep it), the current one
// last, so that until then the table opens at some version. Without purge
// its data and manifests stay; with purge everything the table reaches
// goes too (table.Purge), after the metadata, as a catalog forgets a
// table before its files go.
func (c *Catalog) DropTable(ctx context.Context, id catalog.Identifier, purge bool) error {
	t, err := c.LoadTable(ctx, id)
	if err != nil {
		return fmt.Errorf("drop table %s: %w", id, err)
	}
	dir := fileio.JoinPath(t.Metadata.Location, "metadata")
	infos, err := t.IO.List(ctx, dir)
	if err != nil {
		return fmt.Errorf("drop table %s: %w", id, err)
	}
	for _, f := range infos {
		if f.Path != t.MetadataLocation && isMetadataFile(f.Path) {
			if err := t.IO.Delete(ctx, f.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("drop table %s: %w", id, err)
			}
		}
	}
	if err := t.IO.Delete(ctx, t.MetadataLocation); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("drop table %s: %w", id, err)
	}
	if purge {
		if err := t.Purge(ctx); err != nil {
			return fmt.Errorf("drop table %s: dropped, but %w", id, err)
		}
	}
	return nil
}

func isMetadataFile(path string) bool {
	return strings.HasSuffix(path, ".metadata.json") || strings.HasSuffix(path, ".metadata.json.gz") ||
		strings.HasSuffix(path, ".gz.metadata.json") || strings.Contains(path[strings.LastIndexByte(path, '/')+1:], "version-hint")
}

func (c *Catalog) RenameTable(ctx context.Context, from, to catalog.Identifier) error {
	if err := checkIdent(to); err != nil {
		return err // a bad name is the caller's to fix first
	}
	return errkind.Errorf(errkind.Unsupported, "rename %s to %s: a filesystem warehouse keeps a table at the directory its name gives, and moving one would copy every file; use a SQL or REST catalog to rename", from, to)
}

func (c *Catalog) RegisterTable(ctx context.Context, id catalog.Identifier, metadataLocation string) (*table.Table, error) {
	if err := checkIdent(id); err != nil {
		return nil, err
	}
	return nil, errkind.Errorf(errkind.Unsupported, "register %s: a filesystem warehouse finds a table by its directory, not by a metadata file; open %s directly, or use a SQL or REST catalog to register it", id, metadataLocation)
}
