package parquet

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
)

// INT96 timestamps (Hive, Impala, old Spark) are 8 bytes of nanoseconds
// within the day followed by 4 bytes of Julian day number, little-endian.

const (
	julianDayOfUnixEpoch = 2440588
	nanosPerDay          = 86400 * 1e9
)

// int96ToNanos returns nanoseconds since the Unix epoch. Out-of-range days
// wrap like the writers' own arithmetic does.
func int96ToNanos(b []byte) int64 {
	nanos := int64(binary.LittleEndian.Uint64(b[0:8]))
	day := int64(binary.LittleEndian.Uint32(b[8:12]))
	return (day-julianDayOfUnixEpoch)*nanosPerDay + nanos
}

func int96ToTimestamp(unit arrow.TimeUnit) func(dst, src []byte, n int) {
	div := 1e9 / unitsPerSecond(unit)
	return func(dst, src []byte, n int) {
		for i := range n {
			v := int96ToNanos(src[i*12 : i*12+12])
			binary.LittleEndian.PutUint64(dst[i*8:], uint64(FloorDiv(v, div)))
		}
	}
}
