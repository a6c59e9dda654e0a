package calc

import "testing"

func TestDiv(t *testing.T) {
	for _, tt := range []struct{ a, b, want int }{{7, 2, 3}, {-6, 3, -2}} {
		t.Run("", func(t *testing.T) {
			if got, err := Div(tt.a, tt.b); err != nil || got != tt.want {
				t.Errorf("Div(%d, %d) = %d, %v; want %d", tt.a, tt.b, got, err, tt.want)
			}
		})
	}
}

func TestDivZero(t *testing.T) {
	if _, err := Div(1, 0); err == nil {
		t.Error("Div(1, 0): no error")
	}
}

func TestSkipped(t *testing.T) { t.Skip("not today") }
