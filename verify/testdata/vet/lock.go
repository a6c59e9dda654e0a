// Package vet has problems go vet finds.
package vet

import (
	"fmt"
	"sync"
)

// Count copies its lock.
func Count(mu sync.Mutex) int {
	fmt.Printf("%d\n", "not a number")
	return 0
}
