package source

import (
	"strings"
	"sync"
)

// Kind names a source: which reader (and command) a --source URL takes.
type Kind string

const (
	// MySQL is the MySQL/MariaDB row binlog (mysql/binlog): replicate.
	MySQL Kind = "mysql"
	// Postgres is PostgreSQL's logical decoding (postgres/pgoutput): the
	// way back (internal/reverse).
	Postgres Kind = "postgres"
)

// Default is the kind of a URL whose scheme no source registered (or no
// URL): sluice's first source, whose URL parsing then gives the message
// that names the schemes it takes.
const Default = MySQL

// The registry is written only by the source packages' init functions
// (before main runs) and read afterwards, like internal/target's.
var (
	mu    sync.RWMutex
	kinds = map[string]Kind{}
)

// Register makes Of return k for URLs with any of schemes; it is called
// from a source package's init. A scheme registered twice panics, as a
// programming error.
func Register(k Kind, schemes ...string) {
	mu.Lock()
	defer mu.Unlock()
	for _, s := range schemes {
		if _, dup := kinds[s]; dup {
			panic("source: scheme " + s + " registered twice")
		}
		kinds[s] = k
	}
}

// Of is the kind of source rawURL names, by its scheme (case-insensitive):
// Default for a scheme no source registered. It does no I/O and never
// fails: the source's own URL parsing refuses what it cannot read.
func Of(rawURL string) Kind {
	scheme, _, ok := strings.Cut(rawURL, "://")
	if !ok {
		return Default
	}
	mu.RLock()
	defer mu.RUnlock()
	if k, ok := kinds[strings.ToLower(scheme)]; ok {
		return k
	}
	return Default
}
