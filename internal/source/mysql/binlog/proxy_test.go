package binlog

import (
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// cutProxy forwards TCP connections to a server and can cut them all, the
// way a network failure does, or freeze them (bytes stop flowing, the
// connections stay open, as behind a dead NAT entry), while still accepting
// and serving new ones.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	cuts   int
	// frozen is the number of the last generation of connections frozen;
	// connections accepted after a freeze belong to the next generation.
	frozen     atomic.Int64
	generation atomic.Int64
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target}
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.cut()
	})
	return p
}

func (p *cutProxy) port() int {
	_, port, _ := net.SplitHostPort(p.ln.Addr().String())
	n, _ := strconv.Atoi(port)
	return n
}

func (p *cutProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		gen := p.generation.Load()
		go func() { p.pipe(s, c, gen); s.Close() }()
		go func() { p.pipe(c, s, gen); c.Close() }()
	}
}

// pipe copies from src to dst until an error or until its generation is
// frozen; a frozen pipe keeps both ends open and drops what it reads.
func (p *cutProxy) pipe(dst, src net.Conn, gen int64) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		if p.frozen.Load() > gen {
			continue
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}

// freeze stops the bytes of every open connection without closing it.
func (p *cutProxy) freeze() {
	p.frozen.Store(p.generation.Add(1))
}

// cut closes every open connection.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		// RST, not FIN: data in flight is lost, as when a network fails.
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		c.Close()
	}
	p.conns = nil
	p.cuts++
}
