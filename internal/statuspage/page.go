// Package statuspage serves the status page (/) and its data
// (/api/status) from a board.Board: one HTML page with its own script and
// style (embedded, no external assets, no build step) that polls
// /api/status every 2 s and draws each stream's lag chart as inline SVG.
//
// The page and its assets carry no data, so they are served to anyone who
// reaches the address; with a token, /api/status needs it as a bearer token
// (the page reads it from its URL's fragment, #token=…, which browsers
// never send to a server or put in a Referer).
package statuspage

import (
	"crypto/subtle"
	"embed"
	"encoding/json"
	"net/http"

	"github.com/sluice-db/sluice/internal/board"
)

//go:embed assets
var assets embed.FS

// Options of the handlers.
type Options struct {
	// Status returns what /api/status serves (a board's Status, or what
	// sluice status --serve reads from a target).
	Status func(r *http.Request) (board.Status, error)
	// Token, when set, is required on /api/status as "Authorization: Bearer".
	Token string
}

// Register adds /, /app.js, /app.css and /api/status to mux.
func Register(mux *http.ServeMux, o Options) {
	mux.Handle("GET /{$}", asset("assets/index.html", "text/html; charset=utf-8"))
	mux.Handle("GET /app.js", asset("assets/app.js", "text/javascript; charset=utf-8"))
	mux.Handle("GET /app.css", asset("assets/app.css", "text/css; charset=utf-8"))
	mux.Handle("GET /api/status", RequireToken(o.Token, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st, err := o.Status(r)
		if err != nil {
			http.Error(w, board.Message(err), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		_ = enc.Encode(st)
	})))
}

// RequireToken answers 401 unless the request carries the bearer token
// (no token: every request passes).
func RequireToken(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="sluice"`)
			http.Error(w, "a token is required: send Authorization: Bearer <the --status-token-file's token>, "+
				"or open the page as /#token=<token>", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// asset serves one embedded file under a strict content security policy:
// the page runs only its own script and talks only to its own origin.
func asset(name, contentType string) http.Handler {
	body, err := assets.ReadFile(name)
	if err != nil {
		panic("statuspage: missing embedded " + name) // a build defect, caught by the tests
	}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; "+
			"connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		_, _ = w.Write(body)
	})
}
