package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// A standby replicator (replicate --standby) waits while another replicator
// of the stream is alive and takes over when it is not. Each target fences
// its own way (StandbyFence); the waiting is the same for all:
//
//   - the active one died (kill -9, its host gone): its sessions end, the
//     fence frees, and the standby fences as any restart does;
//   - it is frozen (SIGSTOP, a stalled host, a partition that keeps its TCP
//     sessions open): its sessions stay, holding the fence, but none does
//     anything. A live replicator's leader session runs a statement every
//     checkpoint interval (Heartbeater), so when none of its sessions has
//     done anything for the lease and none is busy on the server, the
//     standby ends them and fences as after a crash.
//
// The frozen one, once it runs again, writes nothing: its sessions are gone,
// and each new one checks, after taking the fence, that its run still owns
// the stream (the owner record the new run claimed under the exclusive fence);
// it stops with ErrTakenOver (exit 2). Exactly once holds as after a kill -9:
// the new owner reads the checkpoint and applied records only after every
// session of the old one has ended.

// FenceHolders describes the replicator holding a stream's fence.
type FenceHolders struct {
	// Live: the sessions belong to a process that may be running (not the
	// left-overs of a dead one, which the fence just waits for).
	Live bool
	// Idle is how long none of the sessions has done anything; Busy says
	// one runs a statement on the server.
	Idle time.Duration
	Busy bool
	// Describe names the replicator, for logs.
	Describe string
	// End ends the sessions (a frozen replicator's).
	End func(ctx context.Context) error
}

// StandbyFence is a target's fence, as a standby watches it.
type StandbyFence interface {
	// FenceFree reports whether no session holds the stream's fence.
	FenceFree(ctx context.Context) (bool, error)
	// FenceHolders describes those that do.
	FenceHolders(ctx context.Context) (FenceHolders, error)
}

// AwaitTurn returns once the stream's fence is free, or held only by
// sessions of a dead run, or by a frozen replicator whose sessions it ended.
func AwaitTurn(ctx context.Context, f StandbyFence, stream string, lease time.Duration, log *slog.Logger) error {
	waiting := false
	for {
		free, err := f.FenceFree(ctx)
		if err != nil || free {
			return err
		}
		h, err := f.FenceHolders(ctx)
		if err != nil {
			return err
		}
		if !h.Live {
			return nil // a dead run's sessions: the fence waits for them
		}
		if !h.Busy && h.Idle >= lease {
			log.Warn("standby: taking over the stream: the active sluice has done nothing for longer than the lease; ending its sessions",
				"stream", stream, "active", h.Describe, "idle", h.Idle.Round(time.Millisecond).String(), "lease", lease.String())
			return h.End(ctx)
		}
		if !waiting {
			waiting = true
			log.Info("standby: the stream is replicated by another sluice; waiting to take over", "stream", stream,
				"active", h.Describe, "lease", lease.String())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// SettingsRecord is how a run's settings ("name=value" lines) are kept in
// the owner record.
func SettingsRecord(settings []string) string { return strings.Join(settings, "\n") }

// StandbySettingsRefusal refuses a standby whose settings differ from those
// the stream's owner recorded (SettingsRecord): taking over, it would write
// something else. nil when they are the same.
func StandbySettingsRefusal(stream, recorded string, mine []string) error {
	diff := settingsDifference(strings.Split(recorded, "\n"), mine)
	if diff == "" {
		return nil
	}
	return fmt.Errorf("--standby: this replicator's settings differ from those of the stream %q's replicator: %s; "+
		"start the standby with the same options (or, when the stream's settings are to change, stop every replicator "+
		"of it and start one without --standby first)", stream, diff)
}

// settingsDifference names the settings in which mine differ from owner's
// ("" when none).
func settingsDifference(owner, mine []string) string {
	values := func(lines []string) map[string]string {
		m := map[string]string{}
		for _, l := range lines {
			if k, v, ok := strings.Cut(l, "="); ok {
				m[k] = v
			}
		}
		return m
	}
	o, m := values(owner), values(mine)
	var out []string
	for _, l := range mine {
		k, _, _ := strings.Cut(l, "=")
		if o[k] != m[k] {
			out = append(out, fmt.Sprintf("--%s %q where the running one has %q", k, m[k], o[k]))
		}
	}
	return strings.Join(out, ", ")
}

// TakenOverError is the error of a run that no longer owns its stream
// (detail says who does); it wraps ErrTakenOver.
func TakenOverError(stream string, detail error) error {
	return fmt.Errorf("apply: this replicator no longer owns stream %q (%w): %w while this one was "+
		"not running or not answering; it writes nothing more and exits", stream, detail, ErrTakenOver)
}
