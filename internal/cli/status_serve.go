package cli

import (
	"math"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/config"
	engines "github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/typemap"
)

// statusSource is what status reads besides the target: the source, for
// the lag (nil: none given).
type statusSource struct {
	mysql *config.MySQL
	pg    *config.Postgres
}

func (s statusSource) redacted() string {
	switch {
	case s.mysql != nil:
		return s.mysql.Redacted()
	case s.pg != nil:
		return s.pg.Redacted()
	}
	return ""
}

// serveStatus is status --serve ADDR: the status page of every stream
// recorded in the target (the --stream given, or all the engine lists),
// read again every few seconds until the command is stopped.
func serveStatus(cmd *cobra.Command, s *Settings, engine engines.Engine, src statusSource, addr string) error {
	mon, err := servePage(cmd, s, "--serve", addr)
	if err != nil {
		return err
	}
	s.Log.Info("status page", "url", "http://"+addr+"/", "target", engine.Redacted())
	ctx := cmd.Context()
	tick := time.NewTicker(mon.Board.Every())
	defer tick.Stop()
	for {
		names := []string{s.K.String("stream")}
		if l, ok := engine.(engines.StreamLister); ok && !cmd.Flags().Changed("stream") {
			listed, err := l.ListStreams(ctx)
			if err != nil {
				mon.Board.Stream(s.K.String("stream"), "replicate").Fail(err)
			} else {
				names = listed
			}
		}
		for _, name := range names {
			st, err := readStatus(ctx, engine, src.mysql, src.pg, name)
			publishStatus(mon.Board, engine.Redacted(), src.redacted(), name, st, err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// publishStatus puts what status read of one stream on its card: the
// checkpoint's position, the lag (with --source), who replicates it and
// the values policies changed.
func publishStatus(b *board.Board, target, source, name string, st *streamStatus, err error) {
	kind := "replicate"
	if st != nil && st.Reverse != nil {
		kind = "reverse"
	}
	card := b.Stream(name, kind)
	card.SetEndpoints(source, target)
	if err != nil {
		card.Fail(err)
		return
	}
	rd := board.Reading{Applied: st.Position.String(), Lag: math.NaN()}
	if st.Reverse != nil {
		rd.Applied = st.Reverse.AppliedLSN
	}
	if st.LagSeconds != nil {
		rd.Lag = *st.LagSeconds
	}
	var pcs []board.PolicyChange
	for _, ph := range []struct {
		suffix string
		cs     []typemap.ChangeCount
	}{{" (snapshot)", st.SnapshotPolicyChanges}, {"", st.ReplicatePolicyChanges}} {
		for _, c := range ph.cs {
			pcs = append(pcs, board.PolicyChange{Table: c.Table, Column: c.Column, Policy: c.Policy + ph.suffix, Rows: c.Count})
		}
	}
	card.Attach(func() board.Reading { return rd }, func() []board.PolicyChange { return pcs })
	phase := board.PhaseStopped
	if st.Replicator != "" {
		phase = board.PhaseReplicating
	}
	card.SetPhase(phase)
}
