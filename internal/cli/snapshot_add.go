package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sluice-db/sluice/internal/addtable"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/preflight"
)

// addFlagUsage is snapshot's --add (issue 23: tables join a running stream).
const addFlagUsage = "bring a table that is not in --stream's scope into it while its replicator runs (repeatable), e.g. --add shop.invoices; " +
	"the stream's running replicator copies it in windows and from then on replicates it; the command waits until the copy is done (docs/add-table.md)"

// runSnapshotAdd is snapshot --add: every check before anything is
// written, then the request, followed until the replicator finished it.
func runSnapshotAdd(cmd *cobra.Command, s *Settings) error {
	k := s.K
	var bad []error
	for _, f := range []string{"recopy", "restart", "drop-existing", "schema-only", "data-only", "dry-run"} {
		if k.Bool(f) {
			bad = append(bad, fmt.Errorf("--add does not combine with --%s", f))
		}
	}
	for _, f := range []string{"include"} {
		if len(k.Strings(f)) > 0 {
			bad = append(bad, fmt.Errorf("--add does not combine with --%s", f))
		}
	}
	if err := errors.Join(bad...); err != nil {
		return exitcode.ConfigError(fmt.Errorf("%w: --add names each table to bring into the running stream (repeat it), e.g. --add shop.invoices --stream S", err))
	}
	if strings.HasPrefix(strings.ToLower(k.String("target")), "kafka://") {
		return exitcode.ConfigError(errors.New("snapshot --add: adding a table to a running Kafka stream (sluice stream) is not supported yet; " +
			"it works into PostgreSQL targets (docs/add-table.md)"))
	}
	policy, err := rowPolicy(k)
	if err != nil {
		return err
	}
	ep, err := checkEndpoints(cmd.Context(), s, preflight.Needs{Source: true, Binlog: true, Target: true, TargetCreate: true})
	if err != nil {
		return err
	}
	naming := namingOptions(k)
	naming.RowPolicy = policy.Describe()
	p, err := addtable.Run(cmd.Context(), addtable.Options{Source: ep.Source, Target: ep.Engine, Stream: k.String("stream"),
		Add: k.Strings("add"), Exclude: k.Strings("exclude"), Naming: naming, Log: s.Log})
	if p != nil && err == nil {
		for _, t := range p.Tables {
			fmt.Fprintf(cmd.ErrOrStderr(), "snapshot --add: %s joined stream %s and is copied; it is replicated from now on\n", t.TableID, p.Stream)
		}
	}
	return err
}
