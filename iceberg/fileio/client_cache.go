package fileio

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
)

// clientCache is the process-wide cache of one object store's clients, by
// their options and the part of the environment that fills in what the
// options leave unset: every Router made by ForLocation with the same
// settings shares one client, so opening a table costs no new client,
// credential lookup or connection pool, and the idle connections of one
// table's reads serve the next. It is small and least-recently-used,
// since options holding short-lived tokens would otherwise pile up in a
// long-running process; an evicted client keeps working for whoever holds
// it. A failure to make a client is not cached: it may have come from the
// caller's context, or from an environment the next call has fixed.
//
// (S3's cache, s3_cache.go, is the same policy written for S3 alone.)
type clientCache[K comparable, C any] struct {
	build   func(ctx context.Context, key K) (C, error)
	mu      sync.Mutex
	entries map[clientCacheKey[K]]*clientCacheEntry[C]
	clock   uint64
}

type clientCacheKey[K comparable] struct {
	opts K
	env  string
}

type clientCacheEntry[C any] struct {
	used uint64 // the cache clock at its last lookup; guarded by the cache's mu

	build  sync.Mutex // held while the client is made, so it is made once
	client C
	made   bool
}

const maxCachedClients = 32

func newClientCache[K comparable, C any](build func(ctx context.Context, key K) (C, error)) *clientCache[K, C] {
	return &clientCache[K, C]{build: build, entries: map[clientCacheKey[K]]*clientCacheEntry[C]{}}
}

// get returns the client for opts under the environment env (see
// environmentWith), making it on first use.
func (c *clientCache[K, C]) get(ctx context.Context, opts K, env string) (C, error) {
	key := clientCacheKey[K]{opts: opts, env: env}
	c.mu.Lock()
	e := c.entries[key]
	if e == nil {
		e = &clientCacheEntry[C]{}
		c.entries[key] = e
	}
	c.clock++
	e.used = c.clock
	for len(c.entries) > maxCachedClients {
		var oldest clientCacheKey[K]
		first := true
		for k, e := range c.entries {
			if first || e.used < c.entries[oldest].used {
				oldest, first = k, false
			}
		}
		delete(c.entries, oldest)
	}
	c.mu.Unlock()

	e.build.Lock()
	defer e.build.Unlock()
	if !e.made {
		client, err := c.build(ctx, opts)
		if err != nil {
			return client, err
		}
		e.client, e.made = client, true
	}
	return e.client, nil
}

// environmentWith is the environment's variables whose names start with
// one of prefixes, in a fixed order.
func environmentWith(prefixes ...string) string {
	var vars []string
	for _, kv := range os.Environ() {
		for _, p := range prefixes {
			if strings.HasPrefix(kv, p) {
				vars = append(vars, kv)
				break
			}
		}
	}
	slices.Sort(vars)
	return strings.Join(vars, "\x00")
}
