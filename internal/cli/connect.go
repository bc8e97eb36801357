package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/preflight"
	engines "github.com/sluice-db/sluice/internal/target"
)

// Endpoints are the parsed --source and --target of a command.
type Endpoints struct {
	Source config.MySQL
	// Engine is the target's engine (internal/target): what the command
	// asks instead of which engine it is.
	Engine engines.Engine
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
		} else if err := ep.Source.ApplyTLSFlags("source", tlsFlags(s, "source")); err != nil {
			bad = append(bad, err.Error())
		}
	}
	var checker preflight.TargetChecker
	if needs.Target {
		// The engine applies the --target-ssl-* flags itself; no I/O.
		ep.Engine, err = engines.Open(s.K.String("target"), engines.Options{TLS: tlsFlags(s, "target"), StorageEngine: needs.TargetEngine, Tables: true})
		if err != nil {
			bad = append(bad, err.Error())
		} else {
			checker, _ = ep.Engine.(preflight.TargetChecker) // every engine on tables has its check
		}
	}
	if len(bad) > 0 {
		return nil, exitcode.ConfigError(&lines{bad})
	}
	ep.Report = preflight.Check(ctx, ep.Source, checker, needs)
	for _, w := range ep.Report.Warnings() {
		s.Log.Warn("pre-flight", "side", w.Side, "warning", w.Cause, "fix", w.Fix)
	}
	if err := ep.Report.Err(); err != nil {
		return nil, err
	}
	return &ep, nil
}

// postgresOnly refuses, in cutover, a target it cannot switch to
// (Capabilities.Cutover: PostgreSQL only; --target takes MySQL otherwise).
func (ep *Endpoints) postgresOnly(command string) error {
	if ep.Engine.Capabilities().Cutover {
		return nil
	}
	return exitcode.ConfigError(fmt.Errorf("%s: a MySQL target (%s) is not supported by this command yet; use a postgres:// target",
		command, ep.Engine.Redacted()))
}

// refuseTargetEngine refuses --target-engine for a target without storage
// engines to choose (Capabilities.StorageEngines): one message for every
// command that takes the flag.
func (ep *Endpoints) refuseTargetEngine(storage string) error {
	if storage == "" || ep.Engine.Capabilities().StorageEngines {
		return nil
	}
	return exitcode.ConfigError(errors.New("--target-engine applies to a MySQL target (mysql:// --target) only"))
}

type lines struct{ l []string }

func (l *lines) Error() string { return strings.Join(l.l, "\n") }
