package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/floedb/floe/catalog/config"
)

// catalogTarget turns --catalog's value (fromFlag) or $FLOE_CATALOG into
// the URI and properties to open, props being --catalog-prop's. A catalog
// that .pyiceberg.yaml or PYICEBERG_CATALOG__* configure by that name is
// resolved as pyiceberg (and floe's Python load_catalog) would, with
// --catalog-prop over its properties (package catalog/config holds the
// policy). Anything else is a URI, as it always was, except a bare word
// given to --catalog that is no directory: a misspelt name must not
// become a new warehouse, so it is resolved as a name too (and is not
// found unless --catalog-prop uri=… or $FLOE_CATALOG gives a uri).
func catalogTarget(value string, fromFlag bool, props map[string]string) (string, map[string]string, error) {
	if !isBareName(value) {
		return value, props, nil
	}
	cfg, err := config.Load()
	if err != nil {
		return "", nil, err
	}
	if !cfg.Configured(value) {
		if !fromFlag || isDir(value) {
			return value, props, nil
		}
	}
	res, err := cfg.Resolve(value, props)
	if err != nil {
		if !cfg.Configured(value) {
			return "", nil, fmt.Errorf("--catalog %s: %w (a new warehouse directory is written as ./%s)", value, err, value)
		}
		return "", nil, err
	}
	return res.URI, res.Props, nil
}

// isBareName tells a catalog name from a URI or path: a name has no
// scheme, no separator and does not start with ".".
func isBareName(s string) bool {
	return s != "" && !strings.ContainsAny(s, `:/\`) && !strings.HasPrefix(s, ".")
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
