package testenv

import (
	"io"
	"log/slog"
	"os"
)

// Logger is the logger tests give the code under test: silent, or debug
// level text on stderr when SLUICE_TEST_LOG is set (SLUICE_TEST_LOG=1 go
// test -run X -v shows what the code did).
func Logger() *slog.Logger {
	if os.Getenv("SLUICE_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}
