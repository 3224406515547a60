// Package open opens a catalog by URI, the one place the kinds of
// catalogs are told apart (package catalog cannot: its implementations
// import it): sqlite:… and postgresql://… are the SQL catalog, http(s)://…
// the REST catalog, and a directory, file://… or s3://… a filesystem
// warehouse.
package open

import (
	"context"
	"strings"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/catalog/rest"
	sqlcatalog "github.com/floedb/floe/catalog/sql"
	"github.com/floedb/floe/catalog/warehouse"
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
	case strings.HasPrefix(uri, "file://"), strings.HasPrefix(uri, "s3://"), strings.HasPrefix(uri, "s3a://"):
		return warehouse.Open(ctx, uri, props, tableOpts)
	}
	scheme, _, found := strings.Cut(uri, ":")
	if !found || isWindowsDrive(scheme) {
		// No scheme: a directory, the filesystem warehouse.
		if uri == "" {
			return nil, errkind.Errorf(errkind.InvalidArgument, "empty catalog URI: %s", uriForms)
		}
		return warehouse.Open(ctx, uri, props, tableOpts)
	}
	return nil, errkind.Errorf(errkind.InvalidArgument, "catalog URI with scheme %q: %s", scheme, uriForms)
}

const uriForms = "use sqlite:///abs/path.db, sqlite:relative.db, postgresql://user:password@host:port/db, http(s)://host[:port][/path] (REST), " +
	"or a warehouse directory (/path, file:///path, s3://bucket/prefix)"

func isWindowsDrive(s string) bool { return len(s) == 1 }
