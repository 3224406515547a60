package metadata

import (
	"strings"
	"testing"
)

func TestProperties(t *testing.T) {
	// Real properties of the migrated Hive table.
	m := parseFixture(t, "impala_iceberg_migrated_complex_test/metadata/v2.metadata.json")
	if got := m.Property("write.format.default", "avro"); got != "parquet" {
		t.Errorf("write.format.default = %q", got)
	}
	if got := m.Property("no.such.key", "fallback"); got != "fallback" {
		t.Errorf("default not used: %q", got)
	}
	if n, err := m.PropertyInt("numFiles", -1); err != nil || n != 1 {
		t.Errorf("numFiles = %d, %v", n, err)
	}
	if n, err := m.PropertyInt("commit.retry.num-retries", 4); err != nil || n != 4 {
		t.Errorf("absent int = %d, %v", n, err)
	}
	// "gc.enabled": "TRUE" — case does not matter.
	if b, err := m.PropertyBool("gc.enabled", false); err != nil || !b {
		t.Errorf("gc.enabled = %v, %v", b, err)
	}
	if b, err := m.PropertyBool("no.such.flag", true); err != nil || !b {
		t.Errorf("absent bool = %v, %v", b, err)
	}
	// A value of the wrong kind is reported, not silently defaulted.
	if _, err := m.PropertyInt("table_type", 0); err == nil || !strings.Contains(err.Error(), "table_type") {
		t.Errorf("non-integer: err = %v", err)
	}
	if _, err := m.PropertyBool("write.format.default", false); err == nil || !strings.Contains(err.Error(), "write.format.default") {
		t.Errorf("non-boolean: err = %v", err)
	}
}

func TestBadNameMappingIsAnError(t *testing.T) {
	d := rollbackTable()
	d["properties"] = doc{PropertyNameMapping: "{not json"}
	if _, err := mustParse(t, d).NameMapping(); err == nil || !strings.Contains(err.Error(), PropertyNameMapping) {
		t.Errorf("err = %v", err)
	}
}
