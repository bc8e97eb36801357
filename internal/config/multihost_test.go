package config

import (
	"slices"
	"strings"
	"testing"
)

// TestMultiHostSource: a host list parses into every host in order (the
// default port where none is given), Host/Port are the first, each
// candidate is a one-host URL with the same user, password, database and
// parameters, and Redacted shows every host but never the password.
func TestMultiHostSource(t *testing.T) {
	m, err := ParseSource("mysql://app:pw%2Fx@db1:3307,db2,[::1]:3309/shop?tls=false")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"db1:3307", "db2:3306", "[::1]:3309"}
	if !slices.Equal(m.Hosts, want) || m.Host != "db1" || m.Port != 3307 {
		t.Fatalf("hosts %v host %s port %d", m.Hosts, m.Host, m.Port)
	}
	if m.User != "app" || m.Password != "pw/x" || m.Database != "shop" || m.Params.Get("tls") != "false" {
		t.Fatalf("parsed %+v", m)
	}
	if got := m.Redacted(); got != "mysql://app:xxxxx@db1:3307,db2:3306,[::1]:3309/shop" {
		t.Errorf("redacted %s", got)
	}
	if got := m.WithoutPassword(); got != "mysql://app@db1:3307,db2:3306,[::1]:3309/shop" {
		t.Errorf("without password %s", got)
	}
	cs := m.Candidates()
	var addrs []string
	for _, c := range cs {
		addrs = append(addrs, c.Addr())
		if c.Hosts != nil || c.User != "app" || c.Password != "pw/x" || c.Database != "shop" || c.Params.Get("tls") != "false" {
			t.Errorf("candidate %+v", c)
		}
	}
	if !slices.Equal(addrs, want) {
		t.Errorf("candidates %v", addrs)
	}
	one, err := ParseSource("mysql://app@db1/shop")
	if err != nil || one.Hosts != nil || len(one.Candidates()) != 1 || one.Candidates()[0].Addr() != "db1:3306" {
		t.Errorf("single host %+v %v", one, err)
	}
}

// TestMultiHostRefusals: an empty host, a bad port or a host twice is
// refused naming the host list, never echoing the password.
func TestMultiHostRefusals(t *testing.T) {
	for _, s := range []string{
		"mysql://app:hunter2@db1:3306,,db2/shop",
		"mysql://app:hunter2@db1:3306,db2:99999/shop",
		"mysql://app:hunter2@db1:x,db2/shop",
		"mysql://app:hunter2@db1,db1:3306/shop",
	} {
		_, err := ParseSource(s)
		if err == nil {
			t.Errorf("%s: accepted", s)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "host") {
			t.Errorf("%s: %v", s, err)
		}
	}
}

// TestMultiHostPasswordMerged: the password from a file or the environment
// reaches a multi-host URL (net/url alone cannot parse db1:3306,db2), and
// the command line's copy of such a URL is redacted with every host kept.
func TestMultiHostPasswordMerged(t *testing.T) {
	clearEnv(t)
	t.Setenv("SLUICE_SOURCE_PASSWORD", "p@ss:w/rd")
	fs := connFlags()
	if err := fs.Parse([]string{"--source", "mysql://app@db1:3306,db2/shop"}); err != nil {
		t.Fatal(err)
	}
	k, _, err := Load(fs, "")
	if err != nil {
		t.Fatal(err)
	}
	src, err := ParseSource(k.String("source"))
	if err != nil || src.Password != "p@ss:w/rd" || !slices.Equal(src.Hosts, []string{"db1:3306", "db2:3306"}) {
		t.Fatalf("source %+v: %v", src, err)
	}
	got := RedactArgs([]string{"--source=mysql://app:hunter2@db1:3306,db2/shop"})
	if want := "--source=mysql://app:xxxxx@db1:3306,db2:3306/shop"; got[0] != want {
		t.Errorf("RedactArgs %q, want %q", got[0], want)
	}
	if !URLHasPassword("mysql://app:hunter2@db1:3306,db2/shop") || URLHasPassword("mysql://app@db1:3306,db2/shop") {
		t.Error("URLHasPassword of a multi-host URL")
	}
}
