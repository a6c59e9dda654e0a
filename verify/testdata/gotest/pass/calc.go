// Package calc divides.
package calc

import "errors"

// Div returns a / b, or an error when b is zero.
func Div(a, b int) (int, error) {
	if b == 0 {
		return 0, errors.New("division by zero")
	}
	return a / b, nil
}
