package cli

import (
	"context"
	"strings"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/preflight"
)

// Endpoints are the parsed --source and --target of a command.
type Endpoints struct {
	Source config.MySQL
	Target config.Postgres
	Report *preflight.Report
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
		}
	}
	if needs.Target {
		if ep.Target, err = config.ParseTarget(s.K.String("target")); err != nil {
			bad = append(bad, err.Error())
		}
	}
	if len(bad) > 0 {
		return nil, exitcode.ConfigError(&lines{bad})
	}
	ep.Report = preflight.Run(ctx, ep.Source, ep.Target, needs)
	for _, w := range ep.Report.Warnings() {
		s.Log.Warn("pre-flight", "side", w.Side, "warning", w.Cause, "fix", w.Fix)
	}
	if err := ep.Report.Err(); err != nil {
		return nil, err
	}
	return &ep, nil
}

type lines struct{ l []string }

func (l *lines) Error() string { return strings.Join(l.l, "\n") }
