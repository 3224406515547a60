package writer

import (
	"fmt"
	"strconv"
	"strings"
)

// MetricsKind is a column's metrics mode (write.metadata.metrics.*).
type MetricsKind uint8

const (
	// MetricsUnset is the zero value: the column takes the default mode.
	MetricsUnset MetricsKind = iota
	// MetricsNone records nothing for the column.
	MetricsNone
	// MetricsCounts records value, null and NaN counts.
	MetricsCounts
	// MetricsTruncate records counts and bounds, strings cut to Length
	// code points and binary to Length bytes.
	MetricsTruncate
	// MetricsFull records counts and whole bounds.
	MetricsFull
)

// MetricsMode says which metrics a column gets in its manifest entry.
type MetricsMode struct {
	Kind   MetricsKind
	Length int // for MetricsTruncate
}

// DefaultMetricsMode is Java's default, truncate(16).
var DefaultMetricsMode = MetricsMode{Kind: MetricsTruncate, Length: 16}

// ParseMetricsMode reads a mode as table properties spell it: none, counts,
// full or truncate(N) with N > 0, in any case.
func ParseMetricsMode(s string) (MetricsMode, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "none":
		return MetricsMode{Kind: MetricsNone}, nil
	case "counts":
		return MetricsMode{Kind: MetricsCounts}, nil
	case "full":
		return MetricsMode{Kind: MetricsFull}, nil
	}
	if rest, ok := strings.CutPrefix(t, "truncate("); ok {
		if num, ok := strings.CutSuffix(rest, ")"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(num))
			if err == nil && n > 0 {
				return MetricsMode{Kind: MetricsTruncate, Length: n}, nil
			}
		}
	}
	return MetricsMode{}, fmt.Errorf("metrics mode %q: want none, counts, full or truncate(N) with N > 0", s)
}

// resolved replaces an unset mode with def (itself never unset).
func (m MetricsMode) resolved(def MetricsMode) MetricsMode {
	if m.Kind == MetricsUnset {
		if def.Kind == MetricsUnset {
			return DefaultMetricsMode
		}
		return def
	}
	return m
}

func (m MetricsMode) counts() bool { return m.Kind >= MetricsCounts }
func (m MetricsMode) bounds() bool { return m.Kind >= MetricsTruncate }

// truncateLength is the bound length for strings and binary; 0 is whole.
func (m MetricsMode) truncateLength() int {
	if m.Kind == MetricsTruncate {
		return m.Length
	}
	return 0
}

func (m MetricsMode) String() string {
	switch m.Kind {
	case MetricsUnset:
		return "default"
	case MetricsNone:
		return "none"
	case MetricsCounts:
		return "counts"
	case MetricsFull:
		return "full"
	}
	return fmt.Sprintf("truncate(%d)", m.Length)
}
