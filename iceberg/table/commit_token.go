package table

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"sort"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/metadata"
)

// A commit token is recorded in its snapshot's summary (SummaryToken). So
// that expiring that snapshot does not make a retry of its step commit
// again, expiry moves the tokens of the snapshots it removes into a table
// property, in the same metadata commit as the removal: a property travels
// with the metadata through every catalog (a path table's metadata file,
// the SQL catalog's, a REST server's set-properties update).
const (
	// PropExpiredTokens holds the tokens of expired snapshots, oldest
	// first, as compact JSON: [{"token":…,"snapshot-id":…,"timestamp-ms":…}]
	// (the snapshot that committed the token and when). floe writes it; a
	// caller cannot set it.
	PropExpiredTokens = "floe.expired-tokens"
	// PropTokenRetentionCount bounds PropExpiredTokens: the newest this many
	// tokens of expired snapshots (by commit time) stay recognised; 0
	// forgets a token when its snapshot is expired.
	PropTokenRetentionCount = "floe.token-retention.count"

	defaultTokenRetentionCount = 1000
)

// expiredToken is one entry of PropExpiredTokens.
type expiredToken struct {
	Token       string `json:"token"`
	SnapshotID  int64  `json:"snapshot-id"`
	TimestampMs int64  `json:"timestamp-ms"`
}

// SnapshotWithToken finds the snapshot that committed a token: the commit a
// retried step already made. The table's snapshots are searched first, then
// the tokens expiry kept (PropExpiredTokens), so the id returned may name a
// snapshot the table no longer has. A damaged PropExpiredTokens is an error:
// guessing would risk committing a step twice.
func SnapshotWithToken(md *metadata.Metadata, token string) (int64, bool, error) {
	if token == "" {
		return 0, false, nil
	}
	for i := range md.Snapshots {
		if md.Snapshots[i].Summary[SummaryToken] == token {
			return md.Snapshots[i].SnapshotID, true, nil
		}
	}
	kept, err := expiredTokens(md)
	if err != nil {
		return 0, false, err
	}
	for _, e := range kept {
		if e.Token == token {
			return e.SnapshotID, true, nil
		}
	}
	return 0, false, nil
}

// expiredTokens parses PropExpiredTokens (none when it is not set).
func expiredTokens(md *metadata.Metadata) ([]expiredToken, error) {
	v, ok := md.Properties[PropExpiredTokens]
	if !ok {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(v)))
	dec.DisallowUnknownFields()
	var out []*struct {
		Token       *string `json:"token"`
		SnapshotID  *int64  `json:"snapshot-id"`
		TimestampMs *int64  `json:"timestamp-ms"`
	}
	err := dec.Decode(&out)
	if err == nil && dec.More() {
		err = errors.New("data after the list")
	}
	if err != nil {
		return nil, errkind.Errorf(errkind.Corrupt, "table property %s is not a JSON list of tokens: %v", PropExpiredTokens, err)
	}
	tokens := make([]expiredToken, 0, len(out))
	for i, e := range out {
		if e == nil || e.Token == nil || *e.Token == "" || e.SnapshotID == nil || e.TimestampMs == nil {
			return nil, errkind.Errorf(errkind.Corrupt, "table property %s: entry %d lacks a token, snapshot-id or timestamp-ms", PropExpiredTokens, i)
		}
		tokens = append(tokens, expiredToken{Token: *e.Token, SnapshotID: *e.SnapshotID, TimestampMs: *e.TimestampMs})
	}
	return tokens, nil
}

// retainExpiredTokens is the update that records the tokens of the
// snapshots expiry removes beside those already kept, bounded by
// PropTokenRetentionCount (nil when nothing changes).
func retainExpiredTokens(md *metadata.Metadata, expired []metadata.Snapshot) (metadata.Update, error) {
	limit, err := md.PropertyInt(PropTokenRetentionCount, defaultTokenRetentionCount)
	if err != nil {
		return nil, errkind.Wrap(errkind.InvalidArgument, err)
	}
	if limit < 0 {
		return nil, errkind.Errorf(errkind.InvalidArgument, "table property %s=%d: a count of tokens cannot be negative", PropTokenRetentionCount, limit)
	}
	kept, err := expiredTokens(md)
	if err != nil {
		return nil, err
	}
	all := slices.Clone(kept)
	seen := map[string]bool{}
	for _, e := range kept {
		seen[e.Token] = true
	}
	for _, s := range expired {
		if tok := s.Summary[SummaryToken]; tok != "" && !seen[tok] {
			seen[tok] = true
			all = append(all, expiredToken{Token: tok, SnapshotID: s.SnapshotID, TimestampMs: s.TimestampMs})
		}
	}
	// Oldest first; entries of one millisecond keep their order (commit
	// order), so the newest limit are the tail.
	sort.SliceStable(all, func(i, j int) bool { return all[i].TimestampMs < all[j].TimestampMs })
	if int64(len(all)) > limit {
		all = all[len(all)-int(limit):]
	}
	_, had := md.Properties[PropExpiredTokens]
	if len(all) == 0 {
		if had {
			return metadata.RemoveProperties{Removals: []string{PropExpiredTokens}}, nil
		}
		return nil, nil
	}
	v, err := json.Marshal(all)
	if err != nil {
		return nil, err
	}
	if had && md.Properties[PropExpiredTokens] == string(v) {
		return nil, nil
	}
	return metadata.SetProperties{Updates: map[string]string{PropExpiredTokens: string(v)}}, nil
}
