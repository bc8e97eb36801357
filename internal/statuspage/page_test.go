package statuspage

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/board"
)

func get(t *testing.T, url, auth string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestPageAssetsAndStatus(t *testing.T) {
	b := board.New(board.Options{Command: "replicate"})
	b.Stream("shop", "replicate").SetPhase(board.PhaseReplicating)
	mux := http.NewServeMux()
	Register(mux, Options{Status: func(*http.Request) (board.Status, error) { return b.Status(), nil }})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for path, want := range map[string]string{"/": `<script src="app.js"`, "/app.js": "api/status", "/app.css": ".card"} {
		resp, body := get(t, srv.URL+path, "")
		if resp.StatusCode != 200 || !strings.Contains(body, want) {
			t.Fatalf("%s: %d, body without %q", path, resp.StatusCode, want)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") {
			t.Fatalf("%s: CSP %q", path, csp)
		}
	}
	if resp, _ := get(t, srv.URL+"/nothing", ""); resp.StatusCode != 404 {
		t.Fatalf("/nothing: %d, want 404 (the page is / alone)", resp.StatusCode)
	}
	resp, body := get(t, srv.URL+"/api/status", "")
	var st board.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/api/status: %d %v %s", resp.StatusCode, err, body)
	}
	if st.Command != "replicate" || len(st.Streams) != 1 || st.Streams[0].Name != "shop" || st.Streams[0].Phase != board.PhaseReplicating {
		t.Fatalf("/api/status = %+v", st)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("/api/status Cache-Control %q", cc)
	}
}

func TestTokenGuardsTheData(t *testing.T) {
	b := board.New(board.Options{Command: "replicate"})
	mux := http.NewServeMux()
	Register(mux, Options{Token: "s3cret-token", Status: func(*http.Request) (board.Status, error) { return b.Status(), nil }})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, auth := range []string{"", "Bearer wrong", "s3cret-token", "Basic s3cret-token", "Bearer s3cret-token2"} {
		resp, body := get(t, srv.URL+"/api/status", auth)
		if resp.StatusCode != 401 || strings.Contains(body, `"command"`) || resp.Header.Get("WWW-Authenticate") == "" {
			t.Fatalf("auth %q: %d %s, want 401 without data", auth, resp.StatusCode, body)
		}
		if strings.Contains(body, "s3cret") {
			t.Fatalf("the refusal shows the token: %s", body)
		}
	}
	if resp, body := get(t, srv.URL+"/api/status", "Bearer s3cret-token"); resp.StatusCode != 200 || !strings.Contains(body, `"command": "replicate"`) {
		t.Fatalf("with the token: %d %s", resp.StatusCode, body)
	}
	// The page itself carries no data: it loads, then asks for the token.
	if resp, body := get(t, srv.URL+"/", ""); resp.StatusCode != 200 || strings.Contains(body, "s3cret") {
		t.Fatalf("/ without the token: %d", resp.StatusCode)
	}
}
