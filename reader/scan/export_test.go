package scan

// SetReaderTests turns the column readers' evaluation of conjuncts
// (filter_tested.go) on or off, for tests comparing it with decoding the
// column and comparing its values; it returns the setting before.
func SetReaderTests(on bool) bool {
	return readerTests.Swap(on)
}
