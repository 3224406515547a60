// Package catalog is where tables live by name: a Catalog lists, creates,
// loads, renames and drops tables in namespaces, and the tables it loads
// commit through it (table.Publisher), so catalog and table never
// disagree. The catalogs are SQL (catalog/sql: SQLite embedded and
// PostgreSQL, in the schema Iceberg's JDBC catalog, pyiceberg, iceberg-go
// and iceberg-rust share), REST (catalog/rest: any server of the Iceberg
// REST protocol) and the filesystem warehouse (catalog/warehouse);
// catalog/open picks one by URI.
//
// Commits reach a catalog as the REST protocol's metadata updates and
// requirements (metadata.Changes): a catalog that stores metadata files
// writes what they produce and swaps its pointer to the new file only if
// it still points at the base's; a REST catalog sends them.
//
// Transactions on several tables of one catalog commit atomically through
// CommitTransaction (transaction.go): the SQL catalog swaps every table's
// row in one database transaction, a REST catalog sends the protocol's
// POST {prefix}/transactions/commit when its server offers it, and the
// warehouse refuses (errkind.Unsupported).
package catalog

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
)

// PropTimeout is floe's catalog property for a deadline in milliseconds
// (0: none): every catalog bounds opening by it (connecting to its
// database or server), and the C ABI every call on the catalog too.
const PropTimeout = "timeout-ms"

// Timeout reads PropTimeout from props; set is false when they do not
// give it.
func Timeout(props map[string]string) (d time.Duration, set bool, err error) {
	v, set := props[PropTimeout]
	if !set {
		return 0, false, nil
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ms < 0 {
		return 0, true, errkind.Errorf(errkind.InvalidArgument, "catalog property %s %q: give milliseconds, or 0 for none", PropTimeout, v)
	}
	return time.Duration(ms) * time.Millisecond, true, nil
}

// Identifier names a table: its namespace (one or more levels) and name.
type Identifier struct {
	Namespace []string
	Name      string
}

// ParseIdentifier reads "ns.table" or "a.b.table": the last part is the
// table, the others its namespace.
func ParseIdentifier(s string) (Identifier, error) {
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return Identifier{}, errkind.Errorf(errkind.InvalidArgument, "table name %q needs a namespace: ns.table", s)
	}
	for _, p := range parts {
		if p == "" {
			return Identifier{}, errkind.Errorf(errkind.InvalidArgument, "table name %q has an empty part", s)
		}
	}
	return Identifier{Namespace: parts[:len(parts)-1], Name: parts[len(parts)-1]}, nil
}

// CheckNewName refuses a namespace level or table name that a catalog
// would turn into something other than one segment of a location: empty,
// "." or "..", or holding "/", "\\", NUL or another control character.
// Every catalog applies it where names are made (creating namespaces and
// tables, registering, renaming), so no table lands outside its
// warehouse; names other engines made are still read.
func CheckNewName(name string) error {
	if name == "" || name == "." || name == ".." {
		return errkind.Errorf(errkind.InvalidArgument, "name %q: a namespace level or table name cannot be empty, \".\" or \"..\"", name)
	}
	for _, r := range name {
		if r == '/' || r == '\\' || r < 0x20 || r == 0x7f {
			return errkind.Errorf(errkind.InvalidArgument, "name %q: a namespace level or table name cannot hold %q", name, r)
		}
	}
	return nil
}

// CheckNewIdentifier applies CheckNewName to every level and the name.
func CheckNewIdentifier(id Identifier) error {
	if err := CheckNewNamespace(id.Namespace); err != nil {
		return err
	}
	return CheckNewName(id.Name)
}

// CheckNewNamespace applies CheckNewName to every level.
func CheckNewNamespace(ns []string) error {
	if len(ns) == 0 {
		return errkind.Errorf(errkind.InvalidArgument, "a namespace needs at least one level")
	}
	for _, level := range ns {
		if err := CheckNewName(level); err != nil {
			return err
		}
	}
	return nil
}

func (id Identifier) String() string { return JoinNamespace(id.Namespace) + "." + id.Name }

// JoinNamespace writes a namespace as catalogs store it: levels joined
// with dots.
func JoinNamespace(ns []string) string { return strings.Join(ns, ".") }

// SplitNamespace reads a stored namespace.
func SplitNamespace(s string) []string { return strings.Split(s, ".") }

// The errors of catalog operations, by kind.
var (
	ErrNoSuchTable       = errkind.New(errkind.NotFound, "no such table")
	ErrNoSuchNamespace   = errkind.New(errkind.NotFound, "no such namespace")
	ErrTableExists       = table.ErrTableExists
	ErrNamespaceExists   = errkind.New(errkind.Conflict, "namespace already exists")
	ErrNamespaceNotEmpty = errkind.New(errkind.Conflict, "namespace is not empty")
)

// CreateOptions are a new table's partition spec, sort order, properties,
// format version (0: the "format-version" property, else 2) and location
// (empty: <warehouse>/<namespace levels>/<name>).
type CreateOptions struct {
	Spec          *iceberg.PartitionSpec
	SortOrder     *iceberg.SortOrder
	Properties    map[string]string
	FormatVersion int
	Location      string
}

// Catalog is one catalog's tables and namespaces.
type Catalog interface {
	// Name is the catalog's name (the catalog_name of a SQL catalog).
	Name() string

	CreateNamespace(ctx context.Context, ns []string, props map[string]string) error
	// DropNamespace refuses a namespace that still holds tables.
	DropNamespace(ctx context.Context, ns []string) error
	NamespaceExists(ctx context.Context, ns []string) (bool, error)
	// ListNamespaces lists the namespaces directly below parent (nil: the
	// top level).
	ListNamespaces(ctx context.Context, parent []string) ([][]string, error)
	NamespaceProperties(ctx context.Context, ns []string) (map[string]string, error)
	UpdateNamespaceProperties(ctx context.Context, ns []string, removals []string, updates map[string]string) error

	CreateTable(ctx context.Context, id Identifier, schema *iceberg.Schema, opts CreateOptions) (*table.Table, error)
	LoadTable(ctx context.Context, id Identifier) (*table.Table, error)
	TableExists(ctx context.Context, id Identifier) (bool, error)
	ListTables(ctx context.Context, ns []string) ([]Identifier, error)
	// DropTable forgets the table; purge also deletes its files.
	DropTable(ctx context.Context, id Identifier, purge bool) error
	RenameTable(ctx context.Context, from, to Identifier) error
	// RegisterTable adopts an existing metadata file as a new table.
	RegisterTable(ctx context.Context, id Identifier, metadataLocation string) (*table.Table, error)

	Close() error
}
