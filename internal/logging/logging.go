// Package logging builds the slog logger from --log-format and --log-level.
package logging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
)

// New returns a logger writing to w. format is "auto" (text on a terminal,
// JSON otherwise), "text" or "json"; level is debug, info, warn or error.
func New(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch strings.ToLower(format) {
	case "", "auto":
		if IsTerminal(w) {
			return slog.New(slog.NewTextHandler(w, opts)), nil
		}
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: use auto, text or json", format)
}

// IsTerminal reports whether w is a character device (a TTY).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Demoted returns a handler that logs every record of h at level to (and
// drops it when h is not enabled there): for libraries whose warnings are
// for their own developers, such as the SQL parser's note that it read a
// statement only partly, which sluice handles itself.
func Demoted(h slog.Handler, to slog.Level) slog.Handler { return demoted{h, to} }

type demoted struct {
	h  slog.Handler
	to slog.Level
}

func (d demoted) Enabled(ctx context.Context, _ slog.Level) bool { return d.h.Enabled(ctx, d.to) }

func (d demoted) Handle(ctx context.Context, r slog.Record) error {
	r.Level = d.to
	return d.h.Handle(ctx, r)
}

func (d demoted) WithAttrs(as []slog.Attr) slog.Handler { return demoted{d.h.WithAttrs(as), d.to} }
func (d demoted) WithGroup(g string) slog.Handler       { return demoted{d.h.WithGroup(g), d.to} }
