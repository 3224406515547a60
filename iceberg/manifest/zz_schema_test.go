package manifest

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/twmb/avro/ocf"
)

func TestExploreSchemas(t *testing.T) {
	for _, ft := range fixtureTables(t) {
		lists, manifests := ft.avroFiles(t)
		for _, p := range append(lists, manifests...) {
			r, _ := ocf.NewReader(bytes.NewReader(readFile(t, p)))
			md := r.Metadata()
			v, err := strconv.Atoi(string(md["format-version"]))
			if err != nil {
				continue
			}
			got := string(md["avro.schema"])
			var ours string
			if _, ok := md["partition-spec-id"]; ok {
				id, _ := strconv.Atoi(string(md["partition-spec-id"]))
				_, pt := ft.spec(t, id)
				ours, _ = manifestEntrySchema(v, pt)
			} else {
				ours = manifestListSchema(v)
			}
			fmt.Println(got == ours, v, p)
		}
	}
}
