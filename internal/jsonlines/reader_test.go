package jsonlines

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// rowSchema: id long, name string, info struct<city string>,
// items list<struct<qty long>>, attrs map<string, struct<v long>>.
func rowSchema() *arrow.Schema {
	item := arrow.StructOf(arrow.Field{Name: "qty", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "info", Type: arrow.StructOf(arrow.Field{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "items", Type: arrow.ListOf(item), Nullable: true},
		{Name: "attrs", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.StructOf(arrow.Field{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true})), Nullable: true},
	}, nil)
}

// readAll reads every batch of input and returns the reader's error.
func readAll(t *testing.T, input string, batch int) error {
	t.Helper()
	r := NewReader(strings.NewReader(input), rowSchema(), batch, nil)
	defer r.Release()
	for r.Next() {
	}
	return r.Err()
}

func TestReaderRefusesUnknownKeysNamingTheClosest(t *testing.T) {
	for _, c := range []struct {
		line   string
		column string
		want   string
	}{
		{`{"id": 1, "nmae": "typo"}`, "nmae", "name"},
		{`{"id": 1, "info": {"citty": "x"}}`, "info.citty", "info.city"},
		{`{"id": 1, "items": [{"qty": 1}, {"qyt": 2}]}`, "items.qyt", "items.qty"},
		{`{"id": 1, "attrs": [{"key": "a", "value": {"w": 1}}]}`, "attrs.value.w", "attrs.value.v"},
	} {
		err := readAll(t, "{\"id\": 0}\n"+c.line+"\n", 10)
		var unknown *iceberg.UnknownColumnError
		if !errors.As(err, &unknown) || !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("%s: error %v, want an unknown column", c.line, err)
			continue
		}
		if unknown.Column != c.column || unknown.Closest != c.want {
			t.Errorf("%s: unknown %q closest %q, want %q and %q", c.line, unknown.Column, unknown.Closest, c.column, c.want)
		}
		if !strings.HasPrefix(err.Error(), "line 2: ") {
			t.Errorf("%s: error %q does not name line 2", c.line, err)
		}
	}
}

func TestReaderNamesLineColumnAndValue(t *testing.T) {
	for _, c := range []struct {
		line string
		want string
	}{
		{`{"id": "three"}`, `line 3, column "id": "three" is not a long`},
		{`{"id": 1, "info": {"city": 5}}`, `line 3, column "info.city": 5 is not a string`},
		{`{"id": 1, "items": [{"qty": 1}, {"qty": true}]}`, `line 3, column "items[1].qty": true is not a long`},
		{`{"id": 1, "info": 7}`, `line 3, column "info": 7 is not a struct`},
	} {
		err := readAll(t, "{\"id\": 1}\n\n"+c.line+"\n", 10)
		if err == nil || !errors.Is(err, errkind.InvalidArgument) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.line, err, c.want)
		}
	}
	err := readAll(t, "{\"id\": 1}\n[1]\n", 10)
	if err == nil || err.Error() != "line 2 is not one JSON object" {
		t.Errorf("array line: %v", err)
	}
}

// The reader hands out a batch as soon as it has its rows, before the
// rest of the input exists: the input is never held whole.
func TestReaderStreams(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	r := NewReader(pr, rowSchema(), 2, nil)
	defer r.Release()
	firstOut := make(chan struct{})
	go func() {
		defer pw.Close()
		fmt.Fprint(pw, "{\"id\": 0}\n{\"id\": 1}\n")
		<-firstOut // the rest of the input exists only once a batch is out
		fmt.Fprint(pw, "{\"id\": 2}\n")
	}()
	got := make(chan bool)
	go func() { got <- r.Next() }()
	select {
	case ok := <-got:
		if !ok || r.RecordBatch().NumRows() != 2 {
			t.Fatalf("first batch: %v", r.Err())
		}
	case <-time.After(10 * time.Second):
		close(firstOut)
		t.Fatal("no batch before the whole input was there")
	}
	close(firstOut)
	if !r.Next() || r.RecordBatch().NumRows() != 1 || r.Next() || r.Err() != nil {
		t.Fatalf("after the first batch: err %v", r.Err())
	}
}

func TestReaderReadsValues(t *testing.T) {
	input := "{\"name\": \"a\", \"id\": 1, \"items\": [{\"qty\": 2}], \"attrs\": [{\"key\": \"k\", \"value\": {\"v\": 3}}]}\n   \n{\"id\": null}\n{}"
	r := NewReader(strings.NewReader(input), rowSchema(), 2, nil)
	defer r.Release()
	var got []string
	for r.Next() {
		s := array.RecordToStructArray(r.RecordBatch())
		b, err := s.MarshalJSON()
		s.Release()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	if len(got) != 2 || !strings.Contains(got[0], `"qty":2`) || !strings.Contains(got[0], `"v":3`) || !strings.Contains(got[0], `"name":"a"`) {
		t.Errorf("got %q", got)
	}
}
