// Package open opens a catalog by URI, the one place the kinds of
// catalogs are told apart (package catalog cannot: its implementations
// import it): sqlite:… and postgresql://… are the SQL catalog, http(s)://…
// the REST catalog, and a directory, file://… or s3://… a filesystem
// warehouse.
package open

import (
	"context"
	"strings"
	"time"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/catalog/rest"
	sqlcatalog "github.com/floedb/floe/catalog/sql"
	"github.com/floedb/floe/catalog/warehouse"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
)

// EnvCatalog names the catalog commands use when given none.
const EnvCatalog = "FLOE_CATALOG"

// DefaultOpenTimeout bounds opening a catalog when its timeout-ms
// property does not: a server that accepts a connection and never
// answers must fail the open, not hang it (a REST server's GET would
// otherwise be retried past each request's own timeout for minutes).
var DefaultOpenTimeout = 60 * time.Second

// Catalog opens the catalog at uri with its properties; tableOpts give
// the tables' FileIO (location map, S3 settings). A SQLite database that
// does not exist is created: this is the open of a command that writes.
// The timeout-ms property (catalog.PropTimeout) bounds opening, whatever
// the kind (DefaultOpenTimeout when it is not given).
func Catalog(ctx context.Context, uri string, props map[string]string, tableOpts table.Options) (catalog.Catalog, error) {
	return openCatalog(ctx, uri, props, tableOpts, true)
}

// Existing opens the catalog at uri as Catalog does, for reading: a
// SQLite database that does not exist is not found, and no file is made.
func Existing(ctx context.Context, uri string, props map[string]string, tableOpts table.Options) (catalog.Catalog, error) {
	return openCatalog(ctx, uri, props, tableOpts, false)
}

func openCatalog(ctx context.Context, uri string, props map[string]string, tableOpts table.Options, create bool) (catalog.Catalog, error) {
	timeout, set, err := catalog.Timeout(props)
	if err != nil {
		return nil, err
	}
	if !set {
		timeout = DefaultOpenTimeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	switch {
	case strings.HasPrefix(uri, "sqlite:"), strings.HasPrefix(uri, "postgresql://"), strings.HasPrefix(uri, "postgres://"):
		if !create {
			return opened(sqlcatalog.OpenExisting(ctx, uri, props, tableOpts))
		}
		return opened(sqlcatalog.Open(ctx, uri, props, tableOpts))
	case strings.HasPrefix(uri, "http://"), strings.HasPrefix(uri, "https://"):
		return opened(rest.Open(ctx, uri, props, tableOpts))
	case strings.HasPrefix(uri, "file://"), strings.HasPrefix(uri, "s3://"), strings.HasPrefix(uri, "s3a://"):
		return opened(warehouse.Open(ctx, uri, props, tableOpts))
	}
	scheme, _, found := strings.Cut(uri, ":")
	if !found || isWindowsDrive(scheme) {
		// No scheme: a directory, the filesystem warehouse.
		if uri == "" {
			return nil, errkind.Errorf(errkind.InvalidArgument, "empty catalog URI: %s", uriForms)
		}
		return opened(warehouse.Open(ctx, uri, props, tableOpts))
	}
	// The scheme alone: what follows it may hold a password.
	return nil, errkind.Errorf(errkind.InvalidArgument, "catalog URI with scheme %q: %s", scheme, uriForms)
}

// opened is an implementation's result as a Catalog: nil, not a nil
// pointer in a non-nil interface, when opening failed.
func opened[C catalog.Catalog](c C, err error) (catalog.Catalog, error) {
	if err != nil {
		return nil, err
	}
	return c, nil
}

const uriForms = "use sqlite:///abs/path.db, sqlite:relative.db, postgresql://user:password@host:port/db, http(s)://host[:port][/path] (REST), " +
	"or a warehouse directory (/path, file:///path, s3://bucket/prefix)"

func isWindowsDrive(s string) bool { return len(s) == 1 }
