package action

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
)

// UpdateSchema.UnionByName takes the function UnionByName's result in as
// pending changes and rebuilds the schema from them: on random schemas
// (randomSchemas) the schema it builds is exactly the function's, with
// the same last-column-id.
func TestUpdateSchemaUnionIsTheFunctionsUnion(t *testing.T) {
	for seed := range uint64(1000) {
		g := &randomSchemas{rng: rand.New(rand.NewPCG(seed, 11))}
		cur := iceberg.NewSchema(0, g.tableFields(0, 1+g.rng.IntN(6)))
		last := g.nextID + g.rng.IntN(5)
		want := iceberg.NewSchema(0, g.wantedFields(cur.Fields, false))
		md := &metadata.Metadata{FormatVersion: 3, Location: testTable, Schemas: []*iceberg.Schema{cur}, LastColumnID: last,
			PartitionSpecs: []iceberg.PartitionSpec{{ID: 0}}, SortOrders: []iceberg.SortOrder{{OrderID: 0}}}
		expected, newLast, changed, err := UnionByName(cur, want, last, testTable)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		updates, err := new(UpdateSchema).UnionByName(want).Build(md)
		if err != nil {
			t.Fatalf("seed %d: %v\ntable  %v\nwanted %v", seed, err, cur, want)
		}
		if !changed {
			if len(updates) != 0 {
				t.Fatalf("seed %d: the union changes nothing, the update built %v", seed, updates)
			}
			continue
		}
		c := metadata.Edit(md)
		if err := c.Apply(updates...); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		got := c.Metadata().CurrentSchema()
		if a, b := schemaForm(t, got), schemaForm(t, expected); !bytes.Equal(a, b) || c.Metadata().LastColumnID != newLast {
			t.Fatalf("seed %d: built\n%s\nlast-column-id %d; the union gives\n%s\nlast-column-id %d", seed, a, c.Metadata().LastColumnID, b, newLast)
		}
	}
}

func schemaForm(t *testing.T, s *iceberg.Schema) []byte {
	raw, err := json.Marshal(iceberg.NewSchema(0, s.Fields, s.IdentifierFieldIDs...))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
