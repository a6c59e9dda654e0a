package verify_test

import (
	"testing"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// request asks for a verification of a one-off task in dir.
func request(t testing.TB, dir string) *verify.Request {
	t.Helper()
	return &verify.Request{Task: &task.Task{ID: "T1", Title: "t"}, WorkDir: dir, Attempt: 1}
}
