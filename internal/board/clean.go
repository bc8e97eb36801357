package board

import (
	"errors"
	"strings"

	"github.com/sluice-db/sluice/internal/config"
)

// maxMessage bounds an error message on the board.
const maxMessage = 2000

// publicError is an error that can say itself without a row's content
// (pipeline.Error: no key, no SQL, no target detail line).
type publicError interface {
	error
	Public() string
}

// Message is err as the board shows it: every error in its chain that can
// say itself without a row's content does so (its text is replaced in the
// wrapping messages), then Clean.
func Message(err error) string {
	msg := err.Error()
	for e := err; e != nil; e = errors.Unwrap(e) {
		var pe publicError
		if !errors.As(e, &pe) {
			break
		}
		msg = strings.ReplaceAll(msg, pe.Error(), pe.Public())
		e = pe
	}
	return Clean(msg)
}

// Clean is a message as the board shows it: every URL's password replaced
// (errors should carry none; this is the second line of defence for a page
// that may be shared), and bounded in length.
func Clean(msg string) string {
	if strings.Contains(msg, "://") {
		msg = strings.Join(config.RedactArgs(strings.Split(msg, " ")), " ")
	}
	if len(msg) > maxMessage {
		msg = msg[:maxMessage] + "…"
	}
	return msg
}
