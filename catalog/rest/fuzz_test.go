package rest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/internal/redact"
)

// FuzzAnswers feeds arbitrary answers to the parsers of a catalog's
// answers: error bodies (never a panic, never a secret in the message)
// and LoadTable results (an error or a table, never a panic).
func FuzzAnswers(f *testing.F) {
	const secret = "fuzz-secret-value"
	f.Add(409, []byte(`{"error":{"message":"Requirement failed: fuzz-secret-value","type":"CommitFailedException","code":409}}`))
	f.Add(401, []byte(`{"error":"invalid_client","error_description":"bad fuzz-secret-value"}`))
	f.Add(503, []byte(`<html>Service Unavailable</html>`))
	f.Add(200, []byte(`{"metadata-location":"/t/metadata/v1.metadata.json","metadata":{"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","location":"/t","last-sequence-number":0,"last-updated-ms":1,"last-column-id":1,"current-schema-id":0,"schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]}],"default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,"default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}]},"config":{"s3.endpoint":"http://127.0.0.1:1"},"storage-credentials":[{"prefix":"/t","config":{"s3.access-key-id":"a","s3.secret-access-key":"fuzz-secret-value"}}]}`))
	f.Add(200, []byte(`{"namespaces":[["a"],["a","b"]],"next-page-token":"x"}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		sec := &redact.Secrets{}
		sec.Add(secret)
		c := &client{name: "REST catalog fuzz", secrets: sec}
		cat := &Catalog{name: "fuzz", c: c, sep: "\x1f"}
		err := c.responseError(request{method: "GET", path: "v1/x"}, status, body)
		if err == nil || strings.Contains(err.Error(), secret) {
			t.Fatalf("error %v", err)
		}
		var res loadResult
		if json.Unmarshal(body, &res) == nil {
			if tbl, err := cat.tableOf(catalog.Identifier{Namespace: []string{"ns"}, Name: "t"}, &res); err == nil && tbl.Metadata == nil {
				t.Fatal("a table without metadata")
			} else if err != nil && strings.Contains(err.Error(), secret) {
				t.Fatalf("error shows a secret: %v", err)
			}
		}
		var page listPage
		_ = json.Unmarshal(body, &page)
	})
}
