// Package open opens a catalog by URI, the one place the kinds of
// catalogs are told apart (package catalog cannot: its implementations
// import it): sqlite:… and postgresql://… are the SQL catalog, http(s)://…
// the REST catalog. Filesystem warehouses are to come.
package open

import (
	"context"
	"strings"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/catalog/rest"
	sqlcatalog "github.com/floedb/floe/catalog/sql"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
)

// EnvCatalog names the catalog commands use when given none.
const EnvCatalog = "FLOE_CATALOG"

// Catalog opens the catalog at uri with its properties; tableOpts give
// the tables' FileIO (location map, S3 settings).
func Catalog(ctx context.Context, uri string, props map[string]string, tableOpts table.Options) (catalog.Catalog, error) {
	switch {
	case strings.HasPrefix(uri, "sqlite:"), strings.HasPrefix(uri, "postgresql://"), strings.HasPrefix(uri, "postgres://"):
		return sqlcatalog.Open(ctx, uri, props, tableOpts)
	case strings.HasPrefix(uri, "http://"), strings.HasPrefix(uri, "https://"):
		return rest.Open(ctx, uri, props, tableOpts)
	}
	scheme, _, found := strings.Cut(uri, ":")
	if !found {
		return nil, errkind.Errorf(errkind.InvalidArgument, "a catalog URI needs a scheme: sqlite:///abs/path.db, sqlite:relative.db or postgresql://user:password@host:port/db")
	}
	return nil, errkind.Errorf(errkind.InvalidArgument, "catalog URI with scheme %q: use sqlite:///abs/path.db, sqlite:relative.db, postgresql://user:password@host:port/db or http(s)://host[:port][/path] (REST)", scheme)
}
