// Package calc divides.
package calc

// Div returns a / b, and forgets the zero check.
func Div(a, b int) (int, error) {
	if b == 0 {
		return 0, nil
	}
	return a / b, nil
}
