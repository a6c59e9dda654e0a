package calc

// Add returns a + b.
func Add(a, b float64) float64 { return a + b }
