package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// StreamLockClass is the first key of the advisory lock pg_advisory_lock(int,
// int) that fences the apply sessions of a stream; the second key is
// hashtext(stream). Every apply session holds it in shared mode for its whole
// life, and a run starts by taking it exclusively (internal/sink/postgres/session.go).
const StreamLockClass = 7371727

// StreamRunning reports whether a replicator of the stream is connected to
// this target now: some session holds the stream's lock. verify uses it to
// decide whether rows may still be in flight.
func StreamRunning(ctx context.Context, q Querier, stream string) (bool, error) {
	hs, err := StreamHolders(ctx, q, stream)
	return len(hs) > 0, err
}

// Holder is a PostgreSQL session holding a stream's lock.
type Holder struct {
	Backend int32  // PostgreSQL backend pid
	Client  string // client address, "local" for a socket
	App     string // application_name (ApplicationName)
	State   string // pg_stat_activity.state: active, idle, idle in transaction...
	// PID and Host are the sluice process that opened the session, read
	// from App (0 and "" for a session that does not say).
	PID  int
	Host string
}

// ApplicationName is what an apply session of stream shows in
// pg_stat_activity: the sluice process (pid@host) first, so a second run
// can tell a live replicator from the sessions of a dead one; at most 63
// bytes (PostgreSQL cuts longer names).
func ApplicationName(stream string) string {
	host, _ := os.Hostname()
	s := fmt.Sprintf("sluice %d@%s apply %s", os.Getpid(), host, stream)
	if len(s) > 63 {
		s = s[:63]
	}
	return s
}

// StreamHolders lists the sessions holding the stream's lock, other than
// the caller's own.
func StreamHolders(ctx context.Context, q Querier, stream string) ([]Holder, error) {
	rows, err := q.Query(ctx, `SELECT a.pid, coalesce(a.client_addr::text, 'local'), a.application_name, coalesce(a.state, '')
		FROM pg_locks l JOIN pg_stat_activity a USING (pid)
		WHERE l.locktype = 'advisory' AND l.classid = $1 AND l.objid = hashtext($2)::oid AND l.objsubid = 2
			AND l.granted AND a.pid <> pg_backend_pid()
		ORDER BY a.pid`, StreamLockClass, stream)
	if err != nil {
		return nil, fmt.Errorf("is stream %q replicating: %w", stream, err)
	}
	defer rows.Close()
	var out []Holder
	for rows.Next() {
		var h Holder
		if err := rows.Scan(&h.Backend, &h.Client, &h.App, &h.State); err != nil {
			return nil, fmt.Errorf("is stream %q replicating: %w", stream, err)
		}
		h.PID, h.Host = parseApp(h.App)
		out = append(out, h)
	}
	return out, rows.Err()
}

// parseApp reads pid and host from an ApplicationName.
func parseApp(app string) (int, string) {
	f := strings.Fields(app)
	if len(f) < 2 || f[0] != "sluice" {
		return 0, ""
	}
	p, h, ok := strings.Cut(f[1], "@")
	if !ok {
		return 0, ""
	}
	pid, err := strconv.Atoi(p)
	if err != nil {
		return 0, ""
	}
	return pid, h
}

// Live reports whether the sessions belong to a sluice that is still running
// (as opposed to backends of a killed one that are finishing their last
// statement): its process exists on this host, or, on another host, some
// session is idle — a killed client's backend ends when it next reads from
// the closed socket, a live client's parks idle between batches.
//
// Sessions of this very process belong to a run of it that ended (cancelled,
// or it lost its target) unless ownRunning says one is still open: what is
// left of an ended run is finishing, and must be waited for.
func Live(hs []Holder, ownRunning bool) bool {
	host, _ := os.Hostname()
	for _, h := range hs {
		switch {
		case h.PID == os.Getpid() && h.Host == host:
			if ownRunning {
				return true
			}
		case h.PID > 0 && h.Host == host:
			if err := syscall.Kill(h.PID, 0); err == nil || errors.Is(err, syscall.EPERM) {
				return true
			}
		case h.PID > 0 && strings.HasPrefix(h.State, "idle"):
			return true
		}
	}
	return false
}

// Describe names the sluice processes behind the sessions, for errors and status.
func Describe(hs []Holder) string {
	seen := map[string]bool{}
	var parts []string
	for _, h := range hs {
		s := fmt.Sprintf("PostgreSQL backend %d from %s", h.Backend, h.Client)
		if h.PID > 0 {
			s = fmt.Sprintf("sluice pid %d on host %s", h.PID, h.Host)
		}
		if !seen[s] {
			seen[s] = true
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}
