package fsx_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/harnish/harnish/internal/fsx"
)

func TestLockContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	held, err := fsx.LockContext(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}

	cause := errors.New("budget spent")
	ctx, cancel := context.WithCancelCause(t.Context())
	time.AfterFunc(20*time.Millisecond, func() { cancel(cause) })
	if l, err := fsx.LockContext(ctx, path); !errors.Is(err, cause) {
		l.Unlock()
		t.Fatalf("LockContext while held = %v, want the cancel cause", err)
	}

	got := make(chan error, 1)
	go func() {
		l, err := fsx.LockContext(t.Context(), path)
		l.Unlock()
		got <- err
	}()
	time.Sleep(10 * time.Millisecond)
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Errorf("LockContext after release = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("LockContext did not take the released lock")
	}
}
