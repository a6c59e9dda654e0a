package plugins

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/harnish/harnish/plugins/internal/hostlink"
)

func init() {
	hostlink.InProcess = func(ctx context.Context, name string, p any, settings map[string]string) (any, error) {
		return openInProcess(ctx, name, p.(Plugin), settings)
	}
}

// openInProcess is a Host of one plugin served in this process: no
// handshake, no process, the rest as with Open.
func openInProcess(ctx context.Context, name string, p Plugin, settings map[string]string) (*Host, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	spec := Spec{Name: name, Settings: settings}
	start := func(ctx context.Context) (*instance, error) {
		lis := bufconn.Listen(1 << 20)
		srv := grpc.NewServer()
		register(srv, &p)
		go func() { _ = srv.Serve(lis) }()
		conn, err := grpc.NewClient("passthrough:///"+name,
			grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
			grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			srv.Stop()
			return nil, fmt.Errorf("plugins: in-process %q: %w", name, err)
		}
		inst := &instance{
			conn:  limitedConn{conn},
			alive: func() bool { return true },
			stop:  sync.OnceFunc(func() { conn.Close(); srv.Stop() }),
			tail:  func() string { return "" },
		}
		if inst.info, err = describe(ctx, inst.conn, spec); err != nil {
			inst.stop()
			return nil, err
		}
		return inst, nil
	}
	if strings.TrimSpace(name) == "" {
		return nil, fmt.Errorf("plugins: in-process plugin needs a name")
	}
	return openWith(ctx, []Spec{spec}, map[string]startFunc{name: start})
}
