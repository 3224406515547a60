package maintenance

import (
	"slices"
	"testing"
)

// rewrite_data_files takes the strategy, the sort order and the z-order
// columns.
func TestParseRewriteStrategy(t *testing.T) {
	opts, _, err := ParseRewriteDataFilesOptions([]byte(`{"strategy": "zorder", "zorder_columns": ["x", "y"]}`))
	if err != nil || opts.Strategy != "zorder" || !slices.Equal(opts.ZOrderColumns, []string{"x", "y"}) {
		t.Fatalf("%+v, %v", opts, err)
	}
	opts, _, err = ParseRewriteDataFilesOptions([]byte(`{"strategy": "sort", "sort_order_id": 2}`))
	if err != nil || opts.Strategy != "sort" || opts.SortOrderID == nil || *opts.SortOrderID != 2 {
		t.Fatalf("%+v, %v", opts, err)
	}
}
