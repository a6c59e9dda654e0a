package calc

import "testing"

func TestDivide(t *testing.T) {
	if got, err := Divide(5, 2); err != nil || got != 2.5 {
		t.Fatalf("Divide(5, 2) = %v, %v; want 2.5, nil", got, err)
	}
}
