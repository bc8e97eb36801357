package cli

import (
	"fmt"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/replicate"
	"github.com/sluice-db/sluice/internal/reverse"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source"
	engines "github.com/sluice-db/sluice/internal/target"
)

// isPostgresSource reports whether --source names a PostgreSQL database
// (the source registry, by the URL's scheme): replicate then runs the
// reverse stream PostgreSQL → MySQL.
func isPostgresSource(s *Settings) bool {
	return source.Of(s.K.String("source")) == source.Postgres
}

// reverseOptions reads the settings of `replicate --source postgres://…
// --target mysql://…`. The PostgreSQL schema is the MySQL database's name,
// or what --schema-map maps it to (the forward stream's own mapping,
// read backwards).
func reverseOptions(s *Settings) (reverse.Options, error) {
	k := s.K
	// Settings of the binlog stream mean nothing here: refused rather than
	// silently ignored.
	for _, f := range []string{"include", "exclude", "start-gtid", "start-position", "server-id", "skip-ddl", "target-engine"} {
		if k.Exists(f) && k.String(f) != "" && k.String(f) != "0" && k.String(f) != "[]" {
			return reverse.Options{}, exitcode.ConfigError(fmt.Errorf("--%s does not apply to the reverse stream (a postgres:// --source): "+
				"its tables are the PostgreSQL schema's that the MySQL database has (docs/reverse.md)", f))
		}
	}
	src, err := config.ParseTarget(k.String("source"))
	if err != nil {
		return reverse.Options{}, exitcode.ConfigError(fmt.Errorf("--source: %w", err))
	}
	if err := src.ApplyTLSFlags(tlsFlags(s, "source")); err != nil {
		return reverse.Options{}, exitcode.ConfigError(err)
	}
	// The engine parses the URL and applies the --target-ssl-* flags.
	eng, err := engines.Open(k.String("target"), engines.Options{TLS: tlsFlags(s, "target"), Tables: true})
	if err != nil {
		return reverse.Options{}, exitcode.ConfigError(err)
	}
	tgt := engines.MySQLOf(eng)
	if !eng.Capabilities().WayBack || tgt == nil {
		return reverse.Options{}, exitcode.ConfigError(fmt.Errorf("a postgres:// --source replicates back into MySQL/MariaDB: --target must be a mysql:// URL"))
	}
	maxMem, err := replicate.ParseSize(k.String("max-txn-memory"))
	if err != nil {
		return reverse.Options{}, exitcode.ConfigError(fmt.Errorf("--max-txn-memory: %w", err))
	}
	onError := k.String("on-error")
	if onError != "stop" && onError != "skip-and-log" {
		return reverse.Options{}, exitcode.ConfigError(fmt.Errorf("--on-error %q: want stop or skip-and-log", onError))
	}
	o := reverse.Options{Source: src, Target: *tgt, Stream: k.String("stream"), Workers: k.Int("workers"),
		MaxTxnMemory: maxMem, SkipBadRows: onError == "skip-and-log", UntilCaughtUp: k.Bool("until-caught-up"),
		Standby: k.Bool("standby"), StartAtCurrentLSN: k.Bool("start-at-current-lsn"), Retry: targetRetry(k.Duration("target-retry")), Log: s.Log}
	// The forward stream's naming read backwards. An excluded column has no
	// PostgreSQL value to carry back: refused rather than written as the
	// MySQL default or left stale.
	nameOpts := namingOptions(k)
	if len(nameOpts.ExcludeColumns) > 0 {
		return reverse.Options{}, exitcode.ConfigError(fmt.Errorf("--exclude-columns does not apply to the reverse stream: " +
			"the excluded columns have no value on PostgreSQL to write back into MySQL, so rows would come back without them (docs/reverse.md)"))
	}
	if o.Naming, err = schema.NewNamingOptions(nameOpts); err != nil {
		return reverse.Options{}, exitcode.ConfigError(err)
	}
	o.Schema = o.Naming.Schema(o.Target.Database)
	return o, nil
}
