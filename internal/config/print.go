package config

import (
	"encoding/json"
	"log/slog"
)

// A connection setting printed by mistake — fmt's %v, %+v, %s or %#v, a slog
// attribute, JSON, or as a field of an Options struct — shows its redacted
// URL, never the password field.

func (m MySQL) String() string               { return m.Redacted() }
func (m MySQL) GoString() string             { return m.Redacted() }
func (m MySQL) LogValue() slog.Value         { return slog.StringValue(m.Redacted()) }
func (m MySQL) MarshalJSON() ([]byte, error) { return json.Marshal(m.Redacted()) }

func (p Postgres) String() string               { return p.Redacted() }
func (p Postgres) GoString() string             { return p.Redacted() }
func (p Postgres) LogValue() slog.Value         { return slog.StringValue(p.Redacted()) }
func (p Postgres) MarshalJSON() ([]byte, error) { return json.Marshal(p.Redacted()) }
