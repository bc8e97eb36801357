package binlog

import (
	"net"
	"testing"
	"time"
)

// A read that found little data makes the next one wait ReadCoalesce, so
// that the events arriving meanwhile are read in one go; a full read does
// not (a backlog is read at full speed).
func TestWatchedConnCoalesce(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	const wait = 30 * time.Millisecond
	c := &watchedConn{Conn: a, coalesce: wait}
	go func() {
		_, _ = b.Write([]byte("0123456789")) // short
		_, _ = b.Write(make([]byte, 64))     // fills the buffer
		_, _ = b.Write([]byte("x"))          // read without waiting
		_, _ = b.Write([]byte("y"))          // waits again
	}()
	buf := make([]byte, 64)
	for i, want := range []time.Duration{0, wait, 0, wait} {
		start := time.Now()
		if _, err := c.Read(buf); err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		if want > 0 && took < want {
			t.Errorf("read %d took %s, want at least %s", i, took, want)
		}
		if want == 0 && took >= wait {
			t.Errorf("read %d took %s, want no wait", i, took)
		}
	}
	if n := c.reads.Load(); n != 4 {
		t.Errorf("%d reads counted", n)
	}
}
