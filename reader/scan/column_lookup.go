package scan

import (
	"errors"
	"strings"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

func findColumn(schema *iceberg.Schema, name string, caseInsensitive bool) (iceberg.NestedField, error) {
	if caseInsensitive {
		f, err := schema.FindFieldByNameCaseInsensitive(name)
		var ambiguous *iceberg.AmbiguousNameError
		if err == nil || errors.As(err, &ambiguous) {
			return f, err
		}
	} else if f, ok := schema.FindFieldByName(name); ok {
		return f, nil
	}
	hint := ""
	if close := schema.CloseNames(name); len(close) > 0 {
		hint = "; did you mean " + strings.Join(close, ", ") + "?"
	}
	return iceberg.NestedField{}, errkind.Errorf(errkind.InvalidArgument, "no column named %q in the table schema%s (columns: %s)", name, hint, topLevelNames(schema))
}

func topLevelNames(schema *iceberg.Schema) string {
	names := make([]string, len(schema.Fields))
	for i, f := range schema.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}
