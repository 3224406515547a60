package action_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/internal/fixtures"
)

// Evolve Spark's v2 table (id int, name string, bir date; partitioned by
// name): add a column after id, rename the partition source (sources are
// ids, so the spec follows) and widen id. The updates are what a REST
// catalog is sent; a transaction (table.Transaction's Add, or
// Table.Apply) commits them, building them again on a newer version when
// another writer committed first.
func ExampleUpdateSchema() {
	fx, _ := fixtures.Get("duckdb_equality_deletes/mytable_partitioned")
	raw, _ := os.ReadFile(fx.Metadata)
	md, _ := metadata.Parse(raw)

	u := new(action.UpdateSchema).
		AddColumn("email", iceberg.StringType{}, action.ColumnOptions{Doc: "contact"}).
		MoveAfter("email", "id").
		RenameColumn("name", "full_name").
		UpdateColumn("id", iceberg.LongType{})
	updates, err := u.Build(md)
	if err != nil {
		panic(err)
	}
	for _, u := range updates {
		b, _ := json.Marshal(u)
		fmt.Println(string(b))
	}
	// Deleting the partition source is refused, naming it.
	_, err = new(action.UpdateSchema).DeleteColumn("name").Build(md)
	fmt.Println(err)
	// Output:
	// {"action":"add-schema","schema":{"type":"struct","schema-id":1,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":4,"name":"email","required":false,"type":"string","doc":"contact"},{"id":2,"name":"full_name","required":false,"type":"string"},{"id":3,"name":"bir","required":false,"type":"date"}]}}
	// {"action":"set-current-schema","schema-id":-1}
	// table "data/persistent/equality_deletes/warehouse/mydb/mytable_partitioned": column "name": cannot delete the column: it is the source of partition field "name" (identity) of spec 0
}
