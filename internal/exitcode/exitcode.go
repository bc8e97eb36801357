// Package exitcode carries the process exit code inside an error, so that the
// engines can say "this is the user's configuration" without knowing the CLI.
// 0 = success, 1 = runtime failure (or, for verify, differences found),
// 2 = configuration or pre-flight error, 3 = verify could not conclude
// (rows still in flight under writes), 128+N = stopped by signal N (130:
// SIGINT, 143: SIGTERM) before the work was done.
package exitcode

import "errors"

const (
	OK      = 0
	Failure = 1
	Config  = 2
	// InFlight: verify --online found no difference, but rows that the
	// source kept changing through every re-check could not be compared.
	InFlight = 3
)

// Interrupted is the exit code of a command that signal signo stopped
// before its work was done: 128 + signo, what a shell reports for a process
// the signal ended (130 for SIGINT, 143 for SIGTERM).
func Interrupted(signo int) int { return 128 + signo }

// Error wraps err with an exit code.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ConfigError marks err as a configuration or pre-flight problem (exit 2).
func ConfigError(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: Config, Err: err}
}

// WithCode marks err with any exit code.
func WithCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// Of returns the exit code for err: 0 for nil, the wrapped code, else 1.
func Of(err error) int {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Failure
}
