package plugins

// SetAfterHash installs f to run between a binary's checksum and its start,
// and forceCopy, until the test ends.
func SetAfterHash(f func(path string), copy bool) (restore func()) {
	afterHash, forceCopy = f, copy
	return func() { afterHash, forceCopy = nil, false }
}
