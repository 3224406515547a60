package expr

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
)

const fixtures = "../../testdata/fixtures"

func fixtureSchema(t *testing.T, path string) *iceberg.Schema {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures, path))
	if err != nil {
		t.Fatal(err)
	}
	m, err := metadata.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return m.CurrentSchema()
}

func bindText(t *testing.T, schema *iceberg.Schema, filter string, caseSensitive bool) (Bound, error) {
	t.Helper()
	e, err := ParseText(filter)
	if err != nil {
		t.Fatalf("ParseText(%q): %v", filter, err)
	}
	return Bind(e, schema, !caseSensitive)
}

func mustBindPredicate(t *testing.T, schema *iceberg.Schema, filter string) *BoundPredicate {
	t.Helper()
	b, err := bindText(t, schema, filter, true)
	if err != nil {
		t.Fatalf("Bind(%q): %v", filter, err)
	}
	p, ok := b.(*BoundPredicate)
	if !ok {
		t.Fatalf("Bind(%q) = %s (%T), want a bound predicate", filter, b, b)
	}
	return p
}

func TestBindImpalaPartitioned(t *testing.T) {
	schema := fixtureSchema(t, "impala_iceberg_partitioned/metadata/v2.metadata.json")

	p := mustBindPredicate(t, schema, "id > 10")
	if p.FieldID != 1 || p.Op != OpGt || p.Values[0] != int32(10) {
		t.Errorf("id > 10 bound to %+v", p)
	}
	p = mustBindPredicate(t, schema, "action <> 'click'")
	if p.FieldID != 3 || p.Op != OpNotEq || p.Values[0] != "click" {
		t.Errorf("action <> 'click' bound to %+v", p)
	}
	// 2020-01-01T10:00:00Z is 1577836800 (midnight) + 10 h seconds.
	p = mustBindPredicate(t, schema, "event_time < '2020-01-01 10:00:00'")
	if p.FieldID != 4 || p.Values[0] != int64(1577872800)*1_000_000 {
		t.Errorf("event_time bound to %+v", p)
	}
	if got, want := p.String(), "event_time < '2020-01-01T10:00:00.000000+00:00'"; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
	p = mustBindPredicate(t, schema, "event_time < '2020-01-01T12:00:00+02:00'")
	if p.Values[0] != int64(1577872800)*1_000_000 {
		t.Errorf("zoned timestamp bound to %v", p.Values[0])
	}

	// user and action are required, so null tests are decided by the schema.
	for filter, want := range map[string]string{
		"user is null":                            "false",
		"user is not null":                        "true",
		"id is null":                              "id is null",
		"id < 3000000000":                         "id is not null", // a null id fails every comparison
		"id > 3000000000":                         "false",
		"id != 3000000000":                        "id is not null",
		"id = -3000000000":                        "false",
		"id >= -3000000000":                       "id is not null",
		"id < 1e12":                               "id is not null",
		"id in (1, 3000000000)":                   "id = 1",
		"id in (3000000000, 4000000000)":          "false",
		"id not in (3000000000)":                  "id is not null",
		"not (id < 3000000000)":                   "false", // negated before folding
		"id in (3, 1, 2, 1)":                      "id in (1, 2, 3)",
		"id < 10 and user is not null":            "id < 10",
		"not (user is null) and (id = 1 or true)": "true",
		"id = '7'":                                "id = 7",
		"id = 7.0":                                "id = 7",
		"action like 'cl%'":                       "action like 'cl%'",
	} {
		b, err := bindText(t, schema, filter, true)
		if err != nil {
			t.Errorf("Bind(%q): %v", filter, err)
			continue
		}
		if b.String() != want {
			t.Errorf("Bind(%q) = %s, want %s", filter, b, want)
		}
	}
}

func TestBindCaseAndNames(t *testing.T) {
	schema := fixtureSchema(t, "impala_iceberg_partitioned/metadata/v2.metadata.json")
	if _, err := bindText(t, schema, "ID > 10", true); err == nil {
		t.Error("case-sensitive bind found ID")
	}
	b, err := bindText(t, schema, "ID > 10", false)
	if err != nil {
		t.Fatal(err)
	}
	if p := b.(*BoundPredicate); p.FieldID != 1 {
		t.Errorf("ID bound to field %d", p.FieldID)
	}
	_, err = bindText(t, schema, "actoin = 'x'", true)
	if err == nil || !strings.Contains(err.Error(), `"actoin"`) || !strings.Contains(err.Error(), `"action"`) {
		t.Errorf("unknown column error = %v, want it to name actoin and suggest action", err)
	}
}

func TestBindAllTypes(t *testing.T) {
	schema := fixtureSchema(t, "impala_iceberg_v3_all_types/metadata/v4.metadata.json")
	check := func(filter string, want any) {
		t.Helper()
		p := mustBindPredicate(t, schema, filter)
		if d, ok := want.(iceberg.Decimal); ok {
			got, ok := p.Values[0].(iceberg.Decimal)
			if !ok || got.Cmp(d) != 0 || got.Scale != d.Scale {
				t.Errorf("%s bound %v, want %v", filter, p.Values[0], want)
			}
			return
		}
		if b, ok := want.([]byte); ok {
			if got, _ := p.Values[0].([]byte); string(got) != string(b) {
				t.Errorf("%s bound %v, want %v", filter, p.Values[0], want)
			}
			return
		}
		if p.Values[0] != want {
			t.Errorf("%s bound %#v, want %#v", filter, p.Values[0], want)
		}
	}
	check("col_boolean = true", true)
	check("col_boolean = 'FALSE'", false)
	check("col_int = 5", int32(5))
	check("col_bigint = 5", int64(5))
	check("col_float = 1.5", float32(1.5))
	check("col_float = 2", float32(2))
	check("col_double = 2", 2.0)
	check("col_decimal = 12.5", iceberg.DecimalFromInt64(1250, 2))
	check("col_decimal = '-0.01'", iceberg.DecimalFromInt64(-1, 2))
	check("col_decimal = 3", iceberg.DecimalFromInt64(300, 2))
	// 2024-01-01 is 1704067200 s after the epoch, 19723 days.
	check("col_date = '2024-01-01'", int32(19723))
	check("col_timestamp >= '2024-01-01'", int64(1704067200)*1_000_000)
	check("col_binary = 'cafe'", []byte{0xca, 0xfe})

	for filter, want := range map[string]string{
		"col_decimal < 123456789012":               "col_decimal is not null", // 13 digits at scale 2 > precision 10
		"col_float > 1e300":                        "col_float >= 'Infinity'", // beyond float32, below its infinity
		"col_float < -1e300":                       "col_float <= '-Infinity'",
		"col_float = 1e300":                        "false",
		"col_float = 'Infinity'":                   "col_float = 'Infinity'",
		"col_decimal = 1.234":                      "false", // more fraction digits than the scale: no value equals it
		"col_decimal < 1.234":                      "col_decimal <= '1.23'",
		"col_bigint = 1e30":                        "false", // beyond int64
		"col_string in ('b', 'a', 'b')":            "col_string in ('a', 'b')",
		"col_decimal >= 3":                         "col_decimal >= '3.00'",
		"col_date in ('2024-01-02', '2024-01-01')": "col_date in ('2024-01-01', '2024-01-02')",
		// Only float and double columns hold NaN (Java and pyiceberg bind so).
		"col_int is nan":                    "false",
		"col_string is not nan":             "true",
		"col_decimal is nan or col_int = 1": "col_int = 1",
		"not (col_date is not nan)":         "false",
	} {
		b, err := bindText(t, schema, filter, true)
		if err != nil {
			t.Errorf("Bind(%q): %v", filter, err)
		} else if b.String() != want {
			t.Errorf("Bind(%q) = %s, want %s", filter, b, want)
		}
	}

	for filter, message := range map[string]string{
		"col_double is nan and id=1": "",
		"col_int = 1.5":              "fraction",
		"col_int = 'abc'":            "invalid number",
		"col_date = 'yesterday'":     "invalid date",
		"col_boolean = 1":            "cannot compare a boolean column",
		"col_string = 1":             "cannot compare a string column",
		"col_int like 'a%'":          "needs a string column",
		"col_binary = 'xyz'":         "must be hex",
		"col_timestamp = true":       "cannot compare a timestamp column",
	} {
		_, err := bindText(t, schema, filter, true)
		if message == "" {
			if err != nil {
				t.Errorf("Bind(%q): %v", filter, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), message) {
			t.Errorf("Bind(%q) error = %v, want %q", filter, err, message)
		}
	}
}

func TestBindUUID(t *testing.T) {
	schema := fixtureSchema(t, "duckdb_uuid/metadata/00001-43fda1f4-1c96-4376-ad16-91beb71d0759.metadata.json")
	p := mustBindPredicate(t, schema, "uuid = '1571effb-facd-42a3-90e9-0af522e9b6c2'")
	want := [16]byte{0x15, 0x71, 0xef, 0xfb, 0xfa, 0xcd, 0x42, 0xa3, 0x90, 0xe9, 0x0a, 0xf5, 0x22, 0xe9, 0xb6, 0xc2}
	if p.FieldID != 1 || p.Values[0] != want {
		t.Errorf("uuid bound to %+v", p)
	}
	if _, err := bindText(t, schema, "uuid = 'not-a-uuid'", true); err == nil {
		t.Error("bad uuid bound")
	}
}

func TestBindNested(t *testing.T) {
	schema := fixtureSchema(t, "impala_iceberg_migrated_complex_test/metadata/v2.metadata.json")
	p := mustBindPredicate(t, schema, "struct_2_col.struct_3_col.float_col > 1")
	if p.FieldID != 14 || p.Values[0] != float32(1) {
		t.Errorf("nested float bound to %+v", p)
	}
	for filter, message := range map[string]string{
		"struct_1_col = 1":                       "primitive column",
		"struct_1_col.int_array_col.element = 1": "inside the list",
		"int_bigint_map_col.key = 1":             "inside the map",
	} {
		_, err := bindText(t, schema, filter, true)
		if err == nil || !strings.Contains(err.Error(), message) {
			t.Errorf("Bind(%q) error = %v, want %q", filter, err, message)
		}
	}
}
