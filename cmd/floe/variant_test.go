package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/floedb/floe/internal/varianttest"
)

// variantLines scans loc as JSON lines and returns each row's v as raw
// JSON text, by id.
func variantLines(t *testing.T, loc string) map[int]string {
	t.Helper()
	out := mustRun(t, "scan", loc)
	got := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var row struct {
			ID int             `json:"id"`
			V  json.RawMessage `json:"v"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got[row.ID] = string(row.V)
	}
	return got
}

// A variant prints as the JSON of its value, Spark's to_json style, from
// unshredded and shredded files alike.
func TestScanPrintsVariantsAsJSON(t *testing.T) {
	values, err := varianttest.Values()
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{
		0:  `{"a":1,"b":"x"}`,
		1:  `{"a":"not an int","b":"y","extra":true}`,
		2:  `{"b":"only b"}`,
		3:  `42`,
		4:  `"a string that is longer than a short string can hold, past sixty-four bytes"`,
		5:  `null`,
		6:  `null`,
		7:  `[1,2,3]`,
		8:  `{"a":5,"arr":[1,"two",3.5],"nested":{"x":1.5,"y":[true,false,null]}}`,
		9:  `{}`,
		10: `[]`,
		11: `[{"a":1},{"b":2}]`,
		12: `-9223372036854775808`,
		13: `3.25`,
		14: `true`,
		15: `{"a":null,"b":null}`,
		16: `-123.45`,
		17: `12345678.9012`,
		18: `"2022-01-08"`,
		19: `"2023-11-14 22:13:20.123456+00:00"`,
		20: `"2023-11-14 22:13:20.123456"`,
		21: `"2023-11-14 22:13:20.123456789+00:00"`,
		22: `"01:02:03.000001"`,
		23: `"AAEC/w=="`,
		24: `"f81d4fae-7dec-11d0-a765-00a0c91e6bf6"`,
		25: `1.5`,
		26: `{"a":7,"d":3.14,"t":"1970-01-01 00:00:00.000001+00:00","u":"00112233-4455-6677-8899-aabbccddeeff"}`,
	}
	if len(want) != len(values) {
		t.Fatalf("the test knows %d values, varianttest has %d", len(want), len(values))
	}
	for _, layout := range []string{"unshredded", "object"} {
		loc := filepath.Join(t.TempDir(), "t")
		if _, err := varianttest.Table(context.Background(), loc, values, layout); err != nil {
			t.Fatal(err)
		}
		got := variantLines(t, loc)
		for id, w := range want {
			if got[id] != w {
				t.Errorf("%s row %d: v = %s, want %s", layout, id, got[id], w)
			}
		}
	}
}

// floe append of JSON lines into a table with a variant column stores
// each row's JSON value as a variant, which scans back as that JSON.
func TestAppendJSONLIntoVariantColumn(t *testing.T) {
	dir := t.TempDir()
	loc := filepath.Join(dir, "t")
	if _, err := varianttest.Table(context.Background(), loc, nil); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "rows.jsonl")
	data := `{"id": 1, "v": {"k": [1, 2.5, "s"], "n": null}}
{"id": 2, "v": "text"}
{"id": 3, "v": null}
{"id": 4}
{"id": 5, "v": 12}
`
	if err := os.WriteFile(in, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "append", loc, in)
	got := variantLines(t, loc)
	want := map[int]string{1: `{"k":[1,2.5,"s"],"n":null}`, 2: `"text"`, 3: `null`, 4: `null`, 5: `12`}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("row %d: v = %s, want %s", id, got[id], w)
		}
	}
}

// floe append of a Parquet file another engine wrote with a shredded
// variant column stores the variants (unshredded) in the table's column.
func TestAppendParquetWithShreddedVariant(t *testing.T) {
	dir := t.TempDir()
	loc := filepath.Join(dir, "t")
	if _, err := varianttest.Table(context.Background(), loc, nil); err != nil {
		t.Fatal(err)
	}
	values, err := varianttest.Values()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := varianttest.Record(varianttest.Shreddings()["object"], values[:4])
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.parquet")
	err = varianttest.WriteParquet(in, rec, 100)
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, "append", loc, in)
	got := variantLines(t, loc)
	want := map[int]string{0: `{"a":1,"b":"x"}`, 1: `{"a":"not an int","b":"y","extra":true}`, 2: `{"b":"only b"}`, 3: `42`}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("row %d: v = %s, want %s", id, got[id], w)
		}
	}
}

// A variant decimal whose scale its width cannot hold is corrupt data: an
// error, where arrow-go's decimal128 formatting panicked (FuzzVariant's
// finding, seen through the test oracle; the CLI renders the same way).
func TestVariantDecimalWithImpossibleScale(t *testing.T) {
	meta := []byte{0x01, 0x00, 0x00} // version 1, an empty dictionary
	for _, c := range []struct {
		typeID byte
		width  int
		scale  byte
		ok     bool
	}{{8, 4, 9, true}, {8, 4, 10, false}, {9, 8, 18, true}, {9, 8, 19, false}, {10, 16, 38, true}, {10, 16, 186, false}} {
		value := append([]byte{c.typeID << 2, c.scale}, make([]byte, c.width)...)
		value[2] = 7
		v, err := variant.New(meta, value)
		if err != nil {
			t.Fatal(err)
		}
		out, err := appendVariant(nil, v, 0)
		if c.ok != (err == nil) {
			t.Errorf("decimal of %d bytes, scale %d: %q, %v", c.width, c.scale, out, err)
		}
	}
}
