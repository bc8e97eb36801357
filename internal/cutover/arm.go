package cutover

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
)

// arm is step 1: the way back exists before anything else changes. A slot
// or publication of the reverse stream that exists already is refused (it
// may be a running reverse stream's): this run drops only what it created.
func (r *run) arm(ctx context.Context) (string, error) {
	slot, pub := logical.SlotName(r.o.ReverseStream), logical.PublicationName(r.o.ReverseStream)
	if err := r.refuseCutOver(ctx); err != nil {
		return "", err
	}
	// After the switch the forward apply marks its transactions with
	// replication origins (internal/sink/postgres/origin.go): the target
	// user must be allowed to.
	if err := logical.CheckOriginPrivileges(ctx, r.pg); err != nil {
		return "", err
	}
	var slotExists, pubExists bool
	if err := r.pg.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_replication_slots WHERE slot_name = $1),
		EXISTS (SELECT FROM pg_publication WHERE pubname = $2)`, slot, pub).Scan(&slotExists, &pubExists); err != nil {
		return "", fmt.Errorf("read the target's slots and publications: %w", err)
	}
	if slotExists || pubExists {
		// Slot and publication names fold case and punctuation: say whose
		// they are when another reverse stream's name maps to them.
		owner, err := logical.Owner(ctx, r.pg, r.o.ReverseStream)
		if err != nil {
			return "", fmt.Errorf("target: %w", err)
		}
		if owner != "" && owner != r.o.ReverseStream {
			return "", exitcode.ConfigError(fmt.Errorf("the reverse stream's slot %s and publication %s belong to reverse stream %s "+
				"(their names are lower case, with punctuation as _, so %s maps to them too): pass another --reverse-stream, e.g. --reverse-stream %s_back",
				slot, pub, owner, r.o.ReverseStream, r.o.Stream))
		}
		return "", fmt.Errorf("the reverse stream %s is armed already (slot %s exists: %v, publication %s exists: %v) but no cut-over is recorded: "+
			"a running reverse stream, or what a killed cutover left; if it is a leftover, drop it on the target: "+
			"sluice drop --target %s --stream %s (it names what it removes first); or pass another --reverse-stream",
			r.o.ReverseStream, slot, slotExists, pub, pubExists, r.o.Target.Redacted(), r.o.ReverseStream)
	}
	tables, err := r.targetTables(ctx)
	if err != nil {
		return "", err
	}
	// Arm sets REPLICA IDENTITY FULL on every table: note which were
	// DEFAULT to put them back on failure.
	var restore []string
	for _, t := range tables {
		var ident string
		if err := r.pg.QueryRow(ctx, `SELECT relreplident::text FROM pg_class WHERE oid = $1::regclass`,
			pgx.Identifier{t.Schema, t.Name}.Sanitize()).Scan(&ident); err != nil {
			return "", fmt.Errorf("replica identity of %s.%s: %w", t.Schema, t.Name, err)
		}
		if ident == "d" {
			restore = append(restore, pgx.Identifier{t.Schema, t.Name}.Sanitize())
		}
	}
	r.onUndo("replica identity DEFAULT again on "+strings.Join(restore, ", "), func(ctx context.Context) error {
		for _, q := range restore {
			if _, err := r.pg.Exec(ctx, "ALTER TABLE "+q+" REPLICA IDENTITY DEFAULT"); err != nil {
				return err
			}
		}
		return nil
	})
	if len(restore) == 0 {
		r.undo = r.undo[:len(r.undo)-1]
	}
	r.onUndo("slot "+slot+" and publication "+pub+" dropped", func(ctx context.Context) error {
		return logical.Disarm(ctx, r.pg, r.o.ReverseStream)
	})
	a, err := logical.Arm(ctx, r.pg, r.o.ReverseStream, tables)
	if err != nil {
		return "", err
	}
	r.rep.Slot, r.rep.Publication = a.Slot, a.Publication
	return fmt.Sprintf("publication %s (%d tables) and pgoutput slot %s created at %s; replica identity FULL on %d tables (was DEFAULT)",
		a.Publication, len(tables), a.Slot, a.ConsistentLSN, len(restore)), nil
}

// targetTables are the migrated tables as they are named in the target,
// each checked to exist there.
func (r *run) targetTables(ctx context.Context) ([]logical.Table, error) {
	out := make([]logical.Table, 0, len(r.tables))
	var missing []string
	for _, t := range r.tables {
		lt := logical.Table{Schema: r.o.Naming.Schema(t.Database), Name: r.o.Naming.Table(t.TableID)}
		var exists bool
		err := r.pg.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
				WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p'))`, lt.Schema, lt.Name).Scan(&exists)
		if err != nil {
			return nil, fmt.Errorf("target table %s.%s: %w", lt.Schema, lt.Name, err)
		}
		if !exists {
			missing = append(missing, lt.Schema+"."+lt.Name)
			continue
		}
		out = append(out, lt)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the target lacks migrated tables %s: run `sluice migrate` (or snapshot) first, or narrow --include", strings.Join(missing, ", "))
	}
	return out, nil
}

// refuseCutOver refuses a stream whose cut-over is recorded on either side
// (exit 2): the target's record, or only the source's (the target was
// rebuilt, or a rehearsal ran against another PostgreSQL), which would
// otherwise surface as a duplicate key at the last step.
func (r *run) refuseCutOver(ctx context.Context) error {
	b, err := LoadTargetBoundary(ctx, r.pg, r.o.Stream)
	if err != nil {
		return err
	}
	where := "the target's sluice.cutover"
	if b == nil {
		if b, err = LoadSourceBoundary(ctx, r.srcDB, r.o.Stream); err != nil {
			return err
		}
		where = "the source's sluice.cutover (not the target's)"
	}
	if b == nil {
		return nil
	}
	rev := b.ReverseStream
	if rev == "" {
		rev = r.o.ReverseStream
	}
	back := Options{Source: r.o.Source, Target: r.o.Target, ReverseStream: rev}
	return exitcode.ConfigError(fmt.Errorf("stream %s was cut over already at %s: source position %s = PostgreSQL LSN %s, "+
		"recorded in %s; its way back is stream %s (slot %s). If PostgreSQL is the primary, there is nothing to cut over: "+
		"keep the way back running (%s). To cut over again (after falling back to MySQL, or onto a rebuilt target), "+
		"decommission the old way back first: sluice drop --source %s --target %s --stream %s, then run cutover again",
		r.o.Stream, b.At.UTC().Format("2006-01-02 15:04:05Z"), b.SourcePosition, b.LSN, where, rev, logical.SlotName(rev),
		FallbackCommand(back), r.o.Target.Redacted(), r.o.Source.Redacted(), rev))
}
