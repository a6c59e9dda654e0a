package plugins

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// call runs one RPC on hd's plugin under the call's deadline, and turns a
// transport fault into an [*Error] (or, when the caller gave up, an error
// wrapping its context's cause).
func call[T any](ctx context.Context, hd *handle, c Capability, rpc func(context.Context, grpc.ClientConnInterface) (T, error)) (T, error) {
	var zero T
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return zero, &Error{Plugin: hd.spec.Name, Kind: KindTimeout, Err: context.Cause(ctx)}
	case ctx.Err() != nil:
		return zero, fmt.Errorf("plugins: %q: %w", hd.spec.Name, context.Cause(ctx))
	}
	inst, err := hd.get(ctx)
	if err != nil {
		return zero, err
	}
	d := hd.timeout(c)
	timeoutErr := fmt.Errorf("call exceeded the plugin's timeout of %v", d)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		timeoutErr = context.DeadlineExceeded
	}
	cctx, cancel := context.WithTimeoutCause(ctx, d, timeoutErr)
	defer cancel()
	out, err := rpc(cctx, inst.conn)
	if err == nil {
		return out, nil
	}
	if hd.isClosed() {
		// Close ended the call ("client connection is closing"): not a
		// crash of the plugin.
		return zero, hd.closedErr()
	}
	var tail string
	if status.Code(err) == codes.Unavailable || !inst.alive() {
		tail = hd.lost(inst)
	}
	fault := transportFault(ctx, cctx, hd.spec.Name, err, tail, timeoutErr)
	if e, ok := errors.AsType[*Error](fault); ok && e.Kind == KindTimeout {
		// The plugin may still be at work on the abandoned call, with
		// whatever it started: end its tree; the next call starts afresh.
		hd.lost(inst)
	}
	return zero, fault
}

// MaxReplySize is the largest reply the host reads from a plugin, 16 MiB.
// go-plugin lets a connection receive up to 2 GiB; a plugin's reply beyond
// this fails its call with [ErrPluginProtocol] instead.
const MaxReplySize = 16 << 20

// limitedConn adds the host's reply limit to every call on a plugin's
// connection; a per-call option wins over go-plugin's dial default.
type limitedConn struct{ grpc.ClientConnInterface }

func (c limitedConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	return c.ClientConnInterface.Invoke(ctx, method, args, reply, append(opts, grpc.MaxCallRecvMsgSize(MaxReplySize))...)
}

func (c limitedConn) NewStream(ctx context.Context, desc *grpc.StreamDesc, method string, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	return c.ClientConnInterface.NewStream(ctx, desc, method, append(opts, grpc.MaxCallRecvMsgSize(MaxReplySize))...)
}

// transportFault classifies err from an RPC made with cctx, derived from
// the caller's ctx; timeoutErr says which deadline was in force.
func transportFault(ctx, cctx context.Context, name string, err error, tail string, timeoutErr error) error {
	fault := func(k Kind, err error) error { return &Error{Plugin: name, Kind: k, Err: err} }
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("plugins: %q: %w", name, context.Cause(ctx))
	case cctx.Err() != nil:
		return fault(KindTimeout, context.Cause(cctx))
	}
	st, _ := status.FromError(err)
	switch st.Code() {
	case codes.DeadlineExceeded:
		// The plugin's side saw the propagated deadline pass a moment before
		// ours did.
		return fault(KindTimeout, timeoutErr)
	case codes.ResourceExhausted:
		return fault(KindProtocol, fmt.Errorf("reply larger than the host's limit of %d MiB (%s)", MaxReplySize>>20, st.Message()))
	case codes.Unimplemented:
		return fault(KindUnavailable, errors.New(st.Message()))
	case codes.Unavailable, codes.Canceled, codes.Aborted:
		msg := st.Message()
		if tail = strings.TrimSpace(tail); tail != "" {
			msg += "; stderr: " + tail
		}
		return fault(KindCrashed, errors.New(msg))
	}
	return fault(KindProtocol, fmt.Errorf("%s: %s", st.Code(), st.Message()))
}
