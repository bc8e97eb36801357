package config

import (
	"fmt"
	"net/url"
	"strings"
)

// TLSFlags are the --source-ssl-* / --target-ssl-* flags: the same settings
// as the URL parameters, for operators who keep certificate paths out of
// URLs. A flag overrides the URL's parameter. Mode takes the common words
// (disable, require, verify-ca, verify-full, prefer) and each engine's own
// (MySQL: false, true, skip-verify, preferred; libpq: allow).
type TLSFlags struct {
	Mode, CA, Cert, Key string
}

func (f TLSFlags) empty() bool { return f == TLSFlags{} }

// mysqlModes maps the accepted modes to the mysql:// URL's tls values.
var mysqlModes = map[string]string{
	"disable": "false", "disabled": "false", "false": "false",
	"require": "skip-verify", "required": "skip-verify", "skip-verify": "skip-verify",
	"verify-ca": "verify-ca", "verify-full": "verify-full", "true": "verify-full",
	"prefer": "preferred", "preferred": "preferred",
}

// pgModes maps the accepted modes to libpq's sslmode values.
var pgModes = map[string]string{
	"disable": "disable", "disabled": "disable", "false": "disable", "allow": "allow",
	"require": "require", "required": "require", "skip-verify": "require",
	"verify-ca": "verify-ca", "verify-full": "verify-full", "true": "verify-full",
	"prefer": "prefer", "preferred": "prefer",
}

// ApplyTLSFlags sets the URL's TLS parameters from the flags of side
// ("source" or "target").
func (m *MySQL) ApplyTLSFlags(side string, f TLSFlags) error {
	if f.empty() {
		return nil
	}
	if m.Params == nil {
		m.Params = url.Values{}
	}
	if f.Mode != "" {
		v, ok := mysqlModes[strings.ToLower(f.Mode)]
		if !ok {
			return fmt.Errorf("--%s-ssl-mode %q: want disable, require, verify-ca, verify-full or prefer", side, f.Mode)
		}
		m.Params.Set("tls", v)
	}
	for k, v := range map[string]string{"ssl-ca": f.CA, "ssl-cert": f.Cert, "ssl-key": f.Key} {
		if v != "" {
			m.Params.Set(k, v)
		}
	}
	return nil
}

// ApplyTLSFlags sets libpq's sslmode, sslrootcert, sslcert and sslkey.
func (p *Postgres) ApplyTLSFlags(f TLSFlags) error {
	if f.empty() {
		return nil
	}
	if p.Params == nil {
		p.Params = url.Values{}
	}
	set := func(k, v string) {
		p.Params.Set(k, v)
		if p.raw != nil {
			q := p.raw.Query()
			q.Set(k, v)
			u := *p.raw
			u.RawQuery = q.Encode()
			p.raw = &u
		}
	}
	if f.Mode != "" {
		v, ok := pgModes[strings.ToLower(f.Mode)]
		if !ok {
			return fmt.Errorf("--target-ssl-mode %q: want disable, require, verify-ca, verify-full or prefer", f.Mode)
		}
		set("sslmode", v)
	}
	for k, v := range map[string]string{"sslrootcert": f.CA, "sslcert": f.Cert, "sslkey": f.Key} {
		if v != "" {
			set(k, v)
		}
	}
	return nil
}
