package fileio_test

import (
	"testing"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/internal/azuritetest"
)

// pyiceberg's adls.* names map onto AzureOptions: later sets win, a key
// comes with its account name, SAS tokens add up by account without
// touching the caller's map, and no adls.* property leaves the options
// nil (the environment decides).
func TestAzureWithProperties(t *testing.T) {
	if got := fileio.AzureWithProperties(nil, map[string]string{"s3.endpoint": "x"}); got != nil {
		t.Fatalf("no adls.* property gave %+v", got)
	}
	baseTokens := map[string]string{"a": "sv=a"}
	base := &fileio.AzureOptions{AccountName: "old", AccountKey: "oldkey", SASTokens: baseTokens, MaxAttempts: 3}
	got := fileio.AzureWithProperties(base,
		map[string]string{
			fileio.PropADLSAccountName: "acct", fileio.PropADLSAccountKey: "newkey",
			fileio.PropADLSBlobStorageAuthority: "127.0.0.1:10000", fileio.PropADLSBlobStorageScheme: "http",
			"adls.sas-token.b": "sv=b1",
		},
		map[string]string{"adls.sas-token.b.dfs.core.windows.net": "sv=b2", fileio.PropADLSConnectionString: "AccountName=c;AccountKey=k"},
	)
	if got.AccountName != "acct" || got.AccountKey != "newkey" || got.BlobStorageAuthority != "127.0.0.1:10000" ||
		got.BlobStorageScheme != "http" || got.MaxAttempts != 3 || got.ConnectionString != "AccountName=c;AccountKey=k" {
		t.Fatalf("options = %+v", got)
	}
	if len(got.SASTokens) != 3 || got.SASTokens["a"] != "sv=a" || got.SASTokens["b"] != "sv=b1" || got.SASTokens["b.dfs.core.windows.net"] != "sv=b2" {
		t.Fatalf("SAS tokens = %v", got.SASTokens)
	}
	if len(baseTokens) != 1 {
		t.Fatalf("the caller's map was written to: %v", baseTokens)
	}
	// A name alone keeps base's key only when it names the same account.
	if got := fileio.AzureWithProperties(base, map[string]string{fileio.PropADLSAccountName: "other"}); got.AccountName != "other" || got.AccountKey != "oldkey" {
		t.Fatalf("name alone = %+v", got)
	}
}

// A SAS token vended for the account (adls.sas-token.<account>, as a REST
// catalog sends it) is what reads the table, with no key anywhere.
func TestAzureReadsWithVendedSASTokenByAccount(t *testing.T) {
	srv := azuritetest.Start(t)
	loc := srv.Location("sas/x")
	put(t, srv.FileIO(t), loc, []byte("by sas"))
	sas := srv.SAS(t)
	for _, name := range []string{fileio.EnvAzureAccount, fileio.EnvAzureKey, fileio.EnvAzureConnectionString, fileio.EnvAzureSASToken} {
		t.Setenv(name, "")
	}
	for _, key := range []string{"adls.sas-token." + azuritetest.Account, "adls.sas-token." + azuritetest.Account + ".dfs.core.windows.net"} {
		opts := fileio.AzureWithProperties(nil, map[string]string{
			key: sas, fileio.PropADLSBlobStorageAuthority: srv.Authority, fileio.PropADLSBlobStorageScheme: "http",
		})
		files := azuritetest.NewFileIO(t, *opts)
		if got, err := files.ReadFile(t.Context(), loc); err != nil || string(got) != "by sas" {
			t.Fatalf("%s: ReadFile = %q, %v", key, got, err)
		}
	}
	// A token for another account serves nothing here.
	opts := fileio.AzureWithProperties(nil, map[string]string{
		"adls.sas-token.someoneelse": sas, fileio.PropADLSBlobStorageAuthority: srv.Authority, fileio.PropADLSBlobStorageScheme: "http",
	})
	if _, err := azuritetest.NewFileIO(t, *opts).ReadFile(t.Context(), loc); err == nil {
		t.Fatal("a SAS token for another account was used")
	}
}
