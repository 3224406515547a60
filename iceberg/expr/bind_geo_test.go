package expr

import (
	"errors"
	"testing"

	"github.com/floedb/floe/iceberg"
)

func TestBindRefusesGeoComparisons(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.IntType{}},
		{ID: 2, Name: "g", Type: iceberg.GeometryType{}},
		{ID: 3, Name: "h", Type: iceberg.GeographyType{CRS: "EPSG:4326", Algorithm: iceberg.EdgeKarney}},
	})
	for _, filter := range []string{"g = 'POINT (1 2)'", "h > 'a'", "g in ('a', 'b')", "id = 1 and g != 'x'", "h like 'x%'"} {
		if _, err := bindText(t, schema, filter, true); !errors.Is(err, ErrGeoPredicate) {
			t.Errorf("%s: error %v, want ErrGeoPredicate", filter, err)
		}
	}
	for _, filter := range []string{"g is null", "h is not null"} {
		if _, err := bindText(t, schema, filter, true); err != nil {
			t.Errorf("%s: %v", filter, err)
		}
	}
}
