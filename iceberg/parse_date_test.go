package iceberg

import (
	"testing"
	"time"
)

// ParseDate gives the day count of every year Python and Java print,
// including those further than a time.Duration (±292 years) from 1970.
func TestParseDateFarFromEpoch(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int32
	}{
		{"1970-01-01", 0}, {"1969-12-31", -1}, {"2024-12-25", 20082},
		{"0001-01-01", -719162}, {"9999-12-31", 2932896}, {"1677-09-21", -106752}, {"2262-04-12", 106752},
	} {
		got, err := ParseDate(c.s)
		if err != nil || got != c.want {
			t.Errorf("ParseDate(%q) = %d, %v; want %d", c.s, got, err, c.want)
		}
		// And back: the day's text is the one parsed.
		if back := time.Unix(int64(got)*86400, 0).UTC().Format("2006-01-02"); back != c.s {
			t.Errorf("day %d of %q formats as %q", got, c.s, back)
		}
	}
}
