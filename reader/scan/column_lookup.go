package scan

import (
	"strings"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

func findColumn(schema *iceberg.Schema, name string, caseInsensitive bool) (iceberg.NestedField, error) {
	if caseInsensitive {
		return schema.FindFieldByNameCaseInsensitive(name)
	}
	if f, ok := schema.FindFieldByName(name); ok {
		return f, nil
	}
	return iceberg.NestedField{}, errkind.Errorf(errkind.InvalidArgument, "no column named %q in the table schema (columns: %s)", name, topLevelNames(schema))
}

func topLevelNames(schema *iceberg.Schema) string {
	names := make([]string, len(schema.Fields))
	for i, f := range schema.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}
