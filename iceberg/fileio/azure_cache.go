package fileio

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// Every Router made by ForLocation with the same Azure options shares one
// *Azure, as with S3 (s3_cache.go): opening a table costs no new client or
// connection pool, and one table's idle connections serve the next. The
// AZURE_* environment is part of the key because it fills in what the
// options leave unset. The cache is small and least-recently-used, since
// options holding short-lived SAS tokens would otherwise pile up.

const maxCachedAzureClients = 32

var sharedAzureClients = struct {
	mu      sync.Mutex
	entries map[azureClientKey]*azureCacheEntry
	clock   uint64
}{entries: map[azureClientKey]*azureCacheEntry{}}

// azureClientKey is the options in JSON (their SAS map makes them
// incomparable), the fields JSON leaves out, and the environment.
type azureClientKey struct {
	opts      string
	base, max time.Duration
	env       string
}

type azureCacheEntry struct {
	used uint64
	az   *Azure
}

// cachedAzure returns the shared FileIO for opts, making it on first use.
// Making one sends nothing, so it is made under the cache's lock; a
// failure (invalid options) is not cached.
func cachedAzure(opts AzureOptions) (*Azure, error) {
	raw, err := json.Marshal(opts)
	if err != nil {
		return nil, err
	}
	key := azureClientKey{opts: string(raw), base: opts.RetryBaseDelay, max: opts.RetryMaxDelay, env: azureEnvironment()}
	c := &sharedAzureClients
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	if e := c.entries[key]; e != nil {
		e.used = c.clock
		return e.az, nil
	}
	az, err := NewAzure(opts)
	if err != nil {
		return nil, err
	}
	c.entries[key] = &azureCacheEntry{used: c.clock, az: az}
	for len(c.entries) > maxCachedAzureClients {
		var oldest azureClientKey
		first := true
		for k, e := range c.entries {
			if first || e.used < c.entries[oldest].used {
				oldest, first = k, false
			}
		}
		delete(c.entries, oldest)
	}
	return az, nil
}

// azureEnvironment is the AZURE_* part of the environment, in a fixed order.
func azureEnvironment() string {
	var vars []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "AZURE_") {
			vars = append(vars, kv)
		}
	}
	slices.Sort(vars)
	return strings.Join(vars, "\x00")
}
