package iceberg

import (
	"math"
	"unsafe"
)

// Unboxed forms of the partition transforms' arithmetic, for writers that
// partition millions of rows: Apply takes and returns `any`, which costs an
// allocation per value. Each kernel here is the exact arithmetic Apply uses,
// so the two cannot drift apart.

// BucketHashLong is the spec's hash of an int, long, date, time or
// microsecond timestamp value (ints and dates widened to int64).
func BucketHashLong(v int64) int32 { return hashLong(v) }

// BucketHashNanos is the hash of a nanosecond timestamp, which hashes as
// its microsecond (floored) so both precisions agree.
func BucketHashNanos(v int64) int32 { return hashLong(floorDiv(v, 1000)) }

// BucketHashBytes is the hash of a binary, fixed or uuid value, or of a
// decimal's minimal big-endian bytes (DecimalMinimalBytes).
func BucketHashBytes(b []byte) int32 { return hashBytes(b) }

// BucketHashString is the hash of a string's UTF-8 bytes.
func BucketHashString(s string) int32 {
	return hashBytes(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// BucketIndex maps a hash to one of n buckets.
func BucketIndex(hash int32, n int) int32 {
	return int32(int64(hash&math.MaxInt32) % int64(n))
}

// DecimalMinimalBytes writes d's unscaled value into buf and returns its
// shortest big-endian two's complement form (what bucket hashes and what
// bounds store).
func DecimalMinimalBytes(buf *[16]byte, d Decimal) []byte { return minimalDecimalBytes(buf, d) }

// TimestampDays is the day (floored) of a timestamp in µs, or ns when nanos.
func TimestampDays(v int64, nanos bool) int64 {
	if nanos {
		return floorDiv(v, nanosPerDay)
	}
	return floorDiv(v, microsPerDay)
}

// TimestampHours is the hour (floored) of a timestamp in µs, or ns when
// nanos; ok is false when it is outside the int range the hour transform
// returns.
func TimestampHours(v int64, nanos bool) (hours int32, ok bool) {
	var h int64
	if nanos {
		h = floorDiv(v, nanosPerHour)
	} else {
		h = floorDiv(v, microsPerHour)
	}
	if h < math.MinInt32 || h > math.MaxInt32 {
		return 0, false
	}
	return int32(h), true
}

// YearOfDays is the year transform of a day since the epoch: years since 1970.
func YearOfDays(days int64) int32 {
	y, _, _ := civilFromDays(days)
	return int32(y - 1970)
}

// MonthOfDays is the month transform of a day since the epoch: months since
// 1970-01.
func MonthOfDays(days int64) int32 {
	y, m, _ := civilFromDays(days)
	return int32((y-1970)*12 + int64(m) - 1)
}

// TruncateInt64 is truncate[width] of an int or long value; ok is false when
// the result would fall below math.MinInt64 (callers narrowing to int check
// the int range themselves).
func TruncateInt64(v int64, width int) (r int64, ok bool) {
	m := positiveMod(v, int64(width))
	if v < math.MinInt64+m {
		return 0, false
	}
	return v - m, true
}

// TruncateString keeps at most n code points of s (truncate[n] of a string;
// invalid UTF-8 bytes count as one code point each). The result shares s's
// memory.
func TruncateString(s string, n int) string { return truncateCodePoints(s, n) }
