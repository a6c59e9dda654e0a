// Package calc divides.
package calc

// Div does not compile.
func Div(a, b int) (int, error) {
	return a / b, undefinedError
}
