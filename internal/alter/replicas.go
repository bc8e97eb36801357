package alter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sluice-db/sluice/internal/config"
)

const (
	// lagPollEvery: the replicas are asked at most this often; every
	// worker's gate in between gets the last answer.
	lagPollEvery = 500 * time.Millisecond
	// lagPollTimeout bounds one poll of one replica: a replica that does
	// not answer in time counts as over the limit (it may be stalled).
	lagPollTimeout = 2 * time.Second
	// errAccessDenied is "you need (at least one of) the ... privilege(s)".
	errAccessDenied = 1227
	errTableAccess  = 1142
	errParse        = 1064
)

// replica is one server named by --replica, on a single connection.
type replica struct {
	name    string // host:port, for messages
	user    string
	db      *sql.DB
	mariadb bool
	stmt    string // the status statement this server answers
}

// lagWatch holds the copy and the appliers while a replica is more than
// --max-lag behind the source (control.gate asks it).
type lagWatch struct {
	max      time.Duration
	replicas []*replica

	mu     sync.Mutex
	at     time.Time
	over   string // why a replica is over the limit; "" when all are within
	status string // every replica's lag, for the log
}

// openReplicas connects to every --replica and runs its status statement
// once: an unreachable replica, a user without the privilege, or a server
// that replicates from nothing is refused (exit 2) before anything is
// written.
func openReplicas(ctx context.Context, urls []config.MySQL, maxLag time.Duration) (*lagWatch, error) {
	w := &lagWatch{max: maxLag}
	for _, u := range urls {
		rp, err := openReplica(ctx, u)
		if err != nil {
			w.close()
			return nil, err
		}
		w.replicas = append(w.replicas, rp)
	}
	return w, nil
}

func openReplica(ctx context.Context, u config.MySQL) (*replica, error) {
	rp := &replica{name: u.Addr(), user: u.User}
	db, err := u.OpenDB()
	if err != nil {
		return nil, refuse("--replica %s: %v", u.Redacted(), err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	rp.db = db
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var version string
	if err := db.QueryRowContext(pctx, "SELECT VERSION()").Scan(&version); err != nil {
		db.Close()
		return nil, refuse("--replica %s is not reachable: %v (check its host, port, user and password)", u.Redacted(), err)
	}
	rp.mariadb = strings.Contains(strings.ToLower(version), "mariadb")
	rp.stmt = "SHOW REPLICA STATUS" // MySQL 8.0.22+
	if rp.mariadb {
		rp.stmt = "SHOW ALL SLAVES STATUS" // every connection of a multi-source replica
	}
	chans, err := rp.channels(pctx)
	if code, _ := mysqlErr(err); code == errParse && !rp.mariadb {
		rp.stmt = "SHOW SLAVE STATUS" // MySQL before 8.0.22
		chans, err = rp.channels(pctx)
	}
	if err != nil {
		db.Close()
		code, _ := mysqlErr(err)
		if code == errAccessDenied || code == errTableAccess {
			return nil, refuse("--replica %s: user %s may not run %s (%v): %s", u.Redacted(), u.User, rp.stmt, err, rp.grantHint())
		}
		return nil, refuse("--replica %s: %s: %v", u.Redacted(), rp.stmt, err)
	}
	if len(chans) == 0 {
		db.Close()
		return nil, refuse("--replica %s replicates from no source (%s returns nothing): name replicas of the --source server", u.Redacted(), rp.stmt)
	}
	return rp, nil
}

func (rp *replica) grantHint() string {
	if rp.mariadb {
		return fmt.Sprintf("GRANT SLAVE MONITOR ON *.* TO '%s'@'…' (MariaDB 10.5.9+; REPLICATION CLIENT before)", rp.user)
	}
	return fmt.Sprintf("GRANT REPLICATION CLIENT ON *.* TO '%s'@'…'", rp.user)
}

// channel is one replication connection of a replica.
type channel struct {
	name     string
	io, sql  string        // thread states: "Yes" when running
	lag      time.Duration // Seconds_Behind_Master/Source
	lagKnown bool          // false: NULL
	lastErr  string
}

// channels reads the status statement's rows by column name: MariaDB
// says Slave_*/…_Master, MySQL 8.0.22+ Replica_*/…_Source.
func (rp *replica) channels(ctx context.Context) ([]channel, error) {
	rows, err := queryMaps(ctx, rp.db, rp.stmt)
	if err != nil {
		return nil, err
	}
	out := make([]channel, 0, len(rows))
	for _, m := range rows {
		get := func(names ...string) string {
			for _, n := range names {
				if v, ok := m[strings.ToLower(n)]; ok {
					return v
				}
			}
			return ""
		}
		c := channel{
			name: get("Connection_name", "Channel_Name"),
			io:   get("Slave_IO_Running", "Replica_IO_Running"),
			sql:  get("Slave_SQL_Running", "Replica_SQL_Running"),
		}
		// NULL (no lag known) reads as "", which does not parse.
		if n, err := strconv.ParseInt(get("Seconds_Behind_Master", "Seconds_Behind_Source"), 10, 64); err == nil {
			c.lag, c.lagKnown = time.Duration(n)*time.Second, true
		}
		c.lastErr = get("Last_SQL_Error")
		if c.lastErr == "" {
			c.lastErr = get("Last_IO_Error")
		}
		out = append(out, c)
	}
	return out, nil
}

// poll reads one replica: its largest lag, and why it is over the limit
// regardless of the number ("" when it is not).
func (rp *replica) poll(ctx context.Context) (time.Duration, string) {
	ctx, cancel := context.WithTimeout(ctx, lagPollTimeout)
	defer cancel()
	chans, err := rp.channels(ctx)
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return 0, fmt.Sprintf("replica %s did not answer %s within %s", rp.name, rp.stmt, lagPollTimeout)
	case err != nil:
		return 0, fmt.Sprintf("replica %s: %s: %v", rp.name, rp.stmt, err)
	case len(chans) == 0:
		return 0, fmt.Sprintf("replica %s no longer replicates (%s returns nothing)", rp.name, rp.stmt)
	}
	var worst time.Duration
	for _, c := range chans {
		where := rp.name
		if c.name != "" {
			where += " (" + c.name + ")"
		}
		var stopped []string
		if !strings.EqualFold(c.io, "Yes") {
			stopped = append(stopped, "IO thread "+strings.ToLower(c.io))
		}
		if !strings.EqualFold(c.sql, "Yes") {
			stopped = append(stopped, "SQL thread "+strings.ToLower(c.sql))
		}
		if len(stopped) > 0 {
			why := fmt.Sprintf("replica %s is not replicating: %s", where, strings.Join(stopped, ", "))
			if c.lastErr != "" {
				why += ": " + c.lastErr
			}
			return 0, why
		}
		if !c.lagKnown {
			return 0, fmt.Sprintf("replica %s reports no lag (Seconds_Behind_Master is NULL)", where)
		}
		worst = max(worst, c.lag)
	}
	return worst, ""
}

// expire makes the next check ask the replicas instead of giving the last
// answer: the swap goes by their lag at the swap, not by one read up to
// lagPollEvery before it (a replica stopped meanwhile must hold it).
func (w *lagWatch) expire() {
	w.mu.Lock()
	w.at = time.Time{}
	w.mu.Unlock()
}

// check returns why the replicas hold the run ("" when every one is
// within --max-lag), asking them at most every lagPollEvery.
func (w *lagWatch) check(ctx context.Context) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if time.Since(w.at) < lagPollEvery {
		return w.over
	}
	lags := make([]time.Duration, len(w.replicas))
	whys := make([]string, len(w.replicas))
	var wg sync.WaitGroup
	for i, rp := range w.replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lags[i], whys[i] = rp.poll(ctx)
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return w.over // the caller sees ctx end
	}
	w.at = time.Now()
	w.over = ""
	var status []string
	for i, rp := range w.replicas {
		switch {
		case whys[i] != "":
			status = append(status, whys[i])
		default:
			status = append(status, fmt.Sprintf("%s lag %s", rp.name, lags[i]))
		}
		if w.over != "" {
			continue
		}
		if whys[i] != "" {
			w.over = whys[i] + " (counts as over --max-lag)"
		} else if lags[i] > w.max {
			w.over = fmt.Sprintf("replica %s lag %s > --max-lag %s", rp.name, lags[i], w.max)
		}
	}
	w.status = strings.Join(status, "; ")
	return w.over
}

// lastStatus is every replica's lag at the last poll.
func (w *lagWatch) lastStatus() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status
}

func (w *lagWatch) close() {
	if w == nil {
		return
	}
	for _, rp := range w.replicas {
		rp.db.Close()
	}
}

// setMax changes --max-lag while the run goes on (a control-file line);
// the next check polls the replicas again against it.
func (w *lagWatch) setMax(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.max, w.at = d, time.Time{}
}

// limit is the current --max-lag.
func (w *lagWatch) limit() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.max
}
