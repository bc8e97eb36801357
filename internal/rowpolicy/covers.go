package rowpolicy

import (
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// Covers reports whether a recorded policy (its Describe lines, or their
// fragments when a state store joined them) filters or masks table t:
// what a command that does not apply policies (verify, cutover) must
// refuse whichever stream name it is given. Names compare
// case-insensitively and a line it cannot read is skipped, so that in
// doubt it covers more, never less.
func Covers(lines []string, t schema.TableID) bool {
	for _, l := range lines {
		l = strings.TrimSpace(l)
		var spec string
		switch {
		case strings.HasPrefix(l, "mask key fingerprint"):
			continue
		case strings.HasPrefix(l, "where "):
			spec, _, _ = strings.Cut(strings.TrimPrefix(l, "where "), ": ")
		case strings.HasPrefix(l, "mask "):
			spec, _, _ = strings.Cut(strings.TrimPrefix(l, "mask "), "=")
		default:
			continue
		}
		db, rest, ok := strings.Cut(spec, ".")
		if !ok || (db != "*" && !strings.EqualFold(db, t.Database)) {
			continue
		}
		table, _, _ := strings.Cut(rest, ".")
		if table == "*" || strings.EqualFold(table, t.Name) {
			return true
		}
	}
	return false
}
