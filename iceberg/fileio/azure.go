package fileio

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/floedb/floe/errkind"
)

// AzureOptions configure an Azure FileIO (abfs://, abfss://, wasb://,
// wasbs://). Every unset field falls back to the AZURE_STORAGE_*
// environment (AZURE_STORAGE_ACCOUNT, AZURE_STORAGE_KEY,
// AZURE_STORAGE_CONNECTION_STRING, AZURE_STORAGE_SAS_TOKEN). The JSON form
// is what table-open options carry under "azure"; Iceberg properties
// (adls.*, pyiceberg's names) map onto it through AzureWithProperties.
type AzureOptions struct {
	// AccountName and AccountKey sign requests to that account with its
	// shared key (adls.account-name, adls.account-key).
	AccountName string `json:"account_name,omitempty"`
	AccountKey  string `json:"account_key,omitempty"`
	// SASTokens are shared access signatures by account name
	// (adls.sas-token.<account>, as a REST catalog vends them); SASToken
	// serves any account none of them names.
	SASTokens map[string]string `json:"sas_tokens,omitempty"`
	SASToken  string            `json:"sas_token,omitempty"`
	// ConnectionString is an Azure storage connection string
	// (adls.connection-string): its account, key or SAS, and its
	// BlobEndpoint when it gives one (Azurite's has one).
	ConnectionString string `json:"connection_string,omitempty"`
	// BlobStorageAuthority is the host[:port] of the blob service
	// (adls.blob-storage-authority). One starting with "." is a domain the
	// account name is put in front of (".blob.core.windows.net", the
	// default, taken from the location's host); any other is an emulator's
	// address, and the account becomes the URL's first path segment
	// (Azurite: "127.0.0.1:10000" → http://127.0.0.1:10000/devstoreaccount1).
	BlobStorageAuthority string `json:"blob_storage_authority,omitempty"`
	// BlobStorageScheme is "https" (the default) or "http"
	// (adls.blob-storage-scheme).
	BlobStorageScheme string `json:"blob_storage_scheme,omitempty"`
	// Anonymous sends unsigned requests, for public containers.
	Anonymous bool `json:"anonymous,omitempty"`
	// MaxAttempts bounds the tries of one request (default 5).
	MaxAttempts int `json:"max_attempts,omitempty"`
	// BlockSize is the block size of Create's staged uploads (default
	// 8 MiB); smaller files are sent in one Put Blob.
	BlockSize int64 `json:"block_size,omitempty"`
	// RetryBaseDelay and RetryMaxDelay shape the full-jitter backoff, as
	// S3Options' do (defaults 100 ms and 5 s).
	RetryBaseDelay time.Duration `json:"-"`
	RetryMaxDelay  time.Duration `json:"-"`
}

const (
	defaultAzureAttempts  = 5
	defaultAzureBlockSize = 8 << 20
	minAzureBlockSize     = 64 << 10
	maxAzureBlockSize     = 4000 << 20
	maxAzureBlocks        = 50000
	azureUploadsInFlight  = 4
	defaultAzureBlobHost  = "blob.core.windows.net"
)

// Azure is the FileIO of Azure Blob Storage and ADLS Gen2 accounts, for
// abfs[s]://container@account.dfs.core.windows.net/path and
// wasb[s]://container@account.blob.core.windows.net/path (four spellings of
// one thing: every request goes to the account's blob endpoint, which also
// serves hierarchical-namespace accounts). It is safe for concurrent use.
//
// One location may name any account; a client per account is made on its
// first use, with that account's credentials (see AzureOptions). Every
// request runs through one retry loop (azure_retry.go), as S3's do.
type Azure struct {
	opts        AzureOptions
	maxAttempts int
	blockSize   int64
	conn        azureConnectionString

	mu      sync.Mutex
	clients map[string]*service.Client // by account and blob host

	requests  atomic.Int64
	bytesRead atomic.Int64
}

var _ FileIO = (*Azure)(nil)

// NewAzure builds an Azure FileIO: the options refined by the AZURE_STORAGE_*
// environment. It sends nothing over the network; an account's client is
// made, and its credentials chosen, on the first request to it.
func NewAzure(opts AzureOptions) (*Azure, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if !opts.Anonymous {
		opts = opts.withEnvironment()
		if err := opts.Validate(); err != nil {
			return nil, fmt.Errorf("%w (with the AZURE_STORAGE_* environment)", err)
		}
	}
	a := &Azure{opts: opts, maxAttempts: opts.MaxAttempts, blockSize: opts.BlockSize, clients: map[string]*service.Client{}}
	if a.maxAttempts <= 0 {
		a.maxAttempts = defaultAzureAttempts
	}
	if a.blockSize == 0 {
		a.blockSize = defaultAzureBlockSize
	}
	if opts.ConnectionString != "" {
		a.conn = parseAzureConnectionString(opts.ConnectionString)
	}
	return a, nil
}

// Requests is the number of HTTP requests sent so far, retries included.
func (a *Azure) Requests() int64 { return a.requests.Load() }

// BytesRead is the number of blob bytes received so far, including those of
// reads that were cut short and retried.
func (a *Azure) BytesRead() int64 { return a.bytesRead.Load() }

// azureObject is a parsed Azure location.
type azureObject struct {
	account   string
	blobHost  string // the blob service's domain for the account: blob.core.windows.net
	container string
	key       string
}

func isAzureScheme(scheme string) bool {
	switch scheme {
	case "abfs", "abfss", "wasb", "wasbs":
		return true
	}
	return false
}

// parseAzureLocation splits scheme://container@account.host/key. Without
// "@account.host" (abfs://container/key, as fsspec writes it) the account
// is the options' AccountName. The key is kept as written, as S3's is.
func (a *Azure) parseLocation(location string, allowEmptyKey bool) (azureObject, error) {
	scheme := Scheme(location)
	if !isAzureScheme(scheme) {
		return azureObject{}, fmt.Errorf("fileio: %s: not an abfs://, abfss://, wasb:// or wasbs:// location", location)
	}
	rest := location[len(scheme)+1:]
	if !strings.HasPrefix(rest, "//") {
		return azureObject{}, fmt.Errorf("fileio: %s: want %s://container@account.dfs.core.windows.net/path", location, scheme)
	}
	authority, key, _ := strings.Cut(rest[2:], "/")
	container, host, hasHost := strings.Cut(authority, "@")
	obj := azureObject{container: container, key: key, blobHost: defaultAzureBlobHost}
	if hasHost {
		account, domain, _ := strings.Cut(host, ".")
		obj.account = account
		if domain != "" {
			// The DFS endpoint's sibling serves the blob API:
			// account.dfs.core.chinacloudapi.cn → account.blob.core.chinacloudapi.cn.
			if d, ok := strings.CutPrefix(domain, "dfs."); ok {
				domain = "blob." + d
			}
			obj.blobHost = domain
		}
	} else {
		obj.account = a.opts.AccountName
		if obj.account == "" {
			obj.account = a.conn.account
		}
	}
	if err := checkAzureNames(obj); err != nil {
		return azureObject{}, fmt.Errorf("fileio: %s: %w", location, err)
	}
	if key == "" && !allowEmptyKey {
		return azureObject{}, fmt.Errorf("fileio: %s: location names a container, not a blob", location)
	}
	return obj, nil
}

// checkAzureNames refuses account, container and domain names that would
// change the meaning of a request URL.
func checkAzureNames(obj azureObject) error {
	if obj.account == "" {
		return errors.New("no storage account: write container@account.dfs.core.windows.net, or set adls.account-name")
	}
	if obj.container == "" {
		return errors.New("no container name")
	}
	for _, part := range []struct{ what, s, extra string }{
		{"account", obj.account, ""}, {"container", obj.container, "-$"}, {"host", obj.blobHost, "-.:"},
	} {
		for i := 0; i < len(part.s); i++ {
			c := part.s[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(part.extra, c) >= 0) {
				return fmt.Errorf("%s name %q has a character Azure does not allow", part.what, part.s)
			}
		}
	}
	return nil
}

// serviceURL is the blob service URL of obj's account, without credentials.
func (a *Azure) serviceURL(obj azureObject) string {
	if a.conn.blobEndpoint != "" && strings.EqualFold(a.conn.account, obj.account) {
		return strings.TrimRight(a.conn.blobEndpoint, "/") + "/"
	}
	scheme := a.opts.BlobStorageScheme
	if scheme == "" {
		scheme = "https"
		if a.conn.protocol != "" && strings.EqualFold(a.conn.account, obj.account) {
			scheme = a.conn.protocol
		}
	}
	authority := a.opts.BlobStorageAuthority
	switch {
	case authority == "":
		if a.conn.suffix != "" && strings.EqualFold(a.conn.account, obj.account) && obj.blobHost == defaultAzureBlobHost {
			return scheme + "://" + obj.account + ".blob." + a.conn.suffix + "/"
		}
		return scheme + "://" + obj.account + "." + obj.blobHost + "/"
	case strings.HasPrefix(authority, "."):
		return scheme + "://" + obj.account + authority + "/"
	default:
		return scheme + "://" + authority + "/" + obj.account + "/"
	}
}

// client returns the service client of obj's account, made on first use
// with the credentials the options give that account: its SAS token, the
// connection string naming it, its shared key, the SAS token for any
// account, or none when Anonymous.
func (a *Azure) client(obj azureObject) (*service.Client, error) {
	base := a.serviceURL(obj)
	a.mu.Lock()
	defer a.mu.Unlock()
	if c := a.clients[base]; c != nil {
		return c, nil
	}
	opts := &service.ClientOptions{ClientOptions: azcore.ClientOptions{
		// Retries are ours (azure_retry.go), as for S3: one loop sees
		// every try, cut-short bodies included, and a conditional write
		// can tell that an earlier try may have landed.
		Retry:     policy.RetryOptions{MaxRetries: -1},
		Transport: newAzureTransport(&a.requests),
		// A library must not log to the host; telemetry headers are
		// harmless but name floe instead of the SDK alone.
		Telemetry: policy.TelemetryOptions{ApplicationID: "floe"},
		// An emulator (Azurite) listens on plain HTTP.
		InsecureAllowCredentialWithHTTP: strings.HasPrefix(base, "http://"),
	}}
	account := obj.account
	sas := a.opts.SASTokens[account]
	if sas == "" {
		for k, v := range a.opts.SASTokens {
			// adls.sas-token.<account>.dfs.core.windows.net, as Java names it.
			if name, _, _ := strings.Cut(k, "."); strings.EqualFold(name, account) {
				sas = v
				break
			}
		}
	}
	var c *service.Client
	var err error
	isConn := strings.EqualFold(a.conn.account, account)
	switch {
	case sas != "":
		c, err = service.NewClientWithNoCredential(base+"?"+strings.TrimPrefix(sas, "?"), opts)
	case isConn && a.conn.key != "":
		var cred *service.SharedKeyCredential
		if cred, err = service.NewSharedKeyCredential(a.conn.account, a.conn.key); err == nil {
			c, err = service.NewClientWithSharedKeyCredential(base, cred, opts)
		}
	case isConn && a.conn.sas != "":
		c, err = service.NewClientWithNoCredential(base+"?"+strings.TrimPrefix(a.conn.sas, "?"), opts)
	case strings.EqualFold(a.opts.AccountName, account) && a.opts.AccountKey != "":
		var cred *service.SharedKeyCredential
		if cred, err = service.NewSharedKeyCredential(account, a.opts.AccountKey); err == nil {
			c, err = service.NewClientWithSharedKeyCredential(base, cred, opts)
		}
	case a.opts.SASToken != "":
		c, err = service.NewClientWithNoCredential(base+"?"+strings.TrimPrefix(a.opts.SASToken, "?"), opts)
	case a.opts.Anonymous:
		c, err = service.NewClientWithNoCredential(base, opts)
	default:
		return nil, errkind.Errorf(errkind.InvalidArgument, "fileio: azure: no credentials for storage account %q "+
			"(set adls.account-name and adls.account-key, adls.sas-token.%s, or adls.connection-string; "+
			"or AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN, AZURE_STORAGE_CONNECTION_STRING; "+
			"anonymous: true for a public container)", account, account)
	}
	if err != nil {
		// The SDK's messages may quote what it was given: name the account only.
		return nil, errkind.Errorf(errkind.InvalidArgument, "fileio: azure: the credentials for storage account %q are not usable (%s)", account, credentialProblem(err))
	}
	a.clients[base] = c
	return c, nil
}

// credentialProblem is what a client constructor's error says, kept only
// when it cannot hold a secret (a base64 decoding failure of the key
// names the offset, not the key).
func credentialProblem(err error) string {
	if strings.Contains(err.Error(), "base64") {
		return "the account key is not base64"
	}
	return "the service URL or credential was refused"
}

// azureConnectionString is the part of an Azure connection string the
// FileIO uses.
type azureConnectionString struct {
	account, key, sas, blobEndpoint, protocol, suffix string
}

// parseAzureConnectionString reads Key=Value pairs separated by ';'. Its
// values never reach a message.
func parseAzureConnectionString(s string) azureConnectionString {
	var c azureConnectionString
	for _, pair := range strings.Split(s, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(pair), "=")
		switch strings.ToLower(k) {
		case "accountname":
			c.account = v
		case "accountkey":
			c.key = v
		case "sharedaccesssignature":
			c.sas = v
		case "blobendpoint":
			c.blobEndpoint = v
		case "defaultendpointsprotocol":
			c.protocol = strings.ToLower(v)
		case "endpointsuffix":
			c.suffix = v
		}
	}
	if c.account == "" && c.blobEndpoint != "" {
		// A SAS-only connection string names its account in the endpoint.
		if u, err := url.Parse(c.blobEndpoint); err == nil {
			if name, _, ok := strings.Cut(u.Hostname(), "."); ok {
				c.account = name
			}
		}
	}
	return c
}
