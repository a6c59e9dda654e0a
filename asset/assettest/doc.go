// Package assettest checks that an [asset.Store] keeps the contract: a
// conformance suite for third-party stores (a company may back assets with
// its own database) and for the stores of package asset.
//
//	func TestMyStore(t *testing.T) {
//		assettest.Run(t, func(t *testing.T) asset.Store { return newMyStore(t) })
//	}
package assettest
