package config

import (
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"fmt"
	"os"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// TLS settings of a mysql:// URL, applied to every connection sluice opens
// to the source (the binlog stream included):
//
//	tls=true | verify-full   TLS, the server certificate verified, host name included
//	tls=verify-ca            TLS, the certificate verified against the CA, any host name
//	tls=skip-verify          TLS without verifying the certificate
//	tls=preferred            as skip-verify when the server offers TLS, plain otherwise
//	tls=false (default)      no TLS
//	ssl-ca=FILE              CA bundle (PEM) for verification (else the system's roots)
//	ssl-cert=FILE ssl-key=FILE   a client certificate
//
// The postgres:// URL takes libpq's sslmode, sslrootcert, sslcert and sslkey,
// which pgx reads itself.
var mysqlTLSParams = []string{"tls", "ssl-ca", "ssl-cert", "ssl-key"}

// TLSConfig returns the TLS configuration of the URL, nil for plain
// connections. preferred is true for tls=preferred (the client may fall back
// to a plain connection when the server has no TLS).
func (m MySQL) TLSConfig() (cfg *tls.Config, preferred bool, err error) {
	mode := strings.ToLower(m.Params.Get("tls"))
	ca, cert, key := m.Params.Get("ssl-ca"), m.Params.Get("ssl-cert"), m.Params.Get("ssl-key")
	if mode == "" && (ca != "" || cert != "") {
		mode = "verify-ca"
	}
	switch mode {
	case "", "false", "0", "disabled":
		return nil, false, nil
	case "true", "1", "verify-full", "verify-ca", "skip-verify", "preferred":
	default:
		return nil, false, fmt.Errorf("source: tls=%q: want true, verify-full, verify-ca, skip-verify, preferred or false", mode)
	}
	cfg = &tls.Config{ServerName: m.Host, MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, false, fmt.Errorf("source: ssl-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, false, fmt.Errorf("source: ssl-ca %s: no PEM certificate in it", ca)
		}
		cfg.RootCAs = pool
	}
	if cert != "" || key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, false, fmt.Errorf("source: ssl-cert/ssl-key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	switch mode {
	case "skip-verify", "preferred":
		cfg.InsecureSkipVerify = true
	case "verify-ca":
		// Verify the chain against the CA but not the host name.
		cfg.InsecureSkipVerify = true
		cfg.VerifyPeerCertificate = verifyChain(cfg.RootCAs)
	}
	return cfg, mode == "preferred", nil
}

// verifyChain checks the server's chain against roots (nil: the system's),
// without the host name.
func verifyChain(roots *x509.CertPool) func([][]byte, [][]*x509.Certificate) error {
	return func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) == 0 {
			return fmt.Errorf("the server sent no certificate")
		}
		certs := make([]*x509.Certificate, len(raw))
		for i, r := range raw {
			c, err := x509.ParseCertificate(r)
			if err != nil {
				return err
			}
			certs[i] = c
		}
		inter := x509.NewCertPool()
		for _, c := range certs[1:] {
			inter.AddCert(c)
		}
		_, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
		return err
	}
}

// OpenDB opens a database/sql pool with Config (TLS included). Every
// database/sql connection sluice makes to a MySQL server goes through it.
func (m MySQL) OpenDB() (*sql.DB, error) {
	c, err := m.DriverConfig()
	if err != nil {
		return nil, err
	}
	conn, err := mysql.NewConnector(c)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", m.Redacted(), err)
	}
	return sql.OpenDB(conn), nil
}

// DriverConfig is Config with the URL's TLS settings applied.
func (m MySQL) DriverConfig() (*mysql.Config, error) {
	c := m.Config()
	t, preferred, err := m.TLSConfig()
	if err != nil {
		return nil, err
	}
	if t != nil {
		c.TLS = t
		c.AllowFallbackToPlaintext = preferred
	}
	return c, nil
}
