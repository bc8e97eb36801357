package cutover

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/reverse"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	"github.com/sluice-db/sluice/internal/target"
)

// FallbackCommand is the reverse stream's command line: PostgreSQL's new
// writes back into the MySQL source database. Its URLs have no password:
// one on the command line is every local user's (docs/secrets.md).
func FallbackCommand(o Options) string {
	pg, _ := target.PostgresOf(o.Target) // Run refused any other target
	return fmt.Sprintf("sluice replicate --source %s --target %s --stream %s",
		pg.WithoutPassword(), o.Source.WithoutPassword(), o.ReverseStream)
}

// fallbackPasswords says where the way back's passwords go: the roles of
// the two servers are swapped.
func fallbackPasswords() string {
	return fmt.Sprintf("PostgreSQL's password in --%s FILE or %s, MySQL's in --%s FILE or %s",
		config.PasswordFileFlag("source"), config.PasswordEnv("source"), config.PasswordFileFlag("target"), config.PasswordEnv("target"))
}

// next is step 7: what the operator does now.
func (r *run) next(ctx context.Context) {
	r.rep.Fallback = FallbackCommand(r.o)
	r.rep.Next = []string{
		"stop every writer of the MySQL source for good (the read lock of --lock is released now): from here on PostgreSQL is the primary",
		"leave no `sluice replicate` of stream " + r.o.Stream + " running against the target once the application writes there",
		"enable what you ported by hand (triggers created disabled, jobs replacing events: docs/cutover.md)",
		"point the application at PostgreSQL (" + r.o.Target.Redacted() + ") and start its writers",
		"keep the way back running: " + r.rep.Fallback + " (" + fallbackPasswords() + "; it starts at LSN " + r.rep.Boundary.LSN + ", slot " + r.rep.Slot + ")",
		"to fall back: stop the application's writers on PostgreSQL, run the reverse stream with --until-caught-up, point the application at MySQL again",
	}
	if found := r.mysqlTriggers(ctx); len(found) > 0 {
		var list []string
		for _, t := range found {
			list = append(list, t.String())
		}
		// The way back refuses to start while they exist: say so now, not
		// when the operator runs the fallback command.
		at := len(r.rep.Next) - 2
		r.rep.Next = append(r.rep.Next[:at:at], append([]string{"the MySQL tables have triggers that would fire on every row the way back writes (" +
			strings.Join(list, "; ") + "), and the reverse stream refuses to start while they exist: " + mysink.DropTriggersAdvice(found, reverse.TriggersUntil)},
			r.rep.Next[at:]...)...)
	}
	if r.runningReplicator != "" {
		// Its sink decided at start that the stream was not cut over: its
		// transactions carry no replication origin.
		r.rep.Next = append([]string{"stop the running replicator of stream " + r.o.Stream + " (" + r.runningReplicator +
			") now: it started before the cut-over and does not mark its transactions for the reverse stream " +
			"(restart it if both directions are to run at once)"}, r.rep.Next...)
	}
}

// mysqlTriggers lists the triggers on the migrated tables' databases. A
// failure to list them is logged, not fatal: the switch is already done, and
// the reverse stream checks again when it starts.
func (r *run) mysqlTriggers(ctx context.Context) []mysink.Trigger {
	seen := map[string]bool{}
	var found []mysink.Trigger
	for _, t := range r.tables {
		if seen[t.Database] {
			continue
		}
		seen[t.Database] = true
		ts, err := mysink.Triggers(ctx, r.srcDB, t.Database)
		if err != nil {
			r.log.Warn("cutover: cannot list the MySQL triggers the way back would refuse", "database", t.Database, "err", err)
			continue
		}
		found = append(found, ts...)
	}
	return found
}
