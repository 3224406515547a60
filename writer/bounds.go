package writer

import (
	"unicode/utf8"

	"github.com/floedb/floe/iceberg"
)

// Truncated bounds, as Java's UnicodeUtil and BinaryUtil make them: a lower
// bound is cut to n code points (bytes); an upper bound is cut and then its
// last code point (byte) that can be incremented is incremented, dropping
// what follows, so it stays above every value it stands for. When nothing
// can be incremented there is no upper bound.

func truncateLowerString(s string, n int) string { return iceberg.TruncateString(s, n) }

func truncateUpperString(s string, n int) (string, bool) {
	prefix := iceberg.TruncateString(s, n)
	if len(prefix) == len(s) {
		return s, true
	}
	for end := len(prefix); end > 0; {
		r, size := utf8.DecodeLastRuneInString(prefix[:end])
		start := end - size
		if r == utf8.RuneError && size == 1 {
			// An invalid byte counts as one code point; bumping the byte
			// keeps the bound above anything sharing the prefix.
			if b := prefix[start]; b < 0xff {
				return prefix[:start] + string([]byte{b + 1}), true
			}
		} else if next, ok := nextRune(r); ok {
			return prefix[:start] + string(next), true
		}
		end = start
	}
	return "", false
}

// nextRune is the smallest valid code point above r, skipping surrogates.
func nextRune(r rune) (rune, bool) {
	r++
	if r >= 0xd800 && r <= 0xdfff {
		r = 0xe000
	}
	return r, r <= utf8.MaxRune
}

func truncateLowerBinary(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

func truncateUpperBinary(b []byte, n int) ([]byte, bool) {
	if len(b) <= n {
		return b, true
	}
	for i := n - 1; i >= 0; i-- {
		if b[i] < 0xff {
			out := append([]byte(nil), b[:i+1]...)
			out[i]++
			return out, true
		}
	}
	return nil, false
}
