package metadata

import (
	"fmt"
	"strconv"
	"strings"
)

// Property is a table property, or def when it is not set.
func (m *Metadata) Property(key, def string) string {
	if v, ok := m.Properties[key]; ok {
		return v
	}
	return def
}

// PropertyInt is an integer table property, or def when it is not set. A
// value that is not an integer is an error, not the default, so a typo in a
// setting is noticed.
func (m *Metadata) PropertyInt(key string, def int64) (int64, error) {
	v, ok := m.Properties[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return def, fmt.Errorf("table property %s=%q is not an integer", key, v)
	}
	return n, nil
}

// PropertyBool is a boolean table property ("true" or "false" in any case),
// or def when it is not set. Any other value is an error.
func (m *Metadata) PropertyBool(key string, def bool) (bool, error) {
	v, ok := m.Properties[key]
	if !ok {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return def, fmt.Errorf("table property %s=%q is not true or false", key, v)
}
