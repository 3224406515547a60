package expr

import (
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
)

func TestBindRefusesVariantColumns(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "v", Type: iceberg.VariantType{}},
		{ID: 3, Name: "s", Type: &iceberg.StructType{Fields: []iceberg.NestedField{{ID: 4, Name: "w", Type: iceberg.VariantType{}}}}},
	})
	for _, filter := range []string{"v = 1", "v IS NULL", "v IS NOT NULL", "s.w = 'a'", "v IN (1, 2)", "id = 1 AND v = 2"} {
		_, err := bindText(t, schema, filter, true)
		if err == nil || !strings.Contains(err.Error(), "variant") {
			t.Errorf("Bind(%q) error = %v, want a refusal naming the variant", filter, err)
		}
	}
	if _, err := bindText(t, schema, "id = 1", true); err != nil {
		t.Fatalf("a filter on the other column: %v", err)
	}
}
