package calc

import "errors"

// ErrDivideByZero is returned by Divide for a zero divisor.
var ErrDivideByZero = errors.New("calc: division by zero")

// Divide returns a / b, or ErrDivideByZero when b is zero.
func Divide(a, b float64) (float64, error) {
	if b == 0 {
		return 0, ErrDivideByZero
	}
	return a / b, nil
}
