package fileio

// SetAzureListPageSize makes Azure listings ask for pages of n blobs, for
// tests of pagination; the returned func restores the default.
func SetAzureListPageSize(n int32) func() {
	azureListPageSize = n
	return func() { azureListPageSize = 0 }
}
