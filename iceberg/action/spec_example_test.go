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

// Move Spark's v1 table from hourly to daily partitions and bucket it by
// id: on v1 the hour field stays, void, so field ids keep their
// positions. The updates are what a REST catalog is sent; a transaction
// (table.Transaction's Add, or Table.Apply) commits them.
func ExampleUpdateSpec() {
	fx, _ := fixtures.Get("impala_iceberg_partitioned")
	raw, _ := os.ReadFile(fx.Metadata)
	md, _ := metadata.Parse(raw)

	u := new(action.UpdateSpec).
		RemoveField("event_time_hour").
		AddField("event_time", iceberg.DayTransform{}, "").
		AddField("id", iceberg.BucketTransform{N: 16}, "")
	updates, err := u.Build(md)
	if err != nil {
		panic(err)
	}
	for _, u := range updates {
		b, _ := json.Marshal(u)
		fmt.Println(string(b))
	}
	// Output:
	// {"action":"add-spec","spec":{"spec-id":1,"fields":[{"source-id":4,"field-id":1000,"name":"event_time_hour","transform":"void"},{"source-id":3,"field-id":1001,"name":"action","transform":"identity"},{"source-id":4,"field-id":1002,"name":"event_time_day","transform":"day"},{"source-id":1,"field-id":1003,"name":"id_bucket_16","transform":"bucket[16]"}]}}
	// {"action":"set-default-spec","spec-id":-1}
}
