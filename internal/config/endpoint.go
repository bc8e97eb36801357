// Package config turns command-line flags, SLUICE_* environment variables and
// a YAML file into settings, and parses the source and target URLs. Passwords
// never leave this package except inside driver connection strings.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// MySQL is a parsed mysql:// URL (MySQL 5.7/8.0 and MariaDB).
type MySQL struct {
	Host     string
	Port     int
	User     string
	Password string
	Database string // may be empty: then every non-system database is in scope
	Params   url.Values
	// Hosts is every host:port of a multi-host source URL, in order (Host
	// and Port are the first); nil for one host (multihost.go).
	Hosts []string
}

// Postgres is a parsed postgres:// URL (PostgreSQL and openGauss).
type Postgres struct {
	Host     string
	Port     int
	User     string
	Password string
	Database string
	Params   url.Values
	raw      *url.URL
}

// ParseSource parses mysql://user:pass@host:port/db?param=value.
// The host may be a list, host:port,host:port (multihost.go).
func ParseSource(s string) (MySQL, error) {
	s, hosts, err := splitHosts("source", s)
	if err != nil {
		return MySQL{}, err
	}
	u, err := parseURL("source", s, "mysql", "mariadb")
	if err != nil {
		return MySQL{}, err
	}
	m, err := mysqlFromURL("source", u)
	if err != nil {
		return MySQL{}, err
	}
	return m.withHosts("source", hosts)
}

func mysqlFromURL(side string, u *url.URL) (MySQL, error) {
	m := MySQL{Host: u.Hostname(), Port: 3306, User: u.User.Username(), Params: u.Query()}
	m.Password, _ = u.User.Password()
	if p := u.Port(); p != "" {
		var err error
		if m.Port, err = strconv.Atoi(p); err != nil {
			return MySQL{}, fmt.Errorf("%s: invalid port %q", side, p)
		}
	}
	m.Database = strings.Trim(u.Path, "/")
	if m.Host == "" {
		m.Host = "127.0.0.1"
	}
	if m.User == "" {
		return MySQL{}, fmt.Errorf("%s: no user in the URL (mysql://user:password@host:port/db)", side)
	}
	return m, nil
}

// Target is a parsed --target: PostgreSQL (and openGauss), or MySQL/MariaDB.
// Exactly one of the two is set. Commands open their target as an engine
// (internal/target, whose engines parse their own URLs with ParseTarget
// and ParseMySQLTarget); Target is what a database engine's settings are
// (target.Parsed).
type Target struct {
	Postgres *Postgres
	MySQL    *MySQL
}

// ParseMySQLTarget parses a mysql:// (or mariadb://) target: its database
// receives the tables, so it must be named.
func ParseMySQLTarget(s string) (MySQL, error) {
	u, err := parseURL("target", s, "mysql", "mariadb")
	if err != nil {
		return MySQL{}, err
	}
	m, err := mysqlFromURL("target", u)
	if err != nil {
		return MySQL{}, err
	}
	if m.Database == "" {
		return MySQL{}, errors.New("target: no database in the URL: mysql://user:password@host:port/database names the database that receives the tables")
	}
	return m, nil
}

// ParseTarget parses postgres://user:pass@host:port/db?sslmode=disable.
func ParseTarget(s string) (Postgres, error) {
	u, err := parseURL("target", s, "postgres", "postgresql", "opengauss")
	if err != nil {
		return Postgres{}, err
	}
	p := Postgres{Host: u.Hostname(), Port: 5432, User: u.User.Username(), Params: u.Query(), raw: u}
	p.Password, _ = u.User.Password()
	if ps := u.Port(); ps != "" {
		if p.Port, err = strconv.Atoi(ps); err != nil {
			return Postgres{}, fmt.Errorf("target: invalid port %q", ps)
		}
	}
	p.Database = strings.Trim(u.Path, "/")
	if p.Host == "" {
		p.Host = "127.0.0.1"
	}
	return p, nil
}

// ParseURL parses a URL of one of schemes for side ("source", "target")
// with parseURL's messages: internal/target's registry picks the engine by
// the scheme it returns.
func ParseURL(side, s string, schemes ...string) (*url.URL, error) {
	return parseURL(side, s, schemes...)
}

// parseURL parses without ever echoing the URL (it holds the password).
func parseURL(side, s string, schemes ...string) (*url.URL, error) {
	if s == "" {
		return nil, fmt.Errorf("%s: no URL given (--%s, SLUICE_%s or the config file)", side, side, strings.ToUpper(side))
	}
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error repeats the whole URL, password included
		}
		return nil, fmt.Errorf("%s: not a valid URL: %v", side, err)
	}
	for _, sc := range schemes {
		if u.Scheme == sc {
			return u, nil
		}
	}
	return nil, UnsupportedScheme(side, u.Scheme, schemes[0])
}

// UnsupportedScheme refuses a URL scheme of side, suggesting want.
func UnsupportedScheme(side, scheme, want string) error {
	return fmt.Errorf("%s: URL scheme %q is not supported; use %s://user:password@host:port/database", side, scheme, want)
}

// Addr is host:port.
func (m MySQL) Addr() string { return net.JoinHostPort(m.Host, strconv.Itoa(m.Port)) }

// Redacted is the URL with the password replaced, safe for logs.
func (m MySQL) Redacted() string {
	return redacted("mysql", m.User, m.Password, m.addrs(), m.Database)
}

// WithoutPassword is the URL without its password, for a command line to
// copy (the password then comes from a file or the environment).
func (m MySQL) WithoutPassword() string {
	return redacted("mysql", m.User, "", m.addrs(), m.Database)
}

// Config returns a go-sql-driver configuration with sluice's session
// settings: utf8mb4 text, UTC timestamps, no time parsing (typemap parses).
func (m MySQL) Config() *mysql.Config {
	c := mysql.NewConfig()
	c.User, c.Passwd, c.Net, c.Addr, c.DBName = m.User, m.Password, "tcp", m.Addr(), m.Database
	c.Params = map[string]string{"time_zone": "'+00:00'"}
	for k, v := range m.Params {
		if len(v) > 0 && !isTLSParam(k) {
			c.Params[k] = v[0]
		}
	}
	c.Collation = "utf8mb4_general_ci"
	c.ParseTime = false
	c.MaxAllowedPacket = 0 // read max_allowed_packet from the server: 16 MB blobs and more
	c.Timeout = 10 * time.Second
	c.ReadTimeout = 0
	c.InterpolateParams = false
	c.AllowNativePasswords = true
	return c
}

// DSN is the go-sql-driver/mysql data source name. It carries the tls
// modes the driver itself knows (true, false, skip-verify, preferred) but not
// CA or client certificate files: sluice's own connections use OpenDB.
func (m MySQL) DSN() string {
	c := m.Config()
	switch t := strings.ToLower(m.Params.Get("tls")); t {
	case "true", "false", "skip-verify", "preferred":
		c.Params["tls"] = t
	}
	return c.FormatDSN()
}

// WithDatabase returns a copy pointing at another database.
func (m MySQL) WithDatabase(db string) MySQL { m.Database = db; return m }

// Addr is host:port.
func (p Postgres) Addr() string { return net.JoinHostPort(p.Host, strconv.Itoa(p.Port)) }

// Redacted is the URL with the password replaced, safe for logs.
func (p Postgres) Redacted() string {
	return redacted("postgres", p.User, p.Password, p.Addr(), p.Database)
}

// WithoutPassword is the URL without its password, for a command line to
// copy (the password then comes from a file or the environment).
func (p Postgres) WithoutPassword() string {
	return redacted("postgres", p.User, "", p.Addr(), p.Database)
}

// ConnString is what pgx.ParseConfig takes.
func (p Postgres) ConnString() string {
	if p.raw != nil {
		u := *p.raw
		q := u.Query()
		if q.Get("connect_timeout") == "" {
			q.Set("connect_timeout", "10")
		}
		if q.Get("sslmode") == "" {
			q.Set("sslmode", "prefer")
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	u := url.URL{Scheme: "postgres", Host: p.Addr(), Path: "/" + p.Database}
	if p.Password != "" {
		u.User = url.UserPassword(p.User, p.Password)
	} else if p.User != "" {
		u.User = url.User(p.User)
	}
	return u.String()
}

func redacted(scheme, user, pass, addr, db string) string {
	cred := user
	if pass != "" {
		cred += ":xxxxx"
	}
	if cred != "" {
		cred += "@"
	}
	return scheme + "://" + cred + addr + "/" + db
}

// isTLSParam reports the URL parameters that are sluice's TLS settings
// (tls.go), not session variables for the driver.
func isTLSParam(k string) bool {
	for _, p := range mysqlTLSParams {
		if strings.EqualFold(k, p) {
			return true
		}
	}
	return false
}
