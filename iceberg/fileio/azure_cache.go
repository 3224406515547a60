package fileio

import (
	"context"
	"encoding/json"
	"time"
)

// sharedAzureClients is the process-wide cache of Azure FileIOs
// (client_cache.go): every Router made by ForLocation with the same Azure
// options shares one *Azure, its clients and connection pools. The
// AZURE_* environment is part of the key because it fills in what the
// options leave unset. A shared FileIO's Requests and BytesRead count the
// traffic of every table using it; a caller that needs its own counts
// makes its own with NewAzure.
var sharedAzureClients = newClientCache(func(_ context.Context, key azureCacheKey) (*Azure, error) {
	var opts AzureOptions
	if err := json.Unmarshal([]byte(key.opts), &opts); err != nil {
		return nil, err
	}
	opts.RetryBaseDelay, opts.RetryMaxDelay = key.base, key.max
	return NewAzure(opts)
})

// azureCacheKey is AzureOptions made comparable: the options in JSON
// (their SAS map is not comparable) and the fields JSON leaves out.
type azureCacheKey struct {
	opts      string
	base, max time.Duration
}

// cachedAzure returns the shared FileIO for opts, making it on first use.
func cachedAzure(ctx context.Context, opts AzureOptions) (*Azure, error) {
	raw, err := json.Marshal(opts)
	if err != nil {
		return nil, err
	}
	key := azureCacheKey{opts: string(raw), base: opts.RetryBaseDelay, max: opts.RetryMaxDelay}
	return sharedAzureClients.get(ctx, key, environmentWith("AZURE_"))
}
