// Package config finds a catalog's properties the way pyiceberg does, so
// that a .pyiceberg.yaml and PYICEBERG_CATALOG__* variables written for
// pyiceberg open the same catalog in floe's CLI (and, through the same
// policy in bindings/python/floe/_config.py, in floe's Python package).
//
// Where properties come from, the first winning:
//
//   - explicit properties (the CLI's --catalog-prop, Python's keywords);
//   - environment variables PYICEBERG_CATALOG__<NAME>__<KEY> (case-blind;
//     "__" inside KEY is ".", "_" is "-": PYICEBERG_CATALOG__PROD__S3__ACCESS_KEY_ID
//     is s3.access-key-id of catalog prod);
//   - the catalog: section of the first .pyiceberg.yaml found in
//     $PYICEBERG_HOME, the home directory, then the working directory
//     (one file: they are not merged);
//   - $FLOE_CATALOG, floe's own variable, when it is a uri (not the name
//     of a configured catalog): the uri of last resort, used only when
//     nothing above gives one (nor, for a warehouse catalog, a warehouse).
//
// The catalog's name is the one asked for, else $FLOE_CATALOG when it
// names a configured catalog, else default-catalog (from the file or
// PYICEBERG_DEFAULT_CATALOG), else "default"; names and keys are
// matched case-blind, as pyiceberg lowercases them. Empty values (an
// empty variable, an explicit "") give nothing, so they never hide a
// value below them. floe reads the configuration at each open, where
// pyiceberg reads it once at import.
//
// Where floe departs from pyiceberg, on purpose: a nested mapping inside
// a catalog's entry (s3: {endpoint: …}) is read as dotted keys
// (s3.endpoint), a key given twice is an error, and the type may be
// floe's warehouse (a filesystem warehouse: a directory, file://… or
// s3://…; "filesystem" and "hadoop" are its other names).
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/floedb/floe/errkind"
)

// The names pyiceberg gives its file, variables and keys.
const (
	FileName        = ".pyiceberg.yaml"
	EnvHome         = "PYICEBERG_HOME"
	EnvPrefix       = "PYICEBERG_"
	EnvFloeCatalog  = "FLOE_CATALOG"
	keyCatalog      = "catalog"
	keyDefault      = "default-catalog"
	defaultCatalogN = "default"
)

// Config is the configuration as the file and the environment give it.
type Config struct {
	// File is the file read; "" when none was found.
	File string
	// Searched are the directories looked in, in order ($PYICEBERG_HOME
	// when set, the home directory, the working directory).
	Searched []string
	// tree holds lowercased keys; values are strings, maps of the same
	// kind, or []any for sequences (no catalog property is one).
	tree map[string]any
	// floeCatalog is $FLOE_CATALOG.
	floeCatalog string
}

// Load reads the configuration of this process: its environment, home
// and working directories.
func Load() (*Config, error) {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	return load(os.Environ(), home, cwd)
}

// load reads the configuration from env ("KEY=VALUE" entries) and the
// files in $PYICEBERG_HOME, home and cwd.
func load(env []string, home, cwd string) (*Config, error) {
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	c := &Config{tree: map[string]any{}, floeCatalog: vars[EnvFloeCatalog]}
	for _, dir := range []string{vars[EnvHome], home, cwd} {
		if dir == "" {
			continue
		}
		c.Searched = append(c.Searched, dir)
		path := filepath.Join(dir, FileName)
		data, err := os.ReadFile(path)
		if err != nil {
			// pyiceberg looks for a file, not at why it cannot be read;
			// a directory of that name is not a file either.
			continue
		}
		tree, err := parseYAML(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if err := flattenCatalogs(tree); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		c.File, c.tree = path, tree
		break
	}
	if err := c.overlayEnv(vars); err != nil {
		return nil, err
	}
	return c, nil
}

// flattenCatalogs makes each catalog's entry in the file one level of
// dotted keys (flatten) before the environment is laid over it.
func flattenCatalogs(tree map[string]any) error {
	cats, ok := tree[keyCatalog].(map[string]any)
	if !ok {
		return nil
	}
	for name, entry := range cats {
		if m, ok := entry.(map[string]any); ok {
			flat := map[string]any{}
			if err := flatten(flat, "", m, name); err != nil {
				return err
			}
			cats[name] = flat
		}
	}
	return nil
}

// overlayEnv sets each PYICEBERG_* variable's value at its path, in the
// order of the variables' names so that the outcome does not depend on
// the environment's order.
func (c *Config) overlayEnv(vars map[string]string) error {
	names := make([]string, 0, len(vars))
	for k := range vars {
		if strings.HasPrefix(strings.ToLower(k), strings.ToLower(EnvPrefix)) && vars[k] != "" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		path := envPath(name)
		node := c.tree
		for _, part := range path[:len(path)-1] {
			switch next := node[part].(type) {
			case map[string]any:
				node = next
			case nil:
				m := map[string]any{}
				node[part], node = m, m
			default:
				return errkind.Errorf(errkind.InvalidArgument, "environment variable %s sets a key below %q, which the configuration gives a value", name, part)
			}
		}
		node[path[len(path)-1]] = vars[name]
	}
	return nil
}

// envPath is where a PYICEBERG_ variable's value goes: its name after the
// prefix, lowercased, cut at its first two "__"; in each part a further
// "__" is "." and "_" is "-" (pyiceberg's rule).
func envPath(name string) []string {
	key := strings.ToLower(name[len(EnvPrefix):])
	parts := strings.SplitN(key, "__", 3)
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "__", "."), "_", "-")
	}
	return parts
}

// DefaultCatalog is the catalog used when none is named: $FLOE_CATALOG
// when it names a configured catalog, else default-catalog (from the file
// or PYICEBERG_DEFAULT_CATALOG), else "default".
func (c *Config) DefaultCatalog() string {
	if c.floeCatalog != "" && c.Configured(c.floeCatalog) {
		return c.floeCatalog
	}
	if s, ok := c.tree[keyDefault].(string); ok && s != "" {
		return s
	}
	return defaultCatalogN
}

// catalogs is the catalog: section (nil when there is none).
func (c *Config) catalogs() (map[string]any, error) {
	switch v := c.tree[keyCatalog].(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return v, nil
	}
	return nil, errkind.Errorf(errkind.InvalidArgument, "%s: catalog: is not a mapping of catalog names", c.where())
}

// Names are the configured catalogs, sorted.
func (c *Config) Names() []string {
	cats, _ := c.catalogs()
	names := make([]string, 0, len(cats))
	for k := range cats {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Configured reports whether the file or the environment has an entry for
// the catalog name.
func (c *Config) Configured(name string) bool {
	cats, _ := c.catalogs()
	_, ok := cats[strings.ToLower(name)]
	return ok
}

// where names the sources read, for messages.
func (c *Config) where() string {
	if c.File != "" {
		return c.File + " and the PYICEBERG_ environment variables"
	}
	return fmt.Sprintf("the PYICEBERG_ environment variables (no %s in %s)", FileName, strings.Join(c.Searched, ", "))
}
