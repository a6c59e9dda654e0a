package proc

import (
	"io"
	"os"
	"sync"
	"time"
)

// readBuf is the read size for output: a command that writes a lot costs
// few system calls, and each read overwrites the tails at most once.
const readBuf = 1 << 20

// output collects a command's stdout and stderr through pipes of its own,
// so that it, not os/exec, decides how long to wait for them: a grandchild
// that escaped the kill and still holds a pipe is cut off after the grace
// period.
type output struct {
	mu             sync.Mutex // guards the tails and extra
	out, err, all  *Tail
	extra          io.Writer
	stdout, stderr pipe
	wg             sync.WaitGroup
}

type pipe struct{ r, w *os.File }

func newOutput(extra io.Writer) (*output, error) {
	o := &output{out: NewTail(TailChars), err: NewTail(TailChars), all: NewTail(TailChars), extra: extra}
	var err error
	if o.stdout.r, o.stdout.w, err = os.Pipe(); err != nil {
		return nil, err
	}
	if o.stderr.r, o.stderr.w, err = os.Pipe(); err != nil {
		o.close()
		return nil, err
	}
	growPipe(o.stdout.r)
	return o, nil
}

// started closes the parent's write ends and starts copying.
func (o *output) started() {
	o.stdout.w.Close()
	o.stderr.w.Close()
	o.wg.Go(func() { o.copy(o.stdout.r, o.out, true) })
	o.wg.Go(func() { o.copy(o.stderr.r, o.err, false) })
}

func (o *output) copy(r io.Reader, own *Tail, extra bool) {
	buf := make([]byte, readBuf)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			o.mu.Lock()
			own.Write(buf[:n])
			o.all.Write(buf[:n])
			if extra && o.extra != nil {
				if _, werr := o.extra.Write(buf[:n]); werr != nil {
					o.extra = nil // the caller's writer failing stops only that writer
				}
			}
			o.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// wait waits for both streams to end, at most grace; then it closes the
// read ends, which ends the copies.
func (o *output) wait(grace time.Duration) {
	done := make(chan struct{})
	go func() {
		o.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-time.After(grace):
	}
	o.stdout.r.Close()
	o.stderr.r.Close()
	select {
	case <-done:
	case <-time.After(grace):
		// A read the close did not interrupt; the tails are read under
		// the lock, and extra is dropped so that it is not written after
		// Run returns.
		o.mu.Lock()
		o.extra = nil
		o.mu.Unlock()
	}
}

func (o *output) tails() (stdout, stderr, all string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.out.String(), o.err.String(), o.all.String()
}

func (o *output) close() {
	for _, f := range []*os.File{o.stdout.r, o.stdout.w, o.stderr.r, o.stderr.w} {
		if f != nil {
			f.Close()
		}
	}
}
