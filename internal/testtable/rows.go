package testtable

import (
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/floedb/floe/iceberg"
)

// Strings is the vocabulary of the standard table's s column: shared
// prefixes, the empty string, the LIKE metacharacters % and \, a quote,
// non-ASCII text (2-, 3- and 4-byte UTF-8), and values longer than the
// 16 characters Java truncates bounds to, some of which differ only after
// that point or cannot have a truncated upper bound at all.
var Strings = []string{
	"", "a", "ab", "abc", "abd", "abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopZ",
	"abcdefghijklmnopqrstuvwxyz~", "b", "ba", "bz", "c", "cab", "o'brien", "50%off",
	"50% off", `back\slash`, "Zebra", "zzz", "é", "éclair", "日本語", "日本", "😀smile",
	strings.Repeat("ÿ", 20), strings.Repeat("\U0010FFFF", 17), "m" + strings.Repeat("\U0010FFFF", 17),
}

var (
	baseDay       = int32(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Unix() / 86400)
	baseTimestamp = time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
)

// RandomRows generates n rows of Schema from seed: the same seed gives
// the same rows. Row r has id r; l ascends with r (apart from nulls), so
// files, row groups and pages hold narrow ranges of it; the other columns
// are random, about a tenth of them null.
func RandomRows(seed uint64, n int) [][]any {
	r := rand.New(rand.NewPCG(seed, 0x7e57))
	rows := make([][]any, n)
	l := int64(-5_000_000_000_000)
	nullable := func(p float64, v func() any) any {
		if r.Float64() < p {
			return nil
		}
		return v()
	}
	for i := range rows {
		l += r.Int64N(2_000_000_000)
		cur := l
		rows[i] = []any{
			int64(i),
			nullable(0.1, func() any { return randomInt(r) }),
			nullable(0.05, func() any { return cur }),
			nullable(0.1, func() any { return randomDouble(r) }),
			nullable(0.1, func() any { return Strings[r.IntN(len(Strings))] }),
			nullable(0.1, func() any { return randomDate(r) }),
			nullable(0.1, func() any { return randomTimestamp(r) }),
			nullable(0.1, func() any { return randomTimestamp(r) + 3_600_000_000*int64(r.IntN(5)) }),
			nullable(0.1, func() any { return randomDecimal(r) }),
			nullable(0.1, func() any { return randomWideDecimal(r) }),
			nullable(0.1, func() any { return r.IntN(2) == 0 }),
		}
	}
	return rows
}

// randomInt is mostly small (many duplicates, so equality matches), with
// the type's extremes now and then.
func randomInt(r *rand.Rand) int32 {
	switch r.IntN(100) {
	case 0:
		return math.MinInt32
	case 1:
		return math.MaxInt32
	}
	return int32(r.IntN(41) - 20)
}

// randomDouble is a multiple of 0.25 in [-1000, 1000], or one of the
// values comparisons treat specially.
func randomDouble(r *rand.Rand) float64 {
	switch r.IntN(50) {
	case 0, 1:
		return math.NaN()
	case 2:
		return math.Copysign(0, -1)
	case 3:
		return 0
	case 4:
		return math.Inf(1)
	case 5:
		return math.Inf(-1)
	}
	return float64(r.IntN(8001)-4000) / 4
}

// randomDate is within 40 days of 2024-01-01, or before 1970.
func randomDate(r *rand.Rand) int32 {
	switch r.IntN(40) {
	case 0:
		return -1 // 1969-12-31
	case 1:
		return -25567 // 1900-01-01
	}
	return baseDay + int32(r.IntN(81)-40)
}

// randomTimestamp is within four days from 2024-03-01, to the
// microsecond, or just before the epoch.
func randomTimestamp(r *rand.Rand) int64 {
	if r.IntN(40) == 0 {
		return -1 - r.Int64N(86_400_000_000)
	}
	return baseTimestamp + r.Int64N(4*86_400_000_000)
}

// randomDecimal spans -1000.00 to 1000.00, with the extremes of
// decimal(9, 2) now and then.
func randomDecimal(r *rand.Rand) iceberg.Decimal {
	switch r.IntN(100) {
	case 0:
		return iceberg.DecimalFromInt64(999_999_999, 2)
	case 1:
		return iceberg.DecimalFromInt64(-999_999_999, 2)
	}
	return iceberg.DecimalFromInt64(r.Int64N(200_001)-100_000, 2)
}

// randomWideDecimal is non-negative (see Options on why), up to beyond 64
// bits of unscaled value.
func randomWideDecimal(r *rand.Rand) iceberg.Decimal {
	if r.IntN(10) == 0 {
		// 10^23 and more: needs more than 64 bits.
		return iceberg.Decimal{Hi: int64(r.IntN(1000) + 5421), Lo: r.Uint64(), Scale: 4}
	}
	return iceberg.DecimalFromInt64(r.Int64N(10_000_000), 4)
}
