package maintenance

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
)

// rewrite_data_files takes output_spec_id and compacts into that spec:
// Spark's table whose spec evolved from unpartitioned to identity(j),
// every file rewritten back into spec 0, the rows unchanged. A negative
// id or a misspelt key is refused.
func TestRewriteDataFilesOutputSpecID(t *testing.T) {
	ctx := context.Background()
	tbl := rowstest.CopyFixture(t, "impala_test_default_part")
	before := rowstest.TableRows(t, tbl.MetadataLocation, table.Options{LocationMap: tbl.Locations.Prefixes()})
	req, err := Parse("rewrite_data_files", []byte(`{"output_spec_id": 0, "rewrite_all": true}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := req.Run(ctx, tbl, nil)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Rewritten int `json:"rewritten_data_files_count"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Rewritten != 5 {
		t.Fatalf("result %s (%v): want 5 files rewritten", out, err)
	}
	fresh := tbl // as the action left it
	rowstest.CompareRows(t, "after the rewrite", fresh.Metadata.CurrentSchema(), before,
		rowstest.TableRows(t, fresh.MetadataLocation, table.Options{LocationMap: fresh.Locations.Prefixes()}))
	for _, task := range rowstest.LiveFiles(t, fresh).Tasks {
		if task.File.SpecID != 0 || len(task.File.Partition) != 0 {
			t.Fatalf("%s is of spec %d, partition %v: want spec 0's", task.File.FilePath, task.File.SpecID, task.File.Partition)
		}
	}
	for in, want := range map[string]string{
		`{"output_spec_id": -1}`: "output_spec_id -1 is negative",
		`{"output_spec": 1}`:     `did you mean "output_spec_id"`,
	} {
		if _, err := Parse("rewrite_data_files", []byte(in)); !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want InvalidArgument saying %q", in, err, want)
		}
	}
}
