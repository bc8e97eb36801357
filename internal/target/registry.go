package target

import (
	"fmt"
	"slices"
	"sync"

	"github.com/sluice-db/sluice/internal/config"
)

// Opener builds an engine from its URL and options, without I/O. Its
// errors are the engine's URL errors (they never echo the password).
type Opener func(rawURL string, o Options) (Engine, error)

// DefaultScheme is the scheme an unknown scheme's message suggests:
// sluice's first and default target.
const DefaultScheme = "postgres"

// The registry is the one piece of package state, like database/sql's
// drivers: it is written only by engine packages' init functions (before
// main runs) and read afterwards, so it is fixed for the life of the
// process. The mutex only guards against a Register outside init.
var (
	mu      sync.RWMutex
	openers = map[string]Opener{}
)

// Register makes Open use o for URLs with any of schemes. It is called
// from an engine package's init; a scheme registered twice panics, as a
// programming error.
func Register(o Opener, schemes ...string) {
	mu.Lock()
	defer mu.Unlock()
	for _, s := range schemes {
		if _, dup := openers[s]; dup {
			panic("target: scheme " + s + " registered twice")
		}
		openers[s] = o
	}
}

// Schemes lists the registered schemes, DefaultScheme first, then sorted.
func Schemes() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(openers))
	for s := range openers {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == DefaultScheme:
			return -1
		case b == DefaultScheme:
			return 1
		case a < b:
			return -1
		}
		return 1
	})
	return out
}

// Open picks the engine by the URL's scheme. Its errors are config's URL
// errors ("target: no URL given …", "target: URL scheme … is not
// supported; use postgres://…"), then the engine's.
func Open(rawURL string, o Options) (Engine, error) {
	schemes := Schemes()
	if len(schemes) == 0 {
		return nil, fmt.Errorf("target: no engine is registered (import internal/target/all)")
	}
	u, err := config.ParseURL("target", rawURL, schemes...)
	if err != nil {
		return nil, err
	}
	mu.RLock()
	op := openers[u.Scheme]
	mu.RUnlock()
	return op(rawURL, o)
}
