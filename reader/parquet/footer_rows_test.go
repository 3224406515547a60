package parquet

import (
	"bytes"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/internal/footertest"
	"github.com/parquet-go/parquet-go/format"
)

// TestFooterRowCountsMustAgree: a row group whose footer lost its num_rows
// (absent or rewritten) used to read as 0 rows, so a scan returned fewer
// rows than the file holds and said nothing. What the footer says is
// cross-checked when the file is opened: the row groups' num_rows sum to
// the file's, and a column that repeats nothing holds exactly num_rows
// values in each row group. Here the lineitem fixture (parquet-mr, 60175
// rows in one row group) has its footer rewritten.
func TestFooterRowCountsMustAgree(t *testing.T) {
	data := lineitemFile(t)
	clean, err := footertest.Rewrite(data, func(*format.FileMetaData) {})
	if err != nil {
		t.Fatal(err)
	}
	if rows, err := readAll(t, openBytes(t, clean)); err != nil || rows != 60175 {
		t.Fatalf("the footer re-encoded unchanged: %d rows, %v", rows, err)
	}
	for _, c := range []struct {
		name string
		edit func(md *format.FileMetaData)
		want string
	}{
		{"row group num_rows zeroed", func(md *format.FileMetaData) { md.RowGroups[0].NumRows = 0 },
			"row group 0 has 0 rows (num_rows) but column l_orderkey holds 60175 values"},
		{"file num_rows off by one", func(md *format.FileMetaData) { md.NumRows++ },
			"the row groups' num_rows sum to 60175 but the file's num_rows is 60176"},
		{"both zeroed alike", func(md *format.FileMetaData) { md.RowGroups[0].NumRows, md.NumRows = 0, 0 },
			"row group 0 has 0 rows (num_rows) but column l_orderkey holds 60175 values"},
		{"both lowered alike", func(md *format.FileMetaData) { md.RowGroups[0].NumRows, md.NumRows = 60000, 60000 },
			"row group 0 has 60000 rows (num_rows) but column l_orderkey holds 60175 values"},
	} {
		bad, err := footertest.Rewrite(data, c.edit)
		if err != nil {
			t.Fatal(err)
		}
		f, err := OpenFile(bytes.NewReader(bad), int64(len(bad)), nil)
		if err == nil {
			rows, rerr := readAll(t, f)
			t.Errorf("%s: opened, and read %d rows (%v)", c.name, rows, rerr)
			continue
		}
		if errkind.Of(err) != errkind.Corrupt || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a corrupt error saying %q", c.name, err, c.want)
		}
	}
}
