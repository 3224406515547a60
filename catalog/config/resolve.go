package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/floedb/floe/errkind"
)

// The catalog types floe opens (Type of a Catalog).
const (
	TypeSQL       = "sql"
	TypeREST      = "rest"
	TypeWarehouse = "warehouse"
)

// typeNames maps the type property's values to floe's types: pyiceberg's
// names where floe has the catalog, and floe's own for the warehouse.
var typeNames = map[string]string{
	"sql": TypeSQL, "rest": TypeREST,
	"warehouse": TypeWarehouse, "filesystem": TypeWarehouse, "hadoop": TypeWarehouse,
}

// uriPrefixes are the URIs each type takes (nil: a directory, file://… or
// s3://…, checked by the warehouse itself).
var uriPrefixes = map[string][]string{
	TypeSQL:  {"sqlite:", "postgresql://", "postgres://"},
	TypeREST: {"http://", "https://"},
}

// Catalog is a resolved catalog: what opening it takes.
type Catalog struct {
	// Name is the name asked for (or the default), as given: a SQL
	// catalog keeps its rows under it, as pyiceberg's does.
	Name string
	// Type is TypeSQL, TypeREST or TypeWarehouse.
	Type string
	// URI is where it is (for a warehouse: its root directory).
	URI string
	// Props are the other properties, with "name" set to Name.
	Props map[string]string
}

// Resolve gives catalog name's properties (the default catalog's when
// name is ""), explicit ones over the environment's over the file's, and
// its type, given or told by its uri. Errors: errkind.NotFound when
// nothing configures the catalog, InvalidArgument for a missing uri or
// one the type does not take or floe does not know, Unsupported for a
// type floe does not open.
// No message shows a property's value.
func (c *Config) Resolve(name string, explicit map[string]string) (*Catalog, error) {
	if name == "" {
		name = c.DefaultCatalog()
	}
	fallback := c.fallbackURI()
	cats, err := c.catalogs()
	if err != nil {
		return nil, err
	}
	props := map[string]string{}
	entry, configured := cats[strings.ToLower(name)]
	if configured {
		m, ok := entry.(map[string]any)
		if !ok {
			return nil, errkind.Errorf(errkind.InvalidArgument, "%s: catalog %q is not a mapping of properties", c.where(), name)
		}
		for k, v := range m {
			s, ok := v.(string)
			if !ok {
				return nil, errkind.Errorf(errkind.InvalidArgument, "%s: catalog %q: property %s is not a value", c.where(), name, k)
			}
			props[k] = s
		}
	}
	given := false
	for k, v := range explicit {
		if v != "" {
			props[k], given = v, true
		}
	}
	delete(props, "name")
	if !configured && !given && fallback == "" {
		return nil, errkind.Errorf(errkind.NotFound, "catalog %q is not configured: %s", name, c.known(name))
	}
	kind := strings.ToLower(props["type"])
	delete(props, "type")
	if kind != "" && typeNames[kind] == "" {
		return nil, errkind.Errorf(errkind.Unsupported, "catalog %q: type %q is not supported (sql, rest and warehouse are)", name, kind)
	}
	kind = typeNames[kind]
	uri := props["uri"]
	delete(props, "uri")
	if uri == "" && kind == TypeWarehouse {
		uri = props["warehouse"]
	}
	if uri == "" {
		uri = fallback
	}
	if uri == "" {
		return nil, errkind.Errorf(errkind.InvalidArgument, "catalog %q has no uri: set it under catalog: %s: in %s, as %s, or as an explicit property",
			name, strings.ToLower(name), c.fileOrHint(), EnvPrefix+"CATALOG__"+strings.ToUpper(name)+"__URI")
	}
	inferred, err := inferType(name, uri)
	if err != nil {
		return nil, err
	}
	if kind == "" {
		kind = inferred
	} else if kind != inferred {
		return nil, errkind.Errorf(errkind.InvalidArgument, "catalog %q: a %s catalog's uri is %s, not %s",
			name, kind, uriForms(kind), schemeOf(uri))
	}
	props["name"] = name
	return &Catalog{Name: name, Type: kind, URI: uri, Props: props}, nil
}

// fallbackURI is $FLOE_CATALOG when it is a uri, not a configured
// catalog's name (DefaultCatalog takes it as one).
func (c *Config) fallbackURI() string {
	if c.Configured(c.floeCatalog) {
		return ""
	}
	return c.floeCatalog
}

// flatten gives a catalog's entry with a nested mapping's keys joined to
// its key by "." (s3: {endpoint: …} is s3.endpoint), so that the
// environment's dotted keys replace them.
func flatten(out map[string]any, prefix string, m map[string]any, name string) error {
	for k, v := range m {
		key := prefix + k
		if sub, ok := v.(map[string]any); ok {
			if err := flatten(out, key+".", sub, name); err != nil {
				return err
			}
			continue
		}
		if _, dup := out[key]; dup {
			return errkind.Errorf(errkind.InvalidArgument, "catalog %q gives %s twice", name, key)
		}
		out[key] = v
	}
	return nil
}

// inferType tells a catalog's type by its uri, as pyiceberg does for
// REST and SQL; what has no scheme, file:// or s3:// is a warehouse.
// Only the scheme is named in an error: the rest may hold a password.
func inferType(name, uri string) (string, error) {
	for _, kind := range []string{TypeSQL, TypeREST} {
		for _, p := range uriPrefixes[kind] {
			if strings.HasPrefix(uri, p) {
				return kind, nil
			}
		}
	}
	scheme, _, found := strings.Cut(uri, ":")
	switch {
	case !found, len(scheme) == 1, strings.ContainsAny(scheme, `/\`):
		return TypeWarehouse, nil // a path (C:\… is a drive)
	}
	switch strings.ToLower(scheme) {
	case "file", "s3", "s3a":
		return TypeWarehouse, nil
	}
	return "", errkind.Errorf(errkind.InvalidArgument, "catalog %q: cannot tell its type from a uri with scheme %q (floe opens sqlite:, postgresql://, http(s):// and warehouses)", name, scheme)
}

func uriForms(kind string) string {
	if kind == TypeWarehouse {
		return "a directory, file://… or s3://…"
	}
	return strings.Join(uriPrefixes[kind], "… or ") + "…"
}

func schemeOf(uri string) string {
	if scheme, _, found := strings.Cut(uri, ":"); found && len(scheme) > 1 && !strings.ContainsAny(scheme, `/\`) {
		return fmt.Sprintf("%q", scheme+":")
	}
	return "a path"
}

// known says which catalogs the configuration has, for a catalog it lacks.
func (c *Config) known(name string) string {
	names := c.Names()
	hint := fmt.Sprintf("set %s%s or give its uri", EnvPrefix+"CATALOG__"+strings.ToUpper(name), "__URI")
	if len(names) == 0 {
		return fmt.Sprintf("%s configure no catalogs; %s", c.where(), hint)
	}
	sort.Strings(names)
	return fmt.Sprintf("%s configure %s; %s", c.where(), strings.Join(names, ", "), hint)
}

func (c *Config) fileOrHint() string {
	if c.File != "" {
		return c.File
	}
	return FileName
}
