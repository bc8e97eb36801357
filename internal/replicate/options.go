// Package replicate runs `sluice replicate`: it reads the row binlog from
// where the target's checkpoint says (internal/source/mysql/binlog) and hands the
// transactions to the parallel applier (internal/pipeline, into the target engine's
// sink: Options.Target, a target.Engine), with metrics, a
// status line, graceful stop and --until-caught-up. docs/replication.md
// explains the method.
package replicate

import (
	"errors"
	"fmt"
	"github.com/sluice-db/sluice/internal/board"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/rowpolicy"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	engines "github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/typemap"
)

// DefaultMaxTxnMemory is the default --max-txn-memory.
const DefaultMaxTxnMemory = 256 << 20

// Options are the settings of one replicate run.
type Options struct {
	Source config.MySQL
	// Target is the engine the run writes (internal/target): cli opens it
	// from --target with target.Open, stream and the tests build it with
	// their sink package's NewEngine. Replicate asks its capabilities and
	// facets, never which engine it is.
	Target engines.Engine
	Stream string
	// ServerID is the replica id sluice reads the binlog with; 0 derives
	// one from the stream name and the target (DefaultServerID).
	ServerID uint32
	// StartGTID / StartPosition ("file:pos") say where a stream without a
	// checkpoint starts; a stream with a checkpoint ignores them.
	StartGTID     string
	StartPosition string
	// Include, Exclude: db.table patterns (schema.NewFilter); SchemaMap: src=dst.
	Include, Exclude, SchemaMap []string
	ZeroDate                    typemap.ZeroDatePolicy
	Nul                         typemap.NulPolicy
	Workers                     int
	// MaxTxnMemory bounds the decoded changes held in memory: a larger
	// source transaction is handed to apply in fragments, which apply
	// writes into one target transaction.
	MaxTxnMemory int64
	// SkipDDL are --skip-ddl patterns (globs, see ddl.MatchSkip).
	SkipDDL []string
	// UntilCaughtUp: exit once everything the source had written when the
	// stream first went idle is applied.
	UntilCaughtUp bool
	// Standby waits while another replicator of the stream is alive and
	// takes over when it is not (sink/postgres standby.go).
	Standby bool
	// run is this Run's identity on the target (set by Run).
	run *pipeline.RunIdentity
	// Registry receives the metrics (nil: none).
	Registry prometheus.Registerer
	// Board receives the stream's status for the status page (nil: none).
	Board *board.Board
	Log   *slog.Logger
	// StatusEvery is the period of the status log line (default 5s).
	StatusEvery time.Duration
	// Heartbeat is the source heartbeat period (default 1s).
	Heartbeat time.Duration
	// DrainTimeout bounds how long a graceful stop waits for apply to commit
	// what it has received (default 10s).
	DrainTimeout time.Duration
	// TargetRetry is how long replicate keeps reconnecting after it lost
	// the target (a PostgreSQL restart or failover) before it gives up
	// (default 10m; a negative value never retries).
	TargetRetry time.Duration

	// Identifiers, Renames, ExcludeColumns: --identifiers, --rename and
	// --exclude-columns (schema.NamingOptions).
	Identifiers             string
	Renames, ExcludeColumns []string
	// RowPolicy: --where and --mask (internal/rowpolicy), applied to every
	// change as it enters the pipeline; nil or empty for none.
	RowPolicy *rowpolicy.Policy
}

func (o Options) withDefaults() (Options, error) {
	if o.Stream == "" {
		o.Stream = checkpoint.DefaultStream
	}
	if o.ZeroDate == "" {
		o.ZeroDate = typemap.ZeroDateNull
	}
	if o.Nul == "" {
		o.Nul = typemap.NulStrip
	}
	if o.MaxTxnMemory == 0 {
		o.MaxTxnMemory = DefaultMaxTxnMemory
	}
	var caps engines.Capabilities
	if o.Target != nil {
		caps = o.Target.Capabilities()
	}
	if d := caps.DefaultWorkers; o.Workers <= 0 && d > 0 {
		o.Workers = d
	}
	if o.StatusEvery <= 0 {
		o.StatusEvery = 5 * time.Second
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = time.Second
	}
	if o.TargetRetry == 0 {
		o.TargetRetry = 10 * time.Minute
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = 10 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	var errs []error
	if o.Target == nil {
		// A programming error of the caller (cli always opens one).
		errs = append(errs, errors.New("replicate: no target engine given"))
	}
	if err := (typemap.Options{ZeroDate: o.ZeroDate, Nul: o.Nul}).Validate(); err != nil {
		errs = append(errs, err)
	}
	if o.MaxTxnMemory < 16<<20 {
		errs = append(errs, fmt.Errorf("--max-txn-memory %s: at least 16MB", FormatSize(o.MaxTxnMemory)))
	}
	if o.Standby && o.Target != nil && !caps.Standby {
		errs = append(errs, fmt.Errorf("--standby works into PostgreSQL and MySQL targets, not yet into %s: run one replicator of the stream", o.Target.Name()))
	}
	if o.StartGTID != "" && o.StartPosition != "" {
		errs = append(errs, errors.New("--start-gtid and --start-position exclude each other"))
	}
	if o.StartPosition != "" {
		if _, err := ParsePosition(o.StartPosition); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return o, exitcode.ConfigError(err)
	}
	return o, nil
}

// targetRedacted names the target for logs and messages (and the default
// server id).
func (o Options) targetRedacted() string { return o.Target.Redacted() }

// ParsePosition parses --start-position file:pos (e.g. mysql-bin.000042:1337).
func ParsePosition(s string) (binlogpos.Position, error) {
	file, pos, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || file == "" {
		return binlogpos.Position{}, fmt.Errorf("--start-position %q: want file:pos, e.g. mysql-bin.000042:4", s)
	}
	p, err := strconv.ParseUint(pos, 10, 32)
	if err != nil || p < 4 {
		return binlogpos.Position{}, fmt.Errorf("--start-position %q: the offset must be a number >= 4", s)
	}
	return binlogpos.Position{File: file, Pos: uint32(p)}, nil
}

// ParseSize parses a memory size: a number with an optional unit, e.g.
// 256MB, 1GiB, 512m, 1073741824. KB/MB/GB and KiB/MiB/GiB both mean powers
// of 1024, as memory sizes are usually meant.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("size %q: want a number with an optional unit, e.g. 256MB or 1GiB", s)
	}
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
		"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
		"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
		"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40,
	}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("size %q: unknown unit %q (use KB, MB, GB, KiB, MiB or GiB)", s, unit)
	}
	b := v * mult
	if b >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(b), nil
}

// FormatSize prints a byte count with a binary unit.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	}
	return strconv.FormatInt(n, 10) + "B"
}

// HumanSize prints a measured byte count with one decimal in its largest
// binary unit, e.g. 660.2 KiB (logical.HumanSize; FormatSize is exact, for
// flag values).
func HumanSize(n int64) string { return logical.HumanSize(n) }

// NamingOptions are the naming flags of the run (schema.NewNamingOptions).
func (o Options) NamingOptions() schema.NamingOptions {
	return schema.NamingOptions{SchemaMap: o.SchemaMap, Identifiers: o.Identifiers, Renames: o.Renames,
		ExcludeColumns: o.ExcludeColumns, RowPolicy: o.RowPolicy.Describe()}
}

// scopeSettings are the settings that decide what a run writes, one
// "name=value" line each: a standby must run with those of the replicator
// it takes over from, or the target would change course at the takeover
// (pgsink.Config.Settings).
func (o Options) scopeSettings() []string {
	list := func(v []string) string { return strings.Join(v, ",") }
	return []string{
		"include=" + list(o.Include), "exclude=" + list(o.Exclude), "schema-map=" + list(o.SchemaMap),
		"identifiers=" + o.Identifiers, "rename=" + list(o.Renames), "exclude-columns=" + list(o.ExcludeColumns),
		"zero-date=" + string(o.ZeroDate), "nul-char=" + string(o.Nul), "skip-ddl=" + list(o.SkipDDL),
		"row-policy=" + list(o.RowPolicy.Describe()),
	}
}
