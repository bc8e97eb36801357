package binlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// Source failover. A source URL with several hosts names the servers of
// one replication topology. replicate reads from one of them; when its
// binlog connection is lost and one reconnect does not restore it, the
// stream ends with *SourceLost, and the next run chooses a server again:
// the first (in URL order) that answers and is not itself replicating,
// else the first replica that logs what it replicates. Before reading from
// a server other than the checkpoint's, the run checks that the server has
// every transaction the checkpoint covers (CheckContains): resuming there
// by GTID is then exactly once (docs/replication.md, "Source failover").

// SourceLost ends a stream (or a run's start) when no server of a
// multi-host source can be read now; the caller tries again.
type SourceLost struct {
	Addr     string             // the server that was lost, "" when none answered
	Boundary binlogpos.Position // where reading stopped
	Err      error
}

func (e *SourceLost) Error() string {
	if e.Addr == "" {
		return "source: no server of the source can be read now: " + e.Err.Error()
	}
	return "source: lost the binlog connection to " + e.Addr + ": " + e.Err.Error()
}
func (e *SourceLost) Unwrap() error { return e.Err }

// hostRole is what choosing a server needs to know about it.
type hostRole struct {
	readOnly    bool // @@read_only
	replicating bool // its replication SQL thread runs
	logsReplica bool // log_slave_updates: what it replicates is in its binlog
}

// replica says the server is (still) a replica of another.
func (h hostRole) replica() bool { return h.readOnly || h.replicating }

// ChooseHost picks the server of m to read from (m itself when it names
// one host): the first in order that answers and is a primary, else the
// first replica with log_slave_updates. It logs the choice (no password).
func ChooseHost(ctx context.Context, m config.MySQL, log *slog.Logger) (config.MySQL, error) {
	cands := m.Candidates()
	if len(cands) == 1 {
		return m, nil
	}
	var fallback *config.MySQL
	var errs []string
	for i := range cands {
		c := cands[i]
		role, err := probeHost(ctx, c)
		if err != nil {
			errs = append(errs, c.Addr()+": "+err.Error())
			continue
		}
		if !role.replica() {
			log.Info("source: reading from the primary", "host", c.Addr(), "of", m.Redacted())
			return c, nil
		}
		if role.logsReplica && fallback == nil {
			fallback = &cands[i]
		}
		errs = append(errs, c.Addr()+": a replica")
	}
	if fallback != nil {
		log.Info("source: no primary answers; reading from a replica that logs what it replicates (log_slave_updates)",
			"host", fallback.Addr(), "of", m.Redacted())
		return *fallback, nil
	}
	return config.MySQL{}, &SourceLost{Err: errors.New(strings.Join(errs, "; "))}
}

// probeHost connects to one server and reads its role.
func probeHost(ctx context.Context, m config.MySQL) (hostRole, error) {
	var role hostRole
	db, err := m.OpenDB()
	if err != nil {
		return role, err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.QueryRowContext(ctx, `SELECT @@read_only, @@log_slave_updates`).Scan(&role.readOnly, &role.logsReplica); err != nil {
		return role, fmt.Errorf("read @@read_only: %w", err)
	}
	role.replicating = replicating(ctx, db)
	return role, nil
}

// replicating reports whether the server's replication SQL thread runs
// (SHOW REPLICA STATUS: MySQL 8.0.22+ and MariaDB 10.5+; SHOW SLAVE STATUS
// before). A user that may not ask is taken as no replica: read_only still
// tells. (internal/alter/replicas.go reads the same status for lag.)
func replicating(ctx context.Context, db *sql.DB) bool {
	rows, err := db.QueryContext(ctx, "SHOW REPLICA STATUS")
	if err != nil {
		if rows, err = db.QueryContext(ctx, "SHOW SLAVE STATUS"); err != nil {
			return false
		}
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return false
	}
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if rows.Scan(ptrs...) != nil {
			return false
		}
		for i, c := range cols {
			running := strings.EqualFold(c, "Slave_SQL_Running") || strings.EqualFold(c, "Replica_SQL_Running")
			if running && strings.EqualFold(vals[i].String, "Yes") {
				return true
			}
		}
	}
	return false
}

// CheckContains verifies that the server of src has in its binlog every
// transaction of need (the checkpoint's GTID set): MySQL's GTID_SUBSET
// with @@gtid_executed, on MariaDB each domain's sequence number in
// @@gtid_binlog_pos. A server that lacks some and still replicates may
// catch up: a *SourceLost (try again). One that lacks them and does not
// replicate (promoted too early, or another history) is refused, exit 2:
// reading there would leave out, or later contradict, rows the target has.
func CheckContains(ctx context.Context, src *Source, info SourceInfo, addr string, need binlogpos.Position) error {
	have, lack, err := src.lacking(ctx, info, need.GTIDSet)
	if err != nil {
		return fmt.Errorf("source %s: compare GTID sets: %w", addr, err)
	}
	if lack == "" {
		return nil
	}
	if replicating(ctx, src.db) {
		return &SourceLost{Err: fmt.Errorf("%s is a replica that has not yet applied %s the checkpoint covers", addr, lack)}
	}
	return exitcode.ConfigError(fmt.Errorf("source %s lacks transactions the target already has: %s (the server has %s, the checkpoint "+
		"covers %s); reading from it would lose or contradict those rows. Fix: make the server with those transactions the "+
		"primary (or let this one catch up from it), or start the stream over with `sluice snapshot --restart`",
		addr, lack, have, need.GTIDSet))
}

// lacking reads the GTID set the server's binlog holds and what need has
// beyond it ("" when it has all): MySQL's GTID_SUBTRACT, for MariaDB each
// domain whose last GTID in need the server has not reached.
func (s *Source) lacking(ctx context.Context, info SourceInfo, need string) (have, lack string, err error) {
	if info.Flavor != FlavorMariaDB {
		var h, l sql.NullString
		err := s.db.QueryRowContext(ctx, `SELECT @@gtid_executed, GTID_SUBTRACT(?, @@gtid_executed)`, need).Scan(&h, &l)
		return strings.ReplaceAll(h.String, "\n", ""), strings.ReplaceAll(l.String, "\n", ""), err
	}
	var h sql.NullString
	if err := s.db.QueryRowContext(ctx, `SELECT @@gtid_binlog_pos`).Scan(&h); err != nil {
		return "", "", err
	}
	hs, err := gomysql.ParseMariadbGTIDSet(h.String)
	if err != nil {
		return "", "", err
	}
	ns, err := gomysql.ParseMariadbGTIDSet(need)
	if err != nil {
		return "", "", err
	}
	var out []string
	for dom, g := range ns.(*gomysql.MariadbGTIDSet).Sets {
		if hg, ok := hs.(*gomysql.MariadbGTIDSet).Sets[dom]; !ok || hg.SequenceNumber < g.SequenceNumber {
			out = append(out, "domain "+strconv.FormatUint(uint64(dom), 10)+" up to "+g.String())
		}
	}
	slices.Sort(out)
	return h.String, strings.Join(out, ", "), nil
}

// checkServer ends the stream with a *SourceLost when a reconnect reaches
// another server than the one it read (a DNS name or a virtual IP that
// moved to a promoted replica): its positions would name the old server,
// and the caller must check the new one first (CheckContains). An error
// reading @@server_id is a network problem: retried.
func (s *Stream) checkServer(ctx context.Context, src *Source) error {
	if s.stats.Sessions.Load() == 0 || s.cfg.Info.ServerID == 0 {
		return nil // the caller read Info from this server just now
	}
	var id uint32
	if err := src.db.QueryRowContext(ctx, `SELECT @@server_id`).Scan(&id); err != nil {
		return err
	}
	if id != s.cfg.Info.ServerID {
		return stop(&SourceLost{Addr: s.cfg.Source.Addr(), Boundary: s.boundary,
			Err: fmt.Errorf("the address now reaches the server with server_id %d, not %d", id, s.cfg.Info.ServerID)})
	}
	return nil
}
