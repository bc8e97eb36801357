package reverse

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/pipeline"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
)

// The way back's --standby is the MySQL sink's (sink/mysql standby.go): a
// standby waits in the applier's Open, before the stream opens the slot, so
// only the run that owns the stream reads it; the new owner ends the
// walsender a frozen predecessor keeps on the slot (pgoutput takeover.go)
// and continues from MySQL's checkpoint, which is committed with the rows.

// scopeSettings are the settings that decide what a run writes, one
// "name=value" line each (pipeline.SettingsRecord): a standby whose
// settings differ from the owner's is refused (exit 2) rather than change
// what the stream writes at the takeover. --workers is not one: it changes
// how fast, not what.
func (o Options) scopeSettings() []string {
	n := o.Naming.Options()
	list := func(v []string) string { return strings.Join(v, ",") }
	onError := "stop"
	if o.SkipBadRows {
		onError = "skip-and-log"
	}
	return []string{"schema-map=" + list(n.SchemaMap), "identifiers=" + n.Identifiers, "rename=" + list(n.Renames),
		"on-error=" + onError}
}

// takenOver turns the failure of a run that owned the stream into the
// takeover it was when another run owns the stream now (exit 2, not
// retried): a frozen replicator wakes to its MySQL sessions killed and its
// walsender ended by the standby that replaced it. Otherwise err is
// returned as it is.
func takenOver(ctx context.Context, o Options, run *pipeline.RunIdentity, err error) error {
	if err == nil || ctx.Err() != nil || !run.Owned.Load() || errors.Is(err, pipeline.ErrTakenOver) {
		return err
	}
	db, openErr := mysink.Open(o.Target)
	if openErr != nil {
		return err
	}
	defer db.Close()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if ownerErr := mysink.CheckOwner(cctx, db, o.Stream, run.ID); errors.Is(ownerErr, pipeline.ErrTakenOver) {
		return ownerErr
	}
	return err
}
