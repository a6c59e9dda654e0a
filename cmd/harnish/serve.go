package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/web"
)

var serveCommand = &command{
	name:    "serve",
	args:    "[--dir DIR] [--addr 127.0.0.1:PORT] [--approve]",
	summary: "serve a live status page of the run in a working tree",
	help: `Serve serves the status page of the run recorded in DIR/.harnish/ (default:
the current directory) at http://ADDR/ until interrupted: the plan's
phases and tasks with their states, each task's failed attempts, the
spend over time, what runs now, and the milestone gate that waits. The
page follows the run live, whichever process drives it; a run started
after serve is shown once it starts. --addr defaults to 127.0.0.1:7780;
port 0 picks a free one. An address beyond this machine is served with a
warning: anyone who reaches it sees the run.

The page is read-only unless --approve: then it offers to approve the gate
the run waits at, as "harnish resume --approve" does (the run goes on in
this process, its progress on stdout), to whoever gives the token. The
token is $HARNISH_APPROVE_TOKEN when set (at least 16 bytes), else a new
one printed on stderr.

Exit status: 0 when interrupted; 1 usage or internal error.
`,
	run: runServe,
}

// defaultServeAddr is where harnish serve listens unless told.
const defaultServeAddr = "127.0.0.1:7780"

type serveFlags struct {
	dir, addr string
	approve   bool
	token     string
	// ready, for tests, is told the address once the page is served.
	ready func(addr string)
}

func runServe(c *command, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := &serveFlags{}
	fs.StringVar(&f.dir, "dir", ".", "the working tree")
	fs.StringVar(&f.addr, "addr", defaultServeAddr, "the address to serve at")
	fs.BoolVar(&f.approve, "approve", false, "let the page approve the gate the run waits at, with a token")
	if code, ok := c.parse(fs, args, stdout, stderr, nil); !ok {
		return code
	}
	f.token = os.Getenv("HARNISH_APPROVE_TOKEN")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, f, stdout, stderr)
}

// serve serves the page until ctx ends.
func serve(ctx context.Context, f *serveFlags, stdout, stderr io.Writer) int {
	stateDir := filepath.Join(f.dir, loop.StateDir)
	cfg := web.Config{Dir: stateDir}
	if f.approve {
		if f.token == "" {
			var b [16]byte
			rand.Read(b[:])
			f.token = hex.EncodeToString(b[:])
			fmt.Fprintf(stderr, "harnish serve: approval token: %s\n", f.token)
		}
		cfg.Token, cfg.Approve = f.token, approver(f.dir, stdout, stderr)
	}
	h, err := web.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "harnish serve: %v\n", err)
		return exitError
	}
	defer h.Close()
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		fmt.Fprintf(stderr, "harnish serve: %v\n", err)
		return exitError
	}
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		fmt.Fprintf(stderr, "harnish serve: warning: %s is reachable beyond this machine: whoever reaches it sees the run\n", ln.Addr())
	}
	fmt.Fprintf(stderr, "harnish serve: the run in %s at http://%s/\n", stateDir, ln.Addr())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if f.ready != nil {
		f.ready(ln.Addr().String())
	}
	select {
	case err = <-served:
	case <-ctx.Done():
		h.Close() // the live streams end, so Shutdown does not wait for them
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = srv.Shutdown(sctx)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "harnish serve: %v\n", err)
		return exitError
	}
	return exitOK
}

// approver approves a gate as "harnish resume --approve" does, in this
// process: it returns once the run is opened (an error when another
// process holds it), and the run goes on in the background, printing its
// progress to stdout.
func approver(dir string, stdout, stderr io.Writer) func(ctx context.Context, phase string) error {
	return func(ctx context.Context, phase string) error {
		opened := make(chan error, 1)
		f := &runFlags{dir: dir, appr: true, noPrompt: true, opened: func(err error) { opened <- err }}
		plan, err := prepareResume(f, stderr)
		if err != nil {
			return err
		}
		go func() {
			code := drive(f, plan, stdout, stderr, resume(true))
			select {
			case opened <- fmt.Errorf("the run could not be resumed (exit %d): see the server's log", code):
			default:
			}
		}()
		select {
		case err := <-opened:
			return err
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}
