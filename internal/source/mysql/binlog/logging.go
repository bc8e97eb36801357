package binlog

import (
	"context"
	"log/slog"
)

// quieter passes go-mysql's log records on one level lower: its INFO lines
// (configuration dumps, every rotate) are debugging detail for a sluice
// user, and its ERROR lines about a lost connection are followed by the
// stream's own WARN about the reconnect.
type quieter struct{ h slog.Handler }

func (q quieter) shift(l slog.Level) slog.Level {
	if l >= slog.LevelWarn {
		return slog.LevelWarn
	}
	return slog.LevelDebug
}

func (q quieter) Enabled(ctx context.Context, l slog.Level) bool { return q.h.Enabled(ctx, q.shift(l)) }

func (q quieter) Handle(ctx context.Context, r slog.Record) error {
	r.Level = q.shift(r.Level)
	return q.h.Handle(ctx, r)
}

func (q quieter) WithAttrs(as []slog.Attr) slog.Handler { return quieter{q.h.WithAttrs(as)} }
func (q quieter) WithGroup(name string) slog.Handler    { return quieter{q.h.WithGroup(name)} }

// libraryLogger is the logger handed to go-mysql.
func libraryLogger(l *slog.Logger) *slog.Logger {
	return slog.New(quieter{l.Handler()}).With("component", "go-mysql")
}
