package testenv

import (
	"net"
	"sync"
	"testing"
)

// TCPProxy forwards 127.0.0.1 connections to a server, for tests of the
// network between sluice and a server: Cut stops forwarding either way
// while keeping every connection open (a partition: no RST, no FIN), and
// Retarget sends new connections to another server and ends the current
// ones (a virtual IP or a DNS name that moves to a promoted replica).
type TCPProxy struct {
	ln     net.Listener
	mu     sync.Mutex
	target string
	cut    bool
	healed *sync.Cond
	conns  map[net.Conn]bool
}

// StartTCPProxy listens on a free port until the test ends.
func StartTCPProxy(t testing.TB, target string) *TCPProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &TCPProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	p.healed = sync.NewCond(&p.mu)
	t.Cleanup(func() { p.Cut(false); _ = ln.Close(); p.closeAll() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

// Port is the proxy's port on 127.0.0.1.
func (p *TCPProxy) Port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// Cut stops (true) or resumes (false) forwarding.
func (p *TCPProxy) Cut(cut bool) {
	p.mu.Lock()
	p.cut = cut
	p.mu.Unlock()
	p.healed.Broadcast()
}

// Retarget sends new connections to target and ends the open ones.
func (p *TCPProxy) Retarget(target string) {
	p.mu.Lock()
	p.target = target
	p.mu.Unlock()
	p.closeAll()
}

func (p *TCPProxy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
	p.conns = map[net.Conn]bool{}
}

func (p *TCPProxy) waitHealed() {
	p.mu.Lock()
	for p.cut {
		p.healed.Wait()
	}
	p.mu.Unlock()
}

func (p *TCPProxy) serve(c net.Conn) {
	p.mu.Lock()
	target := p.target
	p.mu.Unlock()
	u, err := net.Dial("tcp", target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	p.conns[c], p.conns[u] = true, true
	p.mu.Unlock()
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			p.waitHealed() // what arrives while cut is held until the network heals
			if n > 0 {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		_ = dst.Close()
		_ = src.Close()
	}
	go pipe(u, c)
	go pipe(c, u)
}
