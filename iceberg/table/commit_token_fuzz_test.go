package table

import (
	"errors"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/metadata"
)

// FuzzExpiredTokens: any value another program left in floe.expired-tokens
// is either read as tokens that expiry writes back unchanged in meaning, or
// refused as corrupt; never a panic, never a token silently forgotten.
func FuzzExpiredTokens(f *testing.F) {
	f.Add(`[{"token":"a","snapshot-id":1,"timestamp-ms":2}]`)
	f.Add(`[]`)
	f.Add(`[{"token":"a","snapshot-id":1}]`)
	f.Add(`[null]`)
	f.Add(`[{"token":"a","snapshot-id":1,"timestamp-ms":2}] x`)
	f.Fuzz(func(t *testing.T, v string) {
		md := &metadata.Metadata{Properties: map[string]string{PropExpiredTokens: v}}
		kept, err := expiredTokens(md)
		if err != nil {
			if !errors.Is(err, errkind.Corrupt) {
				t.Fatalf("%q: error of the wrong kind: %v", v, err)
			}
			if _, _, err2 := SnapshotWithToken(md, "t"); err2 == nil {
				t.Fatalf("%q: the property is refused but a token lookup ignored it", v)
			}
			return
		}
		for _, e := range kept {
			if _, found, err := SnapshotWithToken(md, e.Token); err != nil || !found {
				t.Fatalf("%q: token %q read but not found (%v)", v, e.Token, err)
			}
		}
		// What expiry writes back keeps every token it read.
		u, err := retainExpiredTokens(md, nil)
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		if set, ok := u.(metadata.SetProperties); ok {
			again, err := expiredTokens(&metadata.Metadata{Properties: set.Updates})
			if err != nil || len(again) != min(len(kept), defaultTokenRetentionCount) {
				t.Fatalf("%q: written back as %q (%v)", v, set.Updates[PropExpiredTokens], err)
			}
		}
	})
}
