package config

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// A source URL may name several servers of one replication topology, the
// multi-host form libpq and JDBC use:
//
//	mysql://user@db1:3306,db2:3306,db3/shop
//
// Host and Port are the first one (every command but replicate connects
// there); replicate follows the source to whichever of them is the primary
// after a failover (internal/source/mysql/binlog failover.go). Each host
// without a port gets the URL's default, 3306.

// splitHosts takes the host list out of a URL: the URL with only the first
// host (which net/url parses) and every host:port, nil for a single host.
// The URL is never echoed (it may hold a password).
func splitHosts(side, s string) (string, []string, error) {
	start, end, ok := hostListSpan(s)
	if !ok || !strings.Contains(s[start:end], ",") {
		return s, nil, nil
	}
	var hosts []string
	for _, h := range strings.Split(s[start:end], ",") {
		addr, err := normalizeHost(h)
		if err != nil {
			return "", nil, fmt.Errorf("%s: host %d of the host list: %w (write host:port,host:port)", side, len(hosts)+1, err)
		}
		hosts = append(hosts, addr)
	}
	return s[:start] + hosts[0] + s[end:], hosts, nil
}

// joinHosts puts a host list taken out by splitHosts back into a URL whose
// host part is the first host.
func joinHosts(s string, hosts []string) string {
	if len(hosts) < 2 {
		return s
	}
	start, end, ok := hostListSpan(s)
	if !ok {
		return s
	}
	return s[:start] + strings.Join(hosts, ",") + s[end:]
}

// hostListSpan is where the host list is in scheme://user:pass@hosts/path.
func hostListSpan(s string) (start, end int, ok bool) {
	i := strings.Index(s, "://")
	if i < 0 {
		return 0, 0, false
	}
	start = i + 3
	end = len(s)
	if j := strings.IndexAny(s[start:], "/?#"); j >= 0 {
		end = start + j
	}
	if at := strings.LastIndexByte(s[start:end], '@'); at >= 0 {
		start += at + 1
	}
	return start, end, true
}

// normalizeHost is host:port with the default port when none is given.
func normalizeHost(h string) (string, error) {
	if h == "" {
		return "", fmt.Errorf("empty host")
	}
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
			return "", fmt.Errorf("%q is not host:port", h)
		}
		host, port = strings.Trim(h, "[]"), "3306"
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return "", fmt.Errorf("invalid port %q", port)
	}
	if host == "" {
		return "", fmt.Errorf("empty host")
	}
	return net.JoinHostPort(host, port), nil
}

// withHosts records a multi-host URL's hosts in m.
func (m MySQL) withHosts(side string, hosts []string) (MySQL, error) {
	if len(hosts) < 2 {
		return m, nil
	}
	seen := map[string]bool{}
	for _, h := range hosts {
		if seen[h] {
			return MySQL{}, fmt.Errorf("%s: host %s is twice in the host list", side, h)
		}
		seen[h] = true
	}
	m.Hosts = hosts
	return m, nil
}

// Candidates are the servers of the URL in order, each as a one-host URL:
// one element for a single host.
func (m MySQL) Candidates() []MySQL {
	if len(m.Hosts) < 2 {
		return []MySQL{m}
	}
	out := make([]MySQL, 0, len(m.Hosts))
	for _, h := range m.Hosts {
		c := m
		c.Hosts = nil
		host, port, _ := net.SplitHostPort(h) // normalized by splitHosts
		c.Host = host
		c.Port, _ = strconv.Atoi(port)
		out = append(out, c)
	}
	return out
}

// addrs is the URL's host list as written in a URL: host:port,host:port.
func (m MySQL) addrs() string {
	if len(m.Hosts) < 2 {
		return m.Addr()
	}
	return strings.Join(m.Hosts, ",")
}
