package table

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
)

// appendWithTokens appends one file per token, each under its token, and
// returns the snapshot each committed.
func appendWithTokens(t *testing.T, tbl *Table, files []manifest.DataFile, tokens []string) map[string]int64 {
	t.Helper()
	ids := map[string]int64{}
	for i, tok := range tokens {
		res, err := tbl.Append(context.Background(), []manifest.DataFile{files[i]}, CommitOptions{Token: tok})
		if err != nil {
			t.Fatal(err)
		}
		if res.TokenFound {
			t.Fatalf("token %q found before it was committed", tok)
		}
		ids[tok] = res.SnapshotID
	}
	return ids
}

func expireToOne(t *testing.T, tbl *Table) ExpireResult {
	t.Helper()
	now := time.Now().UnixMilli() + 1
	keep := 1
	res, err := tbl.ExpireSnapshots(context.Background(), &now, &keep, ExpireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A retried commit whose snapshot was expired since is still recognised:
// it commits nothing and names the snapshot that committed it.
func TestTokenOfExpiredSnapshotIsStillFound(t *testing.T) {
	ctx := context.Background()
	for _, version := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			tbl := createTable(t, version, nil, nil)
			files := intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 50), 10))
			tokens := []string{"T1", "T2", "T3", "T4", "T5"}
			ids := appendWithTokens(t, tbl, files, tokens)
			if res := expireToOne(t, tbl); len(res.ExpiredSnapshots) != 4 {
				t.Fatalf("expired %v, want 4 snapshots", res.ExpiredSnapshots)
			}
			fresh := reopen(t, tbl)
			if len(fresh.Metadata.Snapshots) != 1 {
				t.Fatalf("%d snapshots left, want 1", len(fresh.Metadata.Snapshots))
			}
			head := *fresh.Metadata.CurrentSnapshotID
			for i, tok := range tokens {
				res, err := fresh.Append(ctx, []manifest.DataFile{files[i]}, CommitOptions{Token: tok})
				if err != nil {
					t.Fatal(err)
				}
				if !res.TokenFound || res.SnapshotID != ids[tok] {
					t.Errorf("retry of %q: %+v, want the token found in snapshot %d", tok, res, ids[tok])
				}
			}
			if got := *reopen(t, tbl).Metadata.CurrentSnapshotID; got != head {
				t.Errorf("retries committed snapshot %d", got)
			}
			if got := len(livePaths(t, reopen(t, tbl))); got != 5 {
				t.Errorf("%d live files, want 5", got)
			}
		})
	}
}

// The tokens kept are bounded by floe.token-retention.count: the newest
// ones stay, older ones are forgotten, and 0 keeps none.
func TestExpiredTokensAreBoundedByRetentionCount(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, map[string]string{PropTokenRetentionCount: "3"})
	files := intoTable(t, tbl, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 70), 10))
	tokens := []string{"a", "b", "c", "d", "e", "f", "g"}
	appendWithTokens(t, tbl, files[:3], tokens[:3])
	expireToOne(t, tbl) // a, b expired
	appendWithTokens(t, tbl, files[3:], tokens[3:])
	expireToOne(t, tbl) // c, d, e, f expired; a and b are now the oldest
	fresh := reopen(t, tbl)
	for _, c := range []struct {
		token string
		found bool
	}{{"a", false}, {"b", false}, {"c", false}, {"d", true}, {"e", true}, {"f", true}, {"g", true}} {
		_, found, err := SnapshotWithToken(fresh.Metadata, c.token)
		if err != nil {
			t.Fatal(err)
		}
		if found != c.found {
			t.Errorf("token %q found %v, want %v (property %s)", c.token, found, c.found, fresh.Metadata.Properties[PropExpiredTokens])
		}
	}

	if err := fresh.SetProperties(ctx, map[string]string{PropTokenRetentionCount: "0"}, nil); err != nil {
		t.Fatal(err)
	}
	appendWithTokens(t, fresh, files[:1], []string{"h"})
	expireToOne(t, fresh)
	if v, ok := reopen(t, fresh).Metadata.Properties[PropExpiredTokens]; ok {
		t.Errorf("retention 0 kept %s", v)
	}
}

// The property is floe's: a caller cannot set it, and a damaged value is an
// error rather than a token silently forgotten.
func TestExpiredTokensPropertyIsGuarded(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	err := tbl.SetProperties(ctx, map[string]string{PropExpiredTokens: `[]`}, nil)
	if !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("setting %s: %v, want an invalid-argument error", PropExpiredTokens, err)
	}
	for _, bad := range []string{`{`, `[{"token":"x"}]`, `[{"token":"","snapshot-id":1,"timestamp-ms":1}]`, `[] []`, `[null]`, `{"x":1}`} {
		md := *tbl.Metadata
		md.Properties = map[string]string{PropExpiredTokens: bad}
		_, _, err := SnapshotWithToken(&md, "x")
		if !errors.Is(err, errkind.Corrupt) || !strings.Contains(err.Error(), PropExpiredTokens) {
			t.Errorf("%s=%s: %v, want a corrupt error naming the property", PropExpiredTokens, bad, err)
		}
	}
	md := *tbl.Metadata
	md.Properties = map[string]string{PropTokenRetentionCount: "-1"}
	if _, err := retainExpiredTokens(&md, nil); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("negative retention count: %v, want an invalid-argument error", err)
	}
}
