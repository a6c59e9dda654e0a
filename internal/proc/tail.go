package proc

import "unicode/utf8"

// TailChars is how many characters of each stream a [Tail] made by
// [NewTail] keeps.
const TailChars = 8000

// Tail is an io.Writer that keeps the last characters written to it in a
// fixed-size ring buffer: writing any amount costs no more memory than the
// ring. It is not safe for concurrent use.
type Tail struct {
	buf   []byte // the ring; len(buf) is its capacity in bytes
	chars int    // how many characters String returns at most
	w     int    // next write position
	n     int64  // bytes written in all
}

// NewTail returns a Tail keeping the last chars characters. It holds
// 4×chars bytes, enough for chars characters of any UTF-8 text.
func NewTail(chars int) *Tail {
	return &Tail{buf: make([]byte, max(4*chars, 4)), chars: chars}
}

// Write keeps the end of p; it never fails.
func (t *Tail) Write(p []byte) (int, error) {
	n := len(p)
	t.n += int64(n)
	if len(p) >= len(t.buf) {
		copy(t.buf, p[len(p)-len(t.buf):])
		t.w = 0
		return n, nil
	}
	c := copy(t.buf[t.w:], p)
	if c < len(p) {
		copy(t.buf, p[c:])
	}
	t.w = (t.w + len(p)) % len(t.buf)
	return n, nil
}

// String returns the last characters written, at most the Tail's limit,
// starting at a character boundary. Invalid UTF-8 is kept as it is; only a
// character cut in two by the ring's edge is dropped.
func (t *Tail) String() string {
	var b []byte
	if t.n < int64(len(t.buf)) {
		b = t.buf[:t.w]
	} else {
		b = make([]byte, 0, len(t.buf))
		b = append(b, t.buf[t.w:]...)
		b = append(b, t.buf[:t.w]...)
		// Drop continuation bytes of a character whose start was overwritten.
		for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
			b = b[1:]
		}
	}
	// Keep the last t.chars characters.
	i, count := len(b), 0
	for i > 0 && count < t.chars {
		_, size := utf8.DecodeLastRune(b[:i])
		i -= size
		count++
	}
	return string(b[i:])
}
