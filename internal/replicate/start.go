package replicate

import (
	"context"
	"fmt"
	"strings"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// origin is where the stream starts and the schema in force there.
type origin struct {
	pos     binlogpos.Position
	tables  map[schema.TableID]*schema.Table
	version int64
}

// ensureStart makes sure the stream has a checkpoint with a schema version
// before apply loads it: --start-gtid/--start-position on a stream without
// one record the start and the current schema as version 1 (so a restart
// continues like after a snapshot); a checkpoint without a schema history
// gets the current schema as version 1. It runs before apply's fence; that
// is safe because it only writes a stream that no run has applied to.
func (r *runner) ensureStart(ctx context.Context) error {
	o := r.o
	st, err := r.tgt.LoadState(ctx, o.Stream)
	if err != nil {
		return err
	}
	switch {
	case st == nil && o.StartGTID == "" && o.StartPosition == "":
		return exitcode.ConfigError(fmt.Errorf("stream %q has no checkpoint in the target %s and neither --start-gtid nor --start-position was given: "+
			"run `sluice snapshot` (or `sluice migrate`) first, or pass --start-gtid (e.g. 0-1-42) or --start-position (e.g. mysql-bin.000042:4)",
			o.Stream, o.targetRedacted()))
	case st == nil:
		pos, err := r.flagPosition(ctx)
		if err != nil {
			return err
		}
		r.log.Warn("starting without a snapshot: the tables at the start position are assumed to be defined as they are now "+
			"(information_schema), and the target tables must hold the rows the source had at that position",
			"stream", o.Stream, "start", pos.String(), "tables", len(r.cat.Tables))
		if err := r.refuseCascades(ctx, r.cat.Tables); err != nil {
			return err // before the start is recorded
		}
		return r.recordStart(ctx, pos)
	case o.StartGTID != "" || o.StartPosition != "":
		r.log.Warn("the stream has a checkpoint: --start-gtid/--start-position only apply to a stream without one",
			"stream", o.Stream, "checkpoint", model.PositionString(st.Position))
	}
	if st.SchemaVersion <= 0 && st.Position != nil {
		pos, err := binlogpos.From(st.Position)
		if err != nil {
			return exitcode.ConfigError(fmt.Errorf("stream %q: %w", o.Stream, err))
		}
		r.log.Warn("the checkpoint has no schema history: assuming the tables at the checkpoint are defined as they are now, and recording that as schema version 1",
			"stream", o.Stream, "checkpoint", pos.String())
		return r.recordStart(ctx, pos)
	}
	return nil
}

// flagPosition is the start given by --start-gtid or --start-position.
func (r *runner) flagPosition(ctx context.Context) (binlogpos.Position, error) {
	o := r.o
	if o.StartGTID != "" {
		if !r.info.GTID {
			return binlogpos.Position{}, exitcode.ConfigError(fmt.Errorf("--start-gtid: the source has no GTIDs (gtid_mode is not ON); use --start-position"))
		}
		if _, err := gomysql.ParseGTIDSet(r.info.Flavor, o.StartGTID); err != nil {
			return binlogpos.Position{}, exitcode.ConfigError(fmt.Errorf("--start-gtid %q is not a %s GTID set: %v", o.StartGTID, r.info.Flavor, err))
		}
		return binlogpos.Position{GTIDSet: strings.TrimSpace(o.StartGTID), Flavor: r.info.Flavor}, nil
	}
	pos, err := ParsePosition(o.StartPosition)
	if err != nil {
		return pos, exitcode.ConfigError(err)
	}
	pos.Flavor = r.info.Flavor
	if r.info.GTID {
		pos.GTIDSet = r.gtidAt(ctx, pos)
	}
	return pos, nil
}

// origin turns the checkpoint apply loaded (after its fence, so no session
// of an earlier run can still move it) into the stream's start and schema.
func (r *runner) origin(ctx context.Context, st *checkpoint.State) (*origin, error) {
	o := r.o
	if st == nil || st.Position == nil {
		return nil, exitcode.ConfigError(fmt.Errorf("the checkpoint of stream %q has no position; re-run `sluice snapshot --restart`", o.Stream))
	}
	pos, err := binlogpos.From(st.Position)
	if err != nil {
		return nil, exitcode.ConfigError(fmt.Errorf("stream %q: %w; wrong --source or --stream?", o.Stream, err))
	}
	if pos.Flavor != "" && pos.Flavor != r.info.Flavor {
		return nil, exitcode.ConfigError(fmt.Errorf("the checkpoint of stream %q was recorded on a %s source, but %s is %s: wrong --source or --stream?",
			o.Stream, pos.Flavor, o.Source.Redacted(), r.info.Flavor))
	}
	pos.Flavor = r.info.Flavor
	if pos, err = r.followSource(ctx, pos); err != nil {
		return nil, err
	}
	if !r.info.GTID {
		pos.GTIDSet = ""
	} else if pos.GTIDSet == "" && pos.File != "" {
		pos.GTIDSet = r.gtidAt(ctx, pos)
	}
	tables, err := r.tgt.LoadSchema(ctx, o.Stream, st.SchemaVersion)
	if err != nil {
		return nil, err
	}
	r.log.Info("continuing from the checkpoint", "stream", o.Stream, "position", pos.String(),
		"schema_version", st.SchemaVersion, "tables", len(tables), "checkpoint_age", roundAge(st.UpdatedAt))
	return &origin{pos: pos, tables: tables, version: st.SchemaVersion}, nil
}

// gtidAt converts a file position into the GTID set there (MariaDB), so the
// stream can record GTIDs; on failure it logs and tracks file:pos only.
func (r *runner) gtidAt(ctx context.Context, pos binlogpos.Position) string {
	g, err := r.src.GTIDAt(ctx, r.info, pos)
	if err != nil {
		r.log.Warn("cannot convert the start position into a GTID set; tracking file:pos only", "position", pos.String(), "err", err)
		return ""
	}
	return g
}

// recordStart writes the start position and the current schema as version
// 1 in one target transaction.
func (r *runner) recordStart(ctx context.Context, pos binlogpos.Position) error {
	return r.tgt.RecordStart(ctx, r.o.Stream, pos, r.cat.Tables)
}
