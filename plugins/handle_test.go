package plugins

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// A restart in progress (here 2 s) holds no one else past their own
// deadline: a call, Plugins and Close all return promptly.
func TestSlowRestartDoesNotBlock(t *testing.T) {
	tests := []struct {
		name string
		// do runs while the restart is in progress and checks its result.
		do func(t *testing.T, h *Host, v verify.Verifier)
		// restartErr checks what the restarting caller got.
		restartErr func(t *testing.T, err error)
	}{
		{name: "call with a 100ms deadline", do: func(t *testing.T, h *Host, v verify.Verifier) {
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			_, err := v.Verify(ctx, &verify.Request{Task: &task.Task{ID: "ok"}})
			if !errors.Is(err, ErrPluginTimeout) || !verify.IsRetryable(err) {
				t.Errorf("got %v, want a retryable timeout", err)
			}
		}},
		{name: "cancelled call", do: func(t *testing.T, h *Host, v verify.Verifier) {
			cause := errors.New("gave up")
			ctx, cancel := context.WithCancelCause(t.Context())
			time.AfterFunc(100*time.Millisecond, func() { cancel(cause) })
			if _, err := v.Verify(ctx, &verify.Request{Task: &task.Task{ID: "ok"}}); !errors.Is(err, cause) {
				t.Errorf("got %v, want the cause", err)
			}
		}},
		{name: "Plugins", do: func(t *testing.T, h *Host, v verify.Verifier) {
			if got := h.Plugins(); len(got) != 1 {
				t.Errorf("Plugins: %v", got)
			}
			if _, err := h.Verifier("tp"); err != nil {
				t.Error(err)
			}
		}},
		{name: "Close", do: func(t *testing.T, h *Host, v verify.Verifier) {
			h.Close()
		}, restartErr: func(t *testing.T, err error) {
			if !errors.Is(err, ErrPluginUnavailable) || !errors.Is(err, errClosed) {
				t.Errorf("restarting caller got %v, want host closed", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var dead atomic.Bool
			starting := make(chan struct{})
			starts := 0
			start := func(ctx context.Context) (*instance, error) {
				starts++
				inst := &instance{
					alive: func() bool { return !dead.Load() },
					stop:  func() {},
					tail:  func() string { return "" },
					info:  Info{Name: "tp", Capabilities: []Capability{CapVerifier}},
				}
				if starts == 1 {
					return inst, nil
				}
				close(starting)
				select {
				case <-time.After(2 * time.Second):
					return inst, nil
				case <-ctx.Done():
					return nil, context.Cause(ctx)
				}
			}
			h, err := openWith(t.Context(), []Spec{{Name: "tp"}}, map[string]startFunc{"tp": start})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			v, err := h.Verifier("tp")
			if err != nil {
				t.Fatal(err)
			}
			dead.Store(true)
			restarted := make(chan error, 1)
			go func() {
				_, err := h.handles["tp"].get(context.Background())
				restarted <- err
			}()
			<-starting
			begin := time.Now()
			tt.do(t, h, v)
			if d := time.Since(begin); d > 300*time.Millisecond {
				t.Errorf("took %v behind a restart in progress", d)
			}
			if tt.restartErr != nil {
				tt.restartErr(t, <-restarted)
			}
		})
	}
}

// Configure runs under the start's Describe, whose deadline is at most
// DefaultGuardrailTimeout, as Plugin.Configure documents.
func TestConfigureDeadline(t *testing.T) {
	var left time.Duration
	p := Plugin{
		Name: "p", Version: "1.0.0",
		Guardrail: guardrail.Func(func(context.Context, guardrail.Action) (guardrail.Decision, error) { return guardrail.Decision{}, nil }),
		Configure: func(ctx context.Context, _ map[string]string) error {
			d, ok := ctx.Deadline()
			if !ok {
				return errors.New("no deadline")
			}
			left = time.Until(d)
			return nil
		},
	}
	h, err := openInProcess(t.Context(), "p", p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if left <= 0 || left > DefaultGuardrailTimeout {
		t.Errorf("Configure had %v, want at most %v", left, DefaultGuardrailTimeout)
	}
}
