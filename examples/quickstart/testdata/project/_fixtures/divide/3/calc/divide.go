package calc

// Divide returns a / b.
func Divide(a, b float64) float64 { return a / b }
