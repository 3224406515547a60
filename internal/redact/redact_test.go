package redact

import (
	"errors"
	"os"
	"testing"
)

// Which properties are secrets: header values, and keys naming a secret
// by any of its usual words, whatever their prefix; not the rest.
func TestProperty(t *testing.T) {
	for _, k := range []string{"token", "credential", "s3.secret-access-key", "rest.session-token", "header.X-Api-Key",
		"header.authorization", "adls.sas-token.acct", "_auth_pass", "password", "gcs.oauth2.token", "x.api_key",
		"adls.account-key", "adls.connection-string", "account_key", "connection_string", "sig", "AccountKey", "SharedAccessSignature"} {
		if !Property(k) {
			t.Errorf("%s is not a secret", k)
		}
	}
	for _, k := range []string{"uri", "warehouse", "name", "s3.endpoint", "s3.access-key-id", "s3.path-style-access", "scope",
		"oauth2-server-uri", "rest.signing-region", "timeout-ms",
		"adls.account-name", "adls.blob-storage-authority", "sv", "se"} {
		if Property(k) {
			t.Errorf("%s is a secret", k)
		}
	}
}

// A flag's value is no secret to mask; an error keeps what errors.Is
// finds in it when its message is redacted.
func TestFlagsAndErrorChains(t *testing.T) {
	var s Secrets
	s.AddProperties(map[string]string{"token-exchange-enabled": "true", "token": "tok-S3CRET"})
	err := s.Error(errors.Join(os.ErrNotExist, errors.New("true: tok-S3CRET")))
	if got := err.Error(); got != "file does not exist\ntrue: xxxxx" {
		t.Errorf("%q", got)
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Error("the redacted error lost its chain")
	}
}

// An Azure connection string or SAS token given as a property is masked
// whole, and so are its key, its SAS and the SAS's signature alone, as a
// message may quote one part of it.
func TestAzureConnectionStringAndSASParts(t *testing.T) {
	var s Secrets
	s.AddProperties(map[string]string{
		"adls.connection-string": "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=S3CRETKEY+/a==;EndpointSuffix=core.windows.net",
		"adls.sas-token.other":   "sv=2024-01-01&ss=b&sig=SIGS3CRET%2Fx",
		"adls.account-key":       "K3YS3CRET==",
		"adls.account-name":      "visibleacct",
	})
	msg := s.String("key S3CRETKEY+/a== sig SIGS3CRET%2Fx or SIGS3CRET/x, key K3YS3CRET==, account visibleacct, version sv=2024-01-01")
	if want := "key xxxxx sig xxxxx or xxxxx, key xxxxx, account visibleacct, version sv=2024-01-01"; msg != want {
		t.Errorf("got  %q\nwant %q", msg, want)
	}
}
