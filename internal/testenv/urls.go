package testenv

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// mysqlURL is a parsed mysql://user:pass@host:port/ URL. testenv parses its own URLs rather
// than using internal/config so that the test helper never depends on code under test.
type mysqlURL struct {
	User, Password, Host, Port string
}

func parseMySQLURL(s string) (mysqlURL, error) {
	u, err := url.Parse(s)
	if err != nil {
		// url.Parse's error quotes the whole input, password included: do not wrap it.
		return mysqlURL{}, errors.New("not a valid URL (want mysql://user:pass@host:port/)")
	}
	if u.Scheme != "mysql" && u.Scheme != "mariadb" {
		return mysqlURL{}, fmt.Errorf("%s: want mysql://user:pass@host:port/", redactURL(s))
	}
	m := mysqlURL{Host: u.Hostname(), Port: u.Port()}
	if u.User != nil {
		m.User = u.User.Username()
		m.Password, _ = u.User.Password()
	}
	if m.Host == "" {
		m.Host = "127.0.0.1"
	}
	if m.Port == "" {
		m.Port = "3306"
	}
	if m.User == "" {
		return mysqlURL{}, fmt.Errorf("%s: no user name", redactURL(s))
	}
	return m, nil
}

// URL is the mysql:// form for database db.
func (m mysqlURL) URL(db string) string {
	u := url.URL{Scheme: "mysql", User: url.UserPassword(m.User, m.Password),
		Host: net.JoinHostPort(m.Host, m.Port), Path: "/" + db}
	return u.String()
}

// Redacted is the URL without the password.
func (m mysqlURL) Redacted() string {
	return fmt.Sprintf("mysql://%s:xxxxx@%s/", m.User, net.JoinHostPort(m.Host, m.Port))
}

// DSN is the go-sql-driver form for database db with multiStatements=true and extra params.
func (m mysqlURL) DSN(db string, params map[string]string) string {
	cfg := mysql.NewConfig()
	cfg.User = m.User
	cfg.Passwd = m.Password
	cfg.Net = "tcp"
	cfg.Addr = net.JoinHostPort(m.Host, m.Port)
	cfg.DBName = db
	cfg.MultiStatements = true
	cfg.Params = map[string]string{"charset": "utf8mb4"}
	for k, v := range params {
		cfg.Params[k] = v
	}
	return cfg.FormatDSN()
}

// redactURL replaces the password of any URL with xxxxx; unparsable input is hidden entirely.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "<unparsable URL>"
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	return u.String()
}

// SplitPassword is u without its password, and the password: a URL as a
// user gives it with the password in a file or the environment.
func SplitPassword(t testing.TB, u string) (string, string) {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatalf("testenv: %s: not a URL", redactURL(u))
	}
	pw, _ := p.User.Password()
	p.User = url.User(p.User.Username())
	return p.String(), pw
}
