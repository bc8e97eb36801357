package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/preflight"
)

// Endpoints are the parsed --source and --target of a command.
type Endpoints struct {
	Source config.MySQL
	// Target is the PostgreSQL target; MySQLTarget is set instead when
	// --target is a mysql:// URL.
	Target      config.Postgres
	MySQLTarget *config.MySQL
	Report      *preflight.Report
}

// checkEndpoints parses the URLs (both, so both problems are reported at
// once), runs the pre-flight checks the command needs, logs warnings and
// returns a configuration error (exit 2) listing every blocking problem.
func checkEndpoints(ctx context.Context, s *Settings, needs preflight.Needs) (*Endpoints, error) {
	var ep Endpoints
	var bad []string
	var err error
	if needs.Source {
		if ep.Source, err = config.ParseSource(s.K.String("source")); err != nil {
			bad = append(bad, err.Error())
		} else if err := ep.Source.ApplyTLSFlags("source", tlsFlags(s, "source")); err != nil {
			bad = append(bad, err.Error())
		}
	}
	if needs.Target {
		t, err := config.ParseAnyTarget(s.K.String("target"))
		if err == nil {
			err = t.ApplyTLSFlags(tlsFlags(s, "target"))
		}
		switch {
		case err != nil:
			bad = append(bad, err.Error())
		case t.MySQL != nil:
			ep.MySQLTarget = t.MySQL
		default:
			ep.Target = *t.Postgres
		}
	}
	if len(bad) > 0 {
		return nil, exitcode.ConfigError(&lines{bad})
	}
	ep.Report = preflight.Run(ctx, ep.Source, ep.target(), needs)
	for _, w := range ep.Report.Warnings() {
		s.Log.Warn("pre-flight", "side", w.Side, "warning", w.Cause, "fix", w.Fix)
	}
	if err := ep.Report.Err(); err != nil {
		return nil, err
	}
	return &ep, nil
}

func (ep *Endpoints) target() config.Target {
	if ep.MySQLTarget != nil {
		return config.Target{MySQL: ep.MySQLTarget}
	}
	return config.Target{Postgres: &ep.Target}
}

// postgresOnly refuses a MySQL target in a command that does not write one.
func (ep *Endpoints) postgresOnly(command string) error {
	if ep.MySQLTarget == nil {
		return nil
	}
	return exitcode.ConfigError(fmt.Errorf("%s: a MySQL target (%s) is not supported by this command yet; use a postgres:// target",
		command, ep.MySQLTarget.Redacted()))
}

type lines struct{ l []string }

func (l *lines) Error() string { return strings.Join(l.l, "\n") }
