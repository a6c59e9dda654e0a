package main

import (
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	if code := run([]string{"5", "2"}, &out); code != 0 || out.String() != "2.5\n" {
		t.Fatalf("calc 5 2 printed %q (exit %d), want 2.5", out.String(), code)
	}
}
