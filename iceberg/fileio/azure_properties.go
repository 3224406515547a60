package fileio

import "strings"

// The Iceberg property names of Azure settings, as pyiceberg spells them
// and as a REST catalog vends them (adls.sas-token.<account>).
const (
	PropADLSAccountName          = "adls.account-name"
	PropADLSAccountKey           = "adls.account-key"
	PropADLSSASToken             = "adls.sas-token"
	PropADLSSASTokenPrefix       = "adls.sas-token."
	PropADLSConnectionString     = "adls.connection-string"
	PropADLSBlobStorageAuthority = "adls.blob-storage-authority"
	PropADLSBlobStorageScheme    = "adls.blob-storage-scheme"
)

// AzureWithProperties is base (nil: none) refined by the adls.* settings
// among Iceberg properties, applied in order (later sets win); nil when
// neither base nor any property says anything, so that the environment
// decides. An account key comes with its account name: a set that gives a
// key replaces base's name and key together. SAS tokens accumulate by
// account, so credentials vended for one table's account leave another's.
func AzureWithProperties(base *AzureOptions, propSets ...map[string]string) *AzureOptions {
	var out AzureOptions
	said := base != nil
	if base != nil {
		out = *base
	}
	copied := false
	for _, props := range propSets {
		for k, v := range props {
			if !strings.HasPrefix(k, "adls.") {
				continue
			}
			switch k {
			case PropADLSAccountName:
				if props[PropADLSAccountKey] == "" {
					out.AccountName = v
				}
			case PropADLSAccountKey:
				out.AccountName, out.AccountKey = props[PropADLSAccountName], v
			case PropADLSSASToken:
				out.SASToken = v
			case PropADLSConnectionString:
				out.ConnectionString = v
			case PropADLSBlobStorageAuthority:
				out.BlobStorageAuthority = v
			case PropADLSBlobStorageScheme:
				out.BlobStorageScheme = v
			default:
				account, ok := strings.CutPrefix(k, PropADLSSASTokenPrefix)
				if !ok || account == "" {
					continue
				}
				if !copied {
					// base's map is the caller's: never written to.
					m := make(map[string]string, len(out.SASTokens)+1)
					for a, t := range out.SASTokens {
						m[a] = t
					}
					out.SASTokens, copied = m, true
				}
				out.SASTokens[account] = v
			}
			out.Anonymous = out.Anonymous && out.AccountKey == "" && out.SASToken == "" && len(out.SASTokens) == 0 && out.ConnectionString == ""
			said = true
		}
	}
	if !said {
		return nil
	}
	return &out
}
