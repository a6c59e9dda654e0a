package model

import (
	"fmt"
	"time"

	"github.com/harnish/harnish/task/internal/quote"
)

// Duration is a time.Duration written as a Go duration string ("90s", "30m",
// "1h30m") in plans.
type Duration time.Duration

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String returns d in Go duration syntax.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalText writes d in Go duration syntax, for JSON and YAML encoders.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses Go duration syntax.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("task: invalid duration %s", quote.String(string(b)))
	}
	*d = Duration(v)
	return nil
}
