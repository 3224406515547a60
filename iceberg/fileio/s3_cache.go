package fileio

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
)

// Every Router made by ForLocation with the same S3 options shares one *S3:
// opening a table then costs no new client, credential lookup or connection
// pool, and the idle connections of one table's reads serve the next. The
// AWS_* environment is part of the key because it fills in what the options
// leave unset. The cache is small and least-recently-used, since options
// holding short-lived session tokens would otherwise pile up in a
// long-running process; an evicted client keeps working for whoever holds
// it.
//
// A shared client's Requests and BytesRead count the traffic of every table
// using it; a caller that needs its own counts makes its own with NewS3.

const maxCachedS3Clients = 32

var sharedS3Clients = s3ClientCache{entries: map[s3ClientKey]*s3CacheEntry{}}

type s3ClientKey struct {
	opts S3Options
	env  string
}

type s3ClientCache struct {
	mu      sync.Mutex
	entries map[s3ClientKey]*s3CacheEntry
	clock   uint64
}

type s3CacheEntry struct {
	used uint64 // the cache clock at its last lookup; guarded by the cache's mu

	build sync.Mutex // held while the client is made, so it is made once
	s3    *S3
}

// cachedS3 returns the shared client for opts, making it on first use. A
// failure is not cached: it may have come from ctx, or from an environment
// that is fixed by the next call.
func cachedS3(ctx context.Context, opts S3Options) (*S3, error) {
	return sharedS3Clients.get(ctx, opts)
}

func (c *s3ClientCache) get(ctx context.Context, opts S3Options) (*S3, error) {
	key := s3ClientKey{opts: opts, env: awsEnvironment()}
	c.mu.Lock()
	e := c.entries[key]
	if e == nil {
		e = &s3CacheEntry{}
		c.entries[key] = e
	}
	c.clock++
	e.used = c.clock
	c.evictLocked()
	c.mu.Unlock()

	e.build.Lock()
	defer e.build.Unlock()
	if e.s3 == nil {
		s, err := NewS3(ctx, opts)
		if err != nil {
			return nil, err
		}
		e.s3 = s
	}
	return e.s3, nil
}

// evictLocked drops the least recently used entries beyond the limit.
func (c *s3ClientCache) evictLocked() {
	for len(c.entries) > maxCachedS3Clients {
		var oldest s3ClientKey
		first := true
		for k, e := range c.entries {
			if first || e.used < c.entries[oldest].used {
				oldest, first = k, false
			}
		}
		delete(c.entries, oldest)
	}
}

// awsEnvironment is the AWS_* part of the environment, in a fixed order.
func awsEnvironment() string {
	var vars []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "AWS_") {
			vars = append(vars, kv)
		}
	}
	slices.Sort(vars)
	return strings.Join(vars, "\x00")
}
