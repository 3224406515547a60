// Package sql is the SQL catalog: tables and namespaces in two database
// tables, iceberg_tables and iceberg_namespace_properties, in the schema
// Iceberg's JdbcCatalog, pyiceberg's SqlCatalog, iceberg-go and
// iceberg-rust share, so any of them can open a catalog floe writes and
// the other way round. SQLite (modernc.org/sqlite, pure Go, so libfloe.so
// needs no system library) is the embedded default; PostgreSQL (pgx) is
// for teams.
//
// A commit writes the next metadata file, then swaps the table's row to
// it with UPDATE … WHERE metadata_location = <the base's>: one row changed
// means committed, none means another writer committed first (the file is
// deleted, and the commit loop refreshes and retries).
package sql

import (
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/commitstep"
	"github.com/floedb/floe/internal/redact"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // the "sqlite" driver
)

// Properties a SQL catalog takes besides its URI.
const (
	// PropName is the catalog_name rows are kept under (default
	// "default", as pyiceberg and iceberg-go name a catalog given none).
	PropName = "name"
	// PropWarehouse is the root new tables go under (default: the
	// directory of a SQLite database file; PostgreSQL needs one).
	PropWarehouse = "warehouse"
)

// Catalog is a SQL catalog.
type Catalog struct {
	name      string
	uri       string
	db        *db
	warehouse string
	// typed: iceberg_tables has the iceberg_type column (the older schema
	// lacks it, and every row is then a table).
	typed bool
	// files opens the FileIO of a table location.
	files func(location string) (fileio.FileIO, error)
}

var _ catalog.Catalog = (*Catalog)(nil)

// defaultConnectTimeout bounds connecting to PostgreSQL when neither the
// catalog's timeout-ms nor the URI's connect_timeout does: a server that
// accepts and never answers must not hang a command for minutes.
var defaultConnectTimeout = 15 * time.Second

// Open opens the catalog at uri, creating its database and tables when
// missing: sqlite:///abs/path/catalog.db or sqlite:relative.db (SQLite),
// or postgresql://user:password@host:port/db (PostgreSQL). FileIO for
// table locations comes from tableOpts (location map, S3 settings) and the
// s3.* properties. The timeout-ms property (catalog.PropTimeout) bounds
// opening and every connection to PostgreSQL (default 15 s unless the URI
// gives connect_timeout). Errors never show the URI's password.
func Open(ctx context.Context, uri string, props map[string]string, tableOpts table.Options) (*Catalog, error) {
	return open(ctx, uri, props, tableOpts, true)
}

// OpenExisting opens the catalog at uri for reading: a SQLite database
// that does not exist is not found (errkind.NotFound) rather than created,
// so a mistyped path leaves no file behind. It is Open otherwise.
func OpenExisting(ctx context.Context, uri string, props map[string]string, tableOpts table.Options) (*Catalog, error) {
	return open(ctx, uri, props, tableOpts, false)
}

func open(ctx context.Context, uri string, props map[string]string, tableOpts table.Options, create bool) (*Catalog, error) {
	// The catalog's s3.* properties (Iceberg's names) configure its
	// tables' files, over what the caller's options say.
	tableOpts.S3 = fileio.WithProperties(tableOpts.S3, props)
	tableOpts.GCS = fileio.WithGCSProperties(tableOpts.GCS, props)
	tableOpts.Azure = fileio.AzureWithProperties(tableOpts.Azure, props)
	c := &Catalog{name: props[PropName], uri: uri, warehouse: props[PropWarehouse], files: tableOpts.FileIO}
	if c.name == "" {
		c.name = "default"
	}
	secrets := &redact.Secrets{}
	secrets.AddURI(uri)
	secrets.AddProperties(props)
	timeout, timeoutSet, err := catalog.Timeout(props)
	if err != nil {
		return nil, err
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var where string
	switch {
	case strings.HasPrefix(uri, "postgresql://"), strings.HasPrefix(uri, "postgres://"):
		where = redact.URI(uri)
		if c.warehouse == "" {
			return nil, errkind.Errorf(errkind.InvalidArgument, "SQL catalog %s: a PostgreSQL catalog needs the %q property: where new tables go", where, PropWarehouse)
		}
		cfg, err := pgx.ParseConfig(uri)
		if err != nil {
			return nil, errkind.Wrap(errkind.InvalidArgument, fmt.Errorf("SQL catalog %s: %w", where, secrets.Error(err)))
		}
		// Every connection the pool opens is bounded, not just the first.
		switch {
		case timeoutSet && timeout > 0:
			cfg.ConnectTimeout = timeout
		case !timeoutSet && cfg.ConnectTimeout == 0:
			cfg.ConnectTimeout = defaultConnectTimeout
		}
		c.db = &db{DB: stdlib.OpenDB(*cfg), dollar: true}
	default:
		path, ok := sqlitePath(uri)
		if !ok {
			return nil, errkind.Errorf(errkind.InvalidArgument, "SQL catalog URI %q: use sqlite:///abs/path.db, sqlite:relative.db or postgresql://user:password@host:port/db", redact.URI(uri))
		}
		if path, query, hasQuery := strings.Cut(path, "?"); hasQuery {
			// Other drivers read settings (_auth_pass=…) from here; this
			// one would take them for part of the file name. Their keys
			// are named, their values never shown.
			return nil, errkind.Errorf(errkind.InvalidArgument, "SQL catalog sqlite:%s: URI parameters are not supported (%s); give the database's path only", path, queryKeys(query))
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, errkind.Wrap(errkind.InvalidArgument, err)
		}
		where = abs
		if !create {
			if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
				return nil, errkind.Errorf(errkind.NotFound, "SQL catalog %s does not exist (a command that writes creates it)", abs)
			}
		}
		// WAL lets readers go on while a writer commits; the busy timeout
		// makes concurrent writers (other processes too) wait their turn.
		conn, err := dbsql.Open("sqlite", "file:"+abs+"?_pragma=busy_timeout(30000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
		if err != nil {
			return nil, errkind.Wrap(errkind.IO, fmt.Errorf("open SQL catalog %s: %w", abs, err))
		}
		c.db = &db{DB: conn}
		if c.warehouse == "" {
			c.warehouse = filepath.ToSlash(filepath.Dir(abs))
		}
	}
	err = c.init(ctx)
	if err != nil && c.db.dollar && ctx.Err() == nil {
		// PostgreSQL's CREATE TABLE IF NOT EXISTS is not safe against
		// another session creating the same table at once: the loser
		// fails, and finds the tables there when it tries again.
		time.Sleep(50 * time.Millisecond)
		err = c.init(ctx)
	}
	if err != nil {
		c.db.Close()
		return nil, fmt.Errorf("open SQL catalog %s: %w", where, secrets.Error(err))
	}
	return c, nil
}

// queryKeys lists a URI query's parameter names, never their values.
func queryKeys(query string) string {
	var keys []string
	for _, kv := range redact.QueryPairs(query) {
		keys = append(keys, kv[0])
	}
	return strings.Join(keys, ", ")
}

// sqlitePath reads the file path of a sqlite: URI.
func sqlitePath(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, "sqlite:")
	if !ok || rest == "" {
		return "", false
	}
	if p, ok := strings.CutPrefix(rest, "///"); ok {
		return "/" + p, true
	}
	if strings.HasPrefix(rest, "//") {
		return "", false // a host, which SQLite has none of
	}
	return rest, true
}

func (c *Catalog) init(ctx context.Context) error {
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS iceberg_tables (
			catalog_name VARCHAR(255) NOT NULL,
			table_namespace VARCHAR(255) NOT NULL,
			table_name VARCHAR(255) NOT NULL,
			metadata_location VARCHAR(1000),
			previous_metadata_location VARCHAR(1000),
			iceberg_type VARCHAR(5),
			PRIMARY KEY (catalog_name, table_namespace, table_name))`,
		`CREATE TABLE IF NOT EXISTS iceberg_namespace_properties (
			catalog_name VARCHAR(255) NOT NULL,
			namespace VARCHAR(255) NOT NULL,
			property_key VARCHAR(255) NOT NULL,
			property_value VARCHAR(1000),
			PRIMARY KEY (catalog_name, namespace, property_key))`,
	} {
		if _, err := c.db.ExecContext(ctx, stmt); err != nil {
			return errkind.Wrap(errkind.IO, err)
		}
	}
	// A catalog made with the older schema has no iceberg_type column.
	rows, err := c.db.QueryContext(ctx, `SELECT iceberg_type FROM iceberg_tables WHERE 1 = 0`)
	if err == nil {
		rows.Close()
		c.typed = true
	}
	return nil
}

// Name is the catalog's name.
func (c *Catalog) Name() string { return c.name }

// Close closes the database.
func (c *Catalog) Close() error { return c.db.Close() }

// tablesOnly restricts a query on iceberg_tables to tables (not views).
func (c *Catalog) tablesOnly() string {
	if c.typed {
		return ` AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)`
	}
	return ""
}

// --- namespaces ---

// A namespace exists while it has a property row or a table; a namespace
// created without properties gets the row exists=true, as the other
// implementations write.
const existsKey = "exists"

func (c *Catalog) CreateNamespace(ctx context.Context, ns []string, props map[string]string) error {
	if err := checkNamespace(ns); err != nil {
		return err
	}
	exists, err := c.NamespaceExists(ctx, ns)
	if err != nil {
		return err
	}
	if exists {
		return fmt.Errorf("create namespace %s: %w", catalog.JoinNamespace(ns), catalog.ErrNamespaceExists)
	}
	if len(props) == 0 {
		props = map[string]string{existsKey: "true"}
	}
	err = c.inTx(ctx, func(tx *tx) error {
		for k, v := range props {
			if _, err := tx.ExecContext(ctx, `INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, property_value) VALUES (?, ?, ?, ?)`,
				c.name, catalog.JoinNamespace(ns), k, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if exists, _ := c.NamespaceExists(ctx, ns); exists {
			return fmt.Errorf("create namespace %s: %w (created concurrently)", catalog.JoinNamespace(ns), catalog.ErrNamespaceExists)
		}
	}
	return err
}

// checkNamespace: the catalog's rule for new names, and no dot in a level
// (the table's rows store levels joined by dots).
func checkNamespace(ns []string) error {
	if err := catalog.CheckNewNamespace(ns); err != nil {
		return err
	}
	for _, level := range ns {
		if strings.Contains(level, ".") {
			return errkind.Errorf(errkind.InvalidArgument, "namespace level %q: levels hold no dot", level)
		}
	}
	return nil
}

// checkNewTable is checkNamespace and the rule for the table's name.
func checkNewTable(id catalog.Identifier) error {
	if err := checkNamespace(id.Namespace); err != nil {
		return err
	}
	return catalog.CheckNewName(id.Name)
}

func (c *Catalog) NamespaceExists(ctx context.Context, ns []string) (bool, error) {
	name := catalog.JoinNamespace(ns)
	var n int
	err := c.db.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM iceberg_namespace_properties WHERE catalog_name = ? AND (namespace = ? OR namespace LIKE ? ESCAPE '\')) +
		(SELECT COUNT(*) FROM iceberg_tables WHERE catalog_name = ? AND (table_namespace = ? OR table_namespace LIKE ? ESCAPE '\'))`,
		c.name, name, likePrefix(name), c.name, name, likePrefix(name)).Scan(&n)
	if err != nil {
		return false, errkind.Wrap(errkind.IO, err)
	}
	return n > 0, nil
}

// likePrefix matches the namespaces below name.
func likePrefix(name string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(name) + ".%"
}

func (c *Catalog) DropNamespace(ctx context.Context, ns []string) error {
	name := catalog.JoinNamespace(ns)
	exists, err := c.NamespaceExists(ctx, ns)
	if err != nil {
		return err
	}
	if !exists {
		return fmt.Errorf("drop namespace %s: %w", name, catalog.ErrNoSuchNamespace)
	}
	var tables int
	if err := c.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ?`, c.name, name).Scan(&tables); err != nil {
		return errkind.Wrap(errkind.IO, err)
	}
	if tables > 0 {
		return fmt.Errorf("drop namespace %s: %d tables: %w", name, tables, catalog.ErrNamespaceNotEmpty)
	}
	children, err := c.ListNamespaces(ctx, ns)
	if err != nil {
		return err
	}
	if len(children) > 0 {
		return fmt.Errorf("drop namespace %s: it holds namespace %s: %w", name, catalog.JoinNamespace(children[0]), catalog.ErrNamespaceNotEmpty)
	}
	_, err = c.db.ExecContext(ctx, `DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ?`, c.name, name)
	return wrapIO(err)
}

func (c *Catalog) ListNamespaces(ctx context.Context, parent []string) ([][]string, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT namespace FROM iceberg_namespace_properties WHERE catalog_name = ?
		UNION SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ?`, c.name, c.name)
	if err != nil {
		return nil, errkind.Wrap(errkind.IO, err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	var out [][]string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, errkind.Wrap(errkind.IO, err)
		}
		levels := catalog.SplitNamespace(name)
		if len(levels) <= len(parent) || catalog.JoinNamespace(levels[:len(parent)]) != catalog.JoinNamespace(parent) {
			continue
		}
		child := levels[:len(parent)+1]
		if key := catalog.JoinNamespace(child); !seen[key] {
			seen[key] = true
			out = append(out, child)
		}
	}
	return out, wrapIO(rows.Err())
}

func (c *Catalog) NamespaceProperties(ctx context.Context, ns []string) (map[string]string, error) {
	exists, err := c.NamespaceExists(ctx, ns)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, fmt.Errorf("namespace %s: %w", catalog.JoinNamespace(ns), catalog.ErrNoSuchNamespace)
	}
	rows, err := c.db.QueryContext(ctx, `SELECT property_key, property_value FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ?`,
		c.name, catalog.JoinNamespace(ns))
	if err != nil {
		return nil, errkind.Wrap(errkind.IO, err)
	}
	defer rows.Close()
	props := map[string]string{}
	for rows.Next() {
		var k string
		var v dbsql.NullString
		if err := rows.Scan(&k, &v); err != nil {
			return nil, errkind.Wrap(errkind.IO, err)
		}
		if k != existsKey {
			props[k] = v.String
		}
	}
	return props, wrapIO(rows.Err())
}

func (c *Catalog) UpdateNamespaceProperties(ctx context.Context, ns []string, removals []string, updates map[string]string) error {
	if _, err := c.NamespaceProperties(ctx, ns); err != nil {
		return err
	}
	name := catalog.JoinNamespace(ns)
	return c.inTx(ctx, func(tx *tx) error {
		for _, k := range removals {
			if _, err := tx.ExecContext(ctx, `DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ? AND property_key = ?`, c.name, name, k); err != nil {
				return err
			}
		}
		for k, v := range updates {
			if _, err := tx.ExecContext(ctx, `DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ? AND property_key = ?`, c.name, name, k); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, property_value) VALUES (?, ?, ?, ?)`, c.name, name, k, v); err != nil {
				return err
			}
		}
		// The namespace stays when its last property goes.
		_, err := tx.ExecContext(ctx, `INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, property_value)
			SELECT CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(255)), 'true' WHERE NOT EXISTS (SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ?)`,
			c.name, name, existsKey, c.name, name)
		return err
	})
}

// --- tables ---

// metadataLocation is the table's current metadata file.
func (c *Catalog) metadataLocation(ctx context.Context, id catalog.Identifier) (string, error) {
	var loc dbsql.NullString
	err := c.db.QueryRowContext(ctx, `SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?`+c.tablesOnly(),
		c.name, catalog.JoinNamespace(id.Namespace), id.Name).Scan(&loc)
	switch {
	case errors.Is(err, dbsql.ErrNoRows):
		return "", fmt.Errorf("table %s: %w", id, catalog.ErrNoSuchTable)
	case err != nil:
		return "", errkind.Wrap(errkind.IO, fmt.Errorf("table %s: %w", id, err))
	case !loc.Valid || loc.String == "":
		return "", errkind.Errorf(errkind.Corrupt, "table %s has no metadata location in the catalog", id)
	}
	return loc.String, nil
}

func (c *Catalog) TableExists(ctx context.Context, id catalog.Identifier) (bool, error) {
	_, err := c.metadataLocation(ctx, id)
	if errors.Is(err, catalog.ErrNoSuchTable) {
		return false, nil
	}
	return err == nil, err
}

func (c *Catalog) LoadTable(ctx context.Context, id catalog.Identifier) (*table.Table, error) {
	loc, err := c.metadataLocation(ctx, id)
	if err != nil {
		return nil, err
	}
	return c.load(ctx, id, loc)
}

func (c *Catalog) load(ctx context.Context, id catalog.Identifier, loc string) (*table.Table, error) {
	files, err := c.files(loc)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", id, err)
	}
	t, err := table.Load(ctx, files, loc, &publisher{c: c, id: id})
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", id, err)
	}
	return t, nil
}

func (c *Catalog) ListTables(ctx context.Context, ns []string) ([]catalog.Identifier, error) {
	exists, err := c.NamespaceExists(ctx, ns)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, fmt.Errorf("list tables of %s: %w", catalog.JoinNamespace(ns), catalog.ErrNoSuchNamespace)
	}
	rows, err := c.db.QueryContext(ctx, `SELECT table_name FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ?`+c.tablesOnly()+` ORDER BY table_name`,
		c.name, catalog.JoinNamespace(ns))
	if err != nil {
		return nil, errkind.Wrap(errkind.IO, err)
	}
	defer rows.Close()
	var out []catalog.Identifier
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, errkind.Wrap(errkind.IO, err)
		}
		out = append(out, catalog.Identifier{Namespace: append([]string(nil), ns...), Name: name})
	}
	return out, wrapIO(rows.Err())
}

func (c *Catalog) CreateTable(ctx context.Context, id catalog.Identifier, schema *iceberg.Schema, opts catalog.CreateOptions) (*table.Table, error) {
	if err := checkNewTable(id); err != nil {
		return nil, err
	}
	exists, err := c.NamespaceExists(ctx, id.Namespace)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, fmt.Errorf("create table %s: %w", id, catalog.ErrNoSuchNamespace)
	}
	if found, err := c.TableExists(ctx, id); err != nil || found {
		if err == nil {
			err = catalog.ErrTableExists
		}
		return nil, fmt.Errorf("create table %s: %w", id, err)
	}
	location := opts.Location
	if location == "" {
		location = fileio.JoinPath(c.warehouse, append(append([]string(nil), id.Namespace...), id.Name)...)
	}
	md, err := table.NewMetadata(location, schema, opts.Spec, opts.SortOrder, opts.Properties, opts.FormatVersion)
	if err != nil {
		return nil, errkind.Default(errkind.InvalidArgument, fmt.Errorf("create table %s: %w", id, err))
	}
	files, err := c.files(md.Location)
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", id, err)
	}
	// Two tables in one directory would read each other's metadata.
	if existing, err := table.LocateMetadata(ctx, files, md.Location); err == nil {
		return nil, fmt.Errorf("create table %s: %s already holds a table (%s); register it instead: %w", id, md.Location, existing, catalog.ErrTableExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("create table %s: %w", id, err)
	}
	path := table.MetadataFilePath(md.Location, 0)
	if err := writeMetadata(ctx, files, path, md); err != nil {
		return nil, fmt.Errorf("create table %s: %w", id, err)
	}
	_, err = c.db.ExecContext(ctx, `INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location`+c.typeColumn()+`)
		VALUES (?, ?, ?, ?, NULL`+c.typeValue()+`)`, c.name, catalog.JoinNamespace(id.Namespace), id.Name, path)
	if err != nil {
		_ = files.Delete(context.WithoutCancel(ctx), path)
		if found, _ := c.TableExists(ctx, id); found {
			return nil, fmt.Errorf("create table %s: %w (created concurrently)", id, catalog.ErrTableExists)
		}
		return nil, errkind.Wrap(errkind.IO, fmt.Errorf("create table %s: %w", id, err))
	}
	return table.Load(ctx, files, path, &publisher{c: c, id: id})
}

func (c *Catalog) typeColumn() string {
	if c.typed {
		return ", iceberg_type"
	}
	return ""
}

func (c *Catalog) typeValue() string {
	if c.typed {
		return ", 'TABLE'"
	}
	return ""
}

func writeMetadata(ctx context.Context, files fileio.FileIO, path string, md *metadata.Metadata) error {
	data, err := md.MarshalJSON()
	if err != nil {
		return err
	}
	return files.WriteFileIfAbsent(ctx, path, data)
}

func (c *Catalog) RegisterTable(ctx context.Context, id catalog.Identifier, metadataLocation string) (*table.Table, error) {
	if err := checkNewTable(id); err != nil {
		return nil, err
	}
	if found, err := c.TableExists(ctx, id); err != nil || found {
		if err == nil {
			err = catalog.ErrTableExists
		}
		return nil, fmt.Errorf("register table %s: %w", id, err)
	}
	t, err := c.load(ctx, id, metadataLocation)
	if err != nil {
		return nil, fmt.Errorf("register table %s: %w", id, err)
	}
	_, err = c.db.ExecContext(ctx, `INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location`+c.typeColumn()+`)
		VALUES (?, ?, ?, ?, NULL`+c.typeValue()+`)`, c.name, catalog.JoinNamespace(id.Namespace), id.Name, metadataLocation)
	if err != nil {
		if found, _ := c.TableExists(ctx, id); found {
			return nil, fmt.Errorf("register table %s: %w (registered concurrently)", id, catalog.ErrTableExists)
		}
		return nil, errkind.Wrap(errkind.IO, fmt.Errorf("register table %s: %w", id, err))
	}
	return t, nil
}

// DropTable forgets the table; with purge it then deletes every file the
// table reaches (table.Purge), once no reader can find it by name.
func (c *Catalog) DropTable(ctx context.Context, id catalog.Identifier, purge bool) error {
	var doomed *table.Table
	if purge {
		t, err := c.LoadTable(ctx, id)
		if err != nil {
			return fmt.Errorf("drop table %s: %w", id, err)
		}
		doomed = t
	}
	res, err := c.db.ExecContext(ctx, `DELETE FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?`+c.tablesOnly(),
		c.name, catalog.JoinNamespace(id.Namespace), id.Name)
	if err != nil {
		return errkind.Wrap(errkind.IO, fmt.Errorf("drop table %s: %w", id, err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("drop table %s: %w", id, catalog.ErrNoSuchTable)
	}
	if doomed != nil {
		if err := doomed.Purge(ctx); err != nil {
			return fmt.Errorf("drop table %s: dropped, but %w", id, err)
		}
	}
	return nil
}

func (c *Catalog) RenameTable(ctx context.Context, from, to catalog.Identifier) error {
	if err := checkNewTable(to); err != nil {
		return err
	}
	if exists, err := c.NamespaceExists(ctx, to.Namespace); err != nil || !exists {
		if err == nil {
			err = catalog.ErrNoSuchNamespace
		}
		return fmt.Errorf("rename %s to %s: %w", from, to, err)
	}
	if found, err := c.TableExists(ctx, to); err != nil || found {
		if err == nil {
			err = catalog.ErrTableExists
		}
		return fmt.Errorf("rename %s to %s: %w", from, to, err)
	}
	res, err := c.db.ExecContext(ctx, `UPDATE iceberg_tables SET table_namespace = ?, table_name = ? WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?`+c.tablesOnly(),
		catalog.JoinNamespace(to.Namespace), to.Name, c.name, catalog.JoinNamespace(from.Namespace), from.Name)
	if err != nil {
		if found, _ := c.TableExists(ctx, to); found {
			return fmt.Errorf("rename %s to %s: %w", from, to, catalog.ErrTableExists)
		}
		return errkind.Wrap(errkind.IO, fmt.Errorf("rename %s to %s: %w", from, to, err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("rename %s: %w", from, catalog.ErrNoSuchTable)
	}
	return nil
}

// --- commits ---

// publisher commits one table of the catalog.
type publisher struct {
	c  *Catalog
	id catalog.Identifier
}

func (p *publisher) Publish(ctx context.Context, base *table.Table, changes *metadata.Changes) (*table.Table, error) {
	md, err := table.NextMetadata(base, changes)
	if err != nil {
		return nil, err
	}
	path := table.MetadataFilePath(md.Location, table.MetadataVersion(base.MetadataLocation)+1)
	if err := writeMetadata(ctx, base.IO, path, md); err != nil {
		return nil, fmt.Errorf("commit %s: %w", p.id, err)
	}
	commitstep.Reached("metadata-file")
	c := p.c
	res, err := c.db.ExecContext(ctx, `UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ?
		WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND metadata_location = ?`,
		path, base.MetadataLocation, c.name, catalog.JoinNamespace(p.id.Namespace), p.id.Name, base.MetadataLocation)
	if err != nil {
		// An embedded database reports a statement that failed as failed,
		// but whether the row changed is only known by looking.
		if now, lerr := c.metadataLocation(context.WithoutCancel(ctx), p.id); lerr == nil && now == path {
			return p.committed(base, md, path), nil
		} else if lerr != nil {
			return nil, fmt.Errorf("commit %s: %w (%w: %v)", p.id, err, table.ErrCommitStateUnknown, lerr)
		}
		_ = base.IO.Delete(context.WithoutCancel(ctx), path)
		return nil, errkind.Wrap(errkind.IO, fmt.Errorf("commit %s: %w", p.id, err))
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		_ = base.IO.Delete(context.WithoutCancel(ctx), path)
		if err == nil && n == 0 {
			return nil, table.ErrStale
		}
		return nil, errkind.Errorf(errkind.Corrupt, "commit %s: %d catalog rows changed (%v)", p.id, n, err)
	}
	return p.committed(base, md, path), nil
}

func (p *publisher) committed(base *table.Table, md *metadata.Metadata, path string) *table.Table {
	return &table.Table{Metadata: md, MetadataLocation: path, IO: base.IO, Locations: base.Locations, Publisher: p}
}

func (p *publisher) Refresh(ctx context.Context, t *table.Table) (*table.Table, error) {
	loc, err := p.c.metadataLocation(ctx, p.id)
	if err != nil {
		return nil, err
	}
	fresh, err := table.Load(ctx, t.IO, loc, p)
	if err != nil {
		return nil, err
	}
	fresh.Locations = t.Locations
	return fresh, nil
}

func (c *Catalog) inTx(ctx context.Context, fn func(*tx) error) error {
	t, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return errkind.Wrap(errkind.IO, err)
	}
	tx := &tx{Tx: t, dollar: c.db.dollar}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return errkind.Default(errkind.IO, err)
	}
	return wrapIO(tx.Commit())
}

func wrapIO(err error) error {
	if err == nil {
		return nil
	}
	return errkind.Default(errkind.IO, err)
}

// db and tx run the catalog's statements, written with ? placeholders,
// on either database: PostgreSQL numbers its placeholders ($1, $2, …).
type db struct {
	*dbsql.DB
	dollar bool
}

type tx struct {
	*dbsql.Tx
	dollar bool
}

func (d *db) ExecContext(ctx context.Context, q string, args ...any) (dbsql.Result, error) {
	return d.DB.ExecContext(ctx, bind(q, d.dollar), args...)
}

func (d *db) QueryContext(ctx context.Context, q string, args ...any) (*dbsql.Rows, error) {
	return d.DB.QueryContext(ctx, bind(q, d.dollar), args...)
}

func (d *db) QueryRowContext(ctx context.Context, q string, args ...any) *dbsql.Row {
	return d.DB.QueryRowContext(ctx, bind(q, d.dollar), args...)
}

func (t *tx) ExecContext(ctx context.Context, q string, args ...any) (dbsql.Result, error) {
	return t.Tx.ExecContext(ctx, bind(q, t.dollar), args...)
}

// bind numbers q's ? placeholders for PostgreSQL. The catalog's
// statements hold no ? inside a string literal.
func bind(q string, dollar bool) string {
	if !dollar || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
