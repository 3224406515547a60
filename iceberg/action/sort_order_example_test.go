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

// Sort Spark's table by day of event, newest first, then by action: nulls
// go last descending and first ascending unless asked otherwise.
func ExampleReplaceSortOrder() {
	fx, _ := fixtures.Get("impala_iceberg_partitioned")
	raw, _ := os.ReadFile(fx.Metadata)
	md, _ := metadata.Parse(raw)

	r := new(action.ReplaceSortOrder).
		Desc("event_time", iceberg.DayTransform{}, "").
		Asc("action", nil, action.NullsLast)
	updates, err := r.Build(md)
	if err != nil {
		panic(err)
	}
	for _, u := range updates {
		b, _ := json.Marshal(u)
		fmt.Println(string(b))
	}
	// Output:
	// {"action":"add-sort-order","sort-order":{"order-id":1,"fields":[{"source-id":4,"transform":"day","direction":"desc","null-order":"nulls-last"},{"source-id":3,"transform":"identity","direction":"asc","null-order":"nulls-last"}]}}
	// {"action":"set-default-sort-order","sort-order-id":-1}
}
