// Package storetest checks that a [loop.Store] keeps the contract: a
// conformance suite for the stores of package loop and looptest, and for
// third-party stores (a host may keep run state in its own database).
//
// [Run] checks what every store must do: Load of an empty store wraps
// [loop.ErrNoState]; Commit applies transitions in order, and Load reflects
// them as soon as Commit returns; Load returns a copy, and the store keeps no
// part of the transitions the caller committed; a batch with a transition the
// state rejects records nothing of the batch and leaves the store usable; a
// Commit under a cancelled context records all of its batch or none; 10,000
// transitions are all kept; Commit after Close wraps [loop.ErrStoreClosed].
// [RunDurable] checks the same, and also reopens the store after each of
// these to see that it kept every transition it acknowledged and nothing
// else.
//
// Stores are used by one loop at a time, so the suite never calls a store
// from two goroutines.
//
// Use it from a test of the store:
//
//	func TestMyStore(t *testing.T) {
//		storetest.RunDurable(t, func(t *testing.T, dir string) loop.Store {
//			s, err := mystore.Open(dir)
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		})
//	}
package storetest
