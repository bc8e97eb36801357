package snapshot

import (
	"context"
	"fmt"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
)

// copyRetentionMargin is the time after the copy that replication needs to
// start from the snapshot's position (migrate starts at once; a person
// running replicate afterwards needs longer).
const copyRetentionMargin = time.Hour

// checkCopyRetention refuses a copy that cannot end before the source purges
// the binlog position the snapshot records at its start: with --max-rate
// the copy lasts at least the tables' size (information_schema's estimate)
// divided by the rate; that plus copyRetentionMargin must fit in the
// source's retention. Without --max-rate there is no lower bound on the
// duration, and --min-binlog-retention (pre-flight) stands alone; 0 there
// disables this check too.
func (r *runner) checkCopyRetention(ctx context.Context) error {
	if r.o.MinBinlogRetention <= 0 || r.o.MaxRate <= 0 || r.o.SchemaOnly {
		return nil
	}
	var bytes int64
	for _, j := range r.jobs {
		bytes += j.size.Bytes
	}
	retention, err := binlog.ReadRetention(ctx, r.Src.DB)
	if err != nil {
		return err
	}
	need, ok := copyRetentionNeeded(bytes, r.o.MaxRate, retention)
	if ok {
		return nil
	}
	return exitcode.ConfigError(fmt.Errorf("at --max-rate %d bytes/s the copy of about %d MB takes at least %s; with %s for "+
		"replication to start, the source's binlog retention of %s purges the position the snapshot records at its start before "+
		"replication can read it; fix: raise the retention to at least %s (docs/replication.md, \"Managed sources\"), or a higher --max-rate",
		r.o.MaxRate, bytes>>20, (need - copyRetentionMargin).Round(time.Second), copyRetentionMargin, retention, ceilHour(need)))
}

// copyRetentionNeeded is the retention a copy of bytes at rate needs, and
// whether retention (0: never purged) gives it.
func copyRetentionNeeded(bytes, rate int64, retention time.Duration) (time.Duration, bool) {
	need := time.Duration(float64(bytes)/float64(rate)*float64(time.Second)) + copyRetentionMargin
	return need, retention == 0 || retention >= need
}

// ceilHour rounds up to whole hours, for a setting to change.
func ceilHour(d time.Duration) time.Duration { return (d + time.Hour - 1).Truncate(time.Hour) }
