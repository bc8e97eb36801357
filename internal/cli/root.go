// Package cli binds flags to the engines: one file per subcommand, flag
// binding and wiring only. Settings come from flags, SLUICE_* environment
// variables and a YAML file (see internal/config).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/knadh/koanf/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	vtlog "vitess.io/vitess/go/vt/log"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/logging"
)

// Execute runs the command line and returns the process exit code.
func Execute() int {
	ctx, caught := notifySignals(context.Background())
	root := NewRootCmd(os.Stdout, os.Stderr)
	err := executeContext(ctx, root)
	if err == nil {
		return exitcode.OK
	}
	code := exitcode.Of(err)
	var ue *usageError
	if errors.As(err, &ue) {
		code = exitcode.Config
	}
	msg := strings.TrimSpace(err.Error())
	if sig := caught(); sig != 0 {
		// Stopped by a signal before the work was done (a command that
		// stops gracefully returned nil): 128 + the signal's number, as a
		// shell reports a process the signal ended, so a script neither
		// takes it for success nor for a failure of the work itself (an
		// interrupted verify's unfinished tables are no configuration
		// error, its differences so far no verdict).
		code = exitcode.Interrupted(int(sig))
		msg = "interrupted by " + signalName(sig) + ": " + msg
	}
	if !errors.Is(err, errSilent) {
		fmt.Fprintln(os.Stderr, "sluice: "+msg)
	}
	return code
}

// notifySignals returns a context cancelled by the first SIGINT or SIGTERM,
// and a function returning that signal (0 while none came).
func notifySignals(parent context.Context) (context.Context, func() syscall.Signal) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	var got atomic.Value
	go func() {
		select {
		case s := <-ch:
			got.Store(s.(syscall.Signal))
			cancel()
		case <-ctx.Done():
		}
		// Later signals stay caught (ignored): a cutover's undo or a
		// snapshot's last commit runs to its end.
	}()
	return ctx, func() syscall.Signal {
		s, _ := got.Load().(syscall.Signal)
		return s
	}
}

func signalName(s syscall.Signal) string {
	if s == syscall.SIGINT {
		return "SIGINT"
	}
	if s == syscall.SIGTERM {
		return "SIGTERM"
	}
	return s.String()
}

// errSilent is returned by commands that already printed their outcome
// (e.g. verify's report) and only need to set the exit code.
var errSilent = errors.New("silent")

type usageError struct{ error }

// NewRootCmd builds the command tree; out/errOut are where commands print.
func NewRootCmd(out, errOut io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "sluice",
		Short: "Move a live MySQL/MariaDB database into PostgreSQL, and prove nothing was lost",
		Long: `sluice copies a MySQL or MariaDB database into PostgreSQL (or openGauss) with
near-zero downtime: a consistent parallel snapshot, then continuous row-binlog
replication applied in parallel exactly once, and a built-in verification that
compares both sides chunk by chunk.

Connection settings come from --source/--target URLs, SLUICE_SOURCE/SLUICE_TARGET,
or a YAML file given with --config (keys are the flag names). Flags win over
environment variables, environment variables over the file. Passwords stay out
of the command line: --source-password-file FILE or SLUICE_SOURCE_PASSWORD (the
same for --target and alter's --replica), or a config file of mode 0600.

Exit codes: 0 success, 1 failure (verify: differences found), 2 configuration
or pre-flight error, 3 (verify --online) no difference but rows still in
flight, 130 (SIGINT) or 143 (SIGTERM) stopped before the work was
done (a snapshot, verify, cutover, alter, or --until-caught-up; run the same
command again to resume). replicate and stream without --until-caught-up stop
on SIGINT/SIGTERM after committing what they received, and exit 0.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.Version = versionLine()
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(out)
	root.SetErr(errOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	pf := root.PersistentFlags()
	pf.String("config", "", "YAML file with settings; keys are flag names (e.g. `sluice.yaml` with \"source: mysql://...\")")
	pf.String("log-format", "auto", "log format: auto (text on a terminal, JSON otherwise), text or json")
	pf.String("log-level", "info", "log level: debug, info, warn or error")

	root.AddCommand(
		newSnapshotCmd(),
		newReplicateCmd(),
		newStreamCmd(),
		newMigrateCmd(),
		newVerifyCmd(),
		newStatusCmd(),
		newCutoverCmd(),
		newDropCmd(),
		newAlterCmd(),
		newVersionCmd(),
	)
	return root
}

// Settings is what every subcommand gets: merged settings and a logger.
type Settings struct {
	K   *koanf.Koanf
	Log *slog.Logger
}

// loadSettings merges flags, env and file for cmd and builds the logger.
func loadSettings(cmd *cobra.Command) (*Settings, error) {
	path, _ := cmd.Flags().GetString("config")
	if path == "" {
		path = os.Getenv(config.EnvPrefix + "CONFIG")
	}
	k, unknown, err := config.Load(cmd.Flags(), path)
	if err != nil {
		return nil, exitcode.ConfigError(err)
	}
	log, err := logging.New(cmd.ErrOrStderr(), k.String("log-format"), k.String("log-level"))
	if err != nil {
		return nil, exitcode.ConfigError(err)
	}
	// The vitess SQL parser logs a WARN of its own, in its own format, for
	// every DDL it reads only partly (MariaDB's UUID type...), which sluice
	// handles: into sluice's log at debug level.
	vtlog.SwapLogger(slog.New(logging.Demoted(log.Handler(), slog.LevelDebug)).With("component", "sqlparser"))
	for _, name := range config.CommandLinePasswords(cmd.Flags()) {
		log.Warn("the --"+name+" URL on the command line has a password: every user of this machine sees it (ps); "+
			"give the URL without it and the password in a file or the environment (docs/secrets.md)",
			"fix", "--"+config.PasswordFileFlag(name)+" FILE (mode 0600) or "+config.PasswordEnv(name))
	}
	if len(unknown) > 0 {
		// One file may serve several commands: a key that is a flag of
		// another sluice command is fine, anything else is a mistake.
		all := allFlagNames(cmd.Root())
		for _, key := range unknown {
			if rowPolicyKeys[key] && movesRows[cmd.Name()] {
				// Never a copy that silently moves unfiltered or unmasked rows.
				return nil, exitcode.ConfigError(fmt.Errorf("config file %s: %q: sluice %s does not apply row filters and column masks yet "+
					"(replicate does, docs/filters-masks.md); remove the key for this command or use a config file without it", path, key, cmd.Name()))
			}
			if !all[key] {
				return nil, exitcode.ConfigError(fmt.Errorf("config file %s: unknown setting %q: no sluice command has a flag --%s "+
					"(keys are flag names, e.g. source, target, workers; see sluice <command> --help)", path, key, key))
			}
		}
		log.Debug("config file keys that are not settings of this command", "command", cmd.Name(), "keys", unknown)
	}
	s := &Settings{K: k, Log: log}
	if cmd.Flags().Lookup("hook") != nil {
		// Before any connection: a misspelt event or a missing hook
		// program is refused at once, not after the pre-flight.
		if _, err := notifyOptions(cmd, s, nil); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// notImplemented is what a subcommand does until its issue lands: it must
// never pretend to work.
func notImplemented(cmd *cobra.Command, _ []string) error {
	return exitcode.ConfigError(fmt.Errorf("%s: not implemented yet", cmd.Name()))
}

// allFlagNames is every setting of every sluice command: its flags and its
// password settings.
func allFlagNames(root *cobra.Command) map[string]bool {
	names := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
		for _, key := range config.SecretKeys(c.Flags()) {
			names[key] = true
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return names
}
