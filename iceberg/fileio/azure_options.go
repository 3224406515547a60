package fileio

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// The AZURE_STORAGE_* environment variables the Azure FileIO reads, as the
// Azure CLI and SDKs name them.
const (
	EnvAzureAccount          = "AZURE_STORAGE_ACCOUNT"
	EnvAzureKey              = "AZURE_STORAGE_KEY"
	EnvAzureConnectionString = "AZURE_STORAGE_CONNECTION_STRING"
	EnvAzureSASToken         = "AZURE_STORAGE_SAS_TOKEN"
)

// withEnvironment fills what the options leave unset from the environment.
// An account name from the options keeps the environment's key away from
// it unless both name the same account.
func (o AzureOptions) withEnvironment() AzureOptions {
	if o.ConnectionString == "" {
		o.ConnectionString = os.Getenv(EnvAzureConnectionString)
	}
	envAccount := os.Getenv(EnvAzureAccount)
	if o.AccountName == "" {
		o.AccountName = envAccount
	}
	if o.AccountKey == "" && strings.EqualFold(o.AccountName, envAccount) {
		o.AccountKey = os.Getenv(EnvAzureKey)
	}
	if o.SASToken == "" {
		o.SASToken = os.Getenv(EnvAzureSASToken)
	}
	return o
}

// Validate refuses settings that can never work, so a caller can reject
// them when it parses them instead of at the first Azure request. No
// message quotes a key, token or connection string.
func (o AzureOptions) Validate() error {
	switch {
	case o.MaxAttempts < 0:
		return fmt.Errorf("fileio: azure max_attempts %d is negative", o.MaxAttempts)
	case o.BlockSize != 0 && (o.BlockSize < minAzureBlockSize || o.BlockSize > maxAzureBlockSize):
		return fmt.Errorf("fileio: azure block_size %d is outside %d to %d bytes", o.BlockSize, minAzureBlockSize, maxAzureBlockSize)
	case o.AccountKey != "" && o.AccountName == "":
		return errors.New("fileio: azure options give account_key without account_name")
	case o.Anonymous && (o.AccountKey != "" || o.SASToken != "" || len(o.SASTokens) > 0 || o.ConnectionString != ""):
		return errors.New("fileio: azure options are anonymous and give credentials; choose one")
	case o.BlobStorageScheme != "" && o.BlobStorageScheme != "http" && o.BlobStorageScheme != "https":
		return fmt.Errorf("fileio: azure blob_storage_scheme %q is neither http nor https", o.BlobStorageScheme)
	case strings.ContainsAny(o.BlobStorageAuthority, "/?#@ "):
		return fmt.Errorf("fileio: azure blob_storage_authority %q is not a host[:port]", o.BlobStorageAuthority)
	}
	if o.ConnectionString != "" {
		c := parseAzureConnectionString(o.ConnectionString)
		if c.account == "" {
			return errors.New("fileio: azure connection string names no AccountName (nor a BlobEndpoint with the account in its host)")
		}
		if c.key == "" && c.sas == "" {
			return errors.New("fileio: azure connection string has neither AccountKey nor SharedAccessSignature")
		}
		if c.blobEndpoint != "" && !strings.HasPrefix(c.blobEndpoint, "http://") && !strings.HasPrefix(c.blobEndpoint, "https://") {
			return errors.New("fileio: azure connection string's BlobEndpoint is not an http:// or https:// URL")
		}
	}
	return nil
}
