// Package sub has a problem go vet finds.
package sub

import "fmt"

// Say prints with a stray directive.
func Say() { fmt.Println("hello %s", "x") }
