package calc

import "testing"

func TestDivide(t *testing.T) {
	if got := Divide(5, 2); got != 2.5 {
		t.Fatalf("Divide(5, 2) = %v, want 2.5", got)
	}
}
