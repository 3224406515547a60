package testtable

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/parquet-go/parquet-go/format"
)

// decimalLimit is 10^precision - 1, the largest unscaled value.
func decimalLimit(precision int) *big.Int {
	n := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(precision)), nil)
	return n.Sub(n, big.NewInt(1))
}

// metricsMode is a parsed MetricsMode.
type metricsMode struct {
	counts, bounds bool
	truncate       int // 0: bounds are not truncated
}

func parseMetricsMode(s string) (metricsMode, error) {
	switch s {
	case "none":
		return metricsMode{}, nil
	case "counts":
		return metricsMode{counts: true}, nil
	case "full":
		return metricsMode{counts: true, bounds: true}, nil
	}
	if rest, ok := strings.CutPrefix(s, "truncate("); ok && strings.HasSuffix(rest, ")") {
		n, err := strconv.Atoi(strings.TrimSuffix(rest, ")"))
		if err == nil && n > 0 {
			return metricsMode{counts: true, bounds: true, truncate: n}, nil
		}
	}
	return metricsMode{}, fmt.Errorf("metrics mode %q: want none, counts, full or truncate(N)", s)
}

// fillMetrics sets the column metrics of df as Java's Parquet writer
// does for the mode: value counts (nulls and NaNs included), null counts,
// NaN counts for float and double, and lower and upper bounds of the
// non-null, non-NaN values in the binary single-value form, strings and
// binary truncated (an upper bound left out when no truncated one exists).
// Column sizes and split offsets come from the footer.
func fillMetrics(df *manifest.DataFile, o *Options, wf *writtenFile, mode metricsMode) error {
	df.SplitOffsets = nil
	for _, rg := range wf.footer.RowGroups {
		df.SplitOffsets = append(df.SplitOffsets, rowGroupStart(&rg))
	}
	if !mode.counts {
		return nil
	}
	var m manifest.MetricMaps
	m.ColumnSizes = map[int]int64{}
	m.ValueCounts = map[int]int64{}
	m.NullValueCounts = map[int]int64{}
	m.NaNValueCounts = map[int]int64{}
	if mode.bounds {
		m.LowerBounds = map[int][]byte{}
		m.UpperBounds = map[int][]byte{}
	}
	for _, rg := range wf.footer.RowGroups {
		for leaf, cc := range rg.Columns {
			for id, l := range wf.leafOf {
				if l == leaf {
					m.ColumnSizes[id] += cc.MetaData.TotalCompressedSize
				}
			}
		}
	}
	for c, f := range o.Schema.Fields {
		var nulls, nans int64
		var lower, upper any
		for _, r := range wf.rows {
			v := o.Rows[r][c]
			switch {
			case v == nil:
				nulls++
				continue
			case isNaN(v):
				nans++
				continue
			}
			if lower == nil || iceberg.Compare(f.Type, v, lower) < 0 {
				lower = v
			}
			if upper == nil || iceberg.Compare(f.Type, v, upper) > 0 {
				upper = v
			}
		}
		m.ValueCounts[f.ID] = int64(len(wf.rows))
		m.NullValueCounts[f.ID] = nulls
		switch f.Type.(type) {
		case iceberg.FloatType, iceberg.DoubleType:
			m.NaNValueCounts[f.ID] = nans
		}
		if !mode.bounds || lower == nil {
			continue
		}
		lo, hi, hasUpper := truncateBounds(lower, upper, mode.truncate)
		var err error
		if m.LowerBounds[f.ID], err = iceberg.ValueToBytes(f.Type, lo); err != nil {
			return fmt.Errorf("lower bound of %s: %w", f.Name, err)
		}
		if !hasUpper {
			continue
		}
		if m.UpperBounds[f.ID], err = iceberg.ValueToBytes(f.Type, hi); err != nil {
			return fmt.Errorf("upper bound of %s: %w", f.Name, err)
		}
	}
	df.Metrics = manifest.MetricsOf(m)
	return nil
}

func isNaN(v any) bool {
	switch f := v.(type) {
	case float32:
		return math.IsNaN(float64(f))
	case float64:
		return math.IsNaN(f)
	}
	return false
}

// truncateBounds truncates string and binary bounds to n characters or
// bytes: the lower bound is cut, the upper bound cut and its last
// character (byte) that can be incremented incremented. hasUpper is false
// when the upper bound cannot be truncated that way.
func truncateBounds(lower, upper any, n int) (lo, hi any, hasUpper bool) {
	if n == 0 {
		return lower, upper, true
	}
	switch l := lower.(type) {
	case string:
		u := upper.(string)
		lo = truncateString(l, n)
		if utf8.RuneCountInString(u) <= n {
			return lo, u, true
		}
		runes := []rune(u)[:n]
		for i := len(runes) - 1; i >= 0; i-- {
			next := runes[i] + 1
			if next == 0xD800 { // surrogates are not characters
				next = 0xE000
			}
			if next <= utf8.MaxRune {
				runes[i] = next
				return lo, string(runes[:i+1]), true
			}
		}
		return lo, nil, false
	case []byte:
		u := upper.([]byte)
		if len(l) > n {
			l = l[:n]
		}
		if len(u) <= n {
			return l, u, true
		}
		b := append([]byte(nil), u[:n]...)
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] < 0xff {
				b[i]++
				return l, b[:i+1], true
			}
		}
		return l, nil, false
	}
	return lower, upper, true
}

func truncateString(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// rowGroupStart is where a row group's first page begins: its first
// column's dictionary page when it has one.
func rowGroupStart(rg *format.RowGroup) int64 {
	md := &rg.Columns[0].MetaData
	if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < md.DataPageOffset {
		return md.DictionaryPageOffset
	}
	return md.DataPageOffset
}
