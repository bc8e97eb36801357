package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/board"
)

// browser is Debian's headless Chromium with a profile of its own.
type browser struct {
	bin, profile string
}

func newBrowser(t *testing.T) *browser {
	return &browser{bin: tool(t, "chromium", "chromium"), profile: t.TempDir()}
}

// run runs Chromium on url after the page's script ran (5 s of virtual
// time: the first poll and its drawing) and returns what it printed.
func (b *browser) run(t *testing.T, url string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + b.profile, "--virtual-time-budget=5000"}, append(args, url)...)
	var out, errOut bytes.Buffer
	c := exec.CommandContext(ctx, b.bin, args...)
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errOut.String())
	}
	return out.Bytes()
}

// dom is the page's DOM as the browser built it.
func (b *browser) dom(t *testing.T, url string) string {
	t.Helper()
	return string(b.run(t, url, "--dump-dom"))
}

// screenshot saves the page as a PNG.
func (b *browser) screenshot(t *testing.T, url, file string) {
	t.Helper()
	b.run(t, url, "--screenshot="+file, "--window-size=1280,900")
	png, err := os.ReadFile(file)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) || len(png) < 10_000 {
		t.Fatalf("screenshot %s: %d bytes, %v", file, len(png), err)
	}
}

// pageOf reads what a person sees of one stream on the page's DOM.
type pageOf struct {
	dom, stream string
}

func (p pageOf) find(t *testing.T, what, expr string) string {
	t.Helper()
	m := regexp.MustCompile(expr).FindStringSubmatch(p.dom)
	if m == nil {
		t.Fatalf("the page shows no %s (/%s/):\n%s", what, expr, p.dom)
	}
	return m[1]
}

// card is the stream's card (up to the next card).
func (p pageOf) card(t *testing.T) pageOf {
	t.Helper()
	return pageOf{dom: p.find(t, "card of stream "+p.stream,
		`(?s)(<article class="card stream" data-stream="`+regexp.QuoteMeta(p.stream)+`">.*?</article>)`), stream: p.stream}
}

func (p pageOf) phase(t *testing.T) string {
	return p.card(t).find(t, "phase", `<span class="name">`+regexp.QuoteMeta(p.stream)+`</span><span class="phase[^"]*" data-phase="([^"]*)"`)
}

// lag is the lag as shown ("3.2 s") and its value.
func (p pageOf) lag(t *testing.T) (shown, value string) {
	c := p.card(t)
	return c.find(t, "lag", `class="big lag-now"[^>]*>([^<]*)<`), c.find(t, "lag value", `data-lag="([^"]*)"`)
}

func (p pageOf) lastError(t *testing.T) string {
	return p.card(t).find(t, "error", `(?s)<div class="error" role="alert"><time[^>]*>[^<]*</time>([^<]+)</div>`)
}

// table is a snapshot table's progress as shown ("42.0 %").
func (p pageOf) table(t *testing.T, name string) string {
	return p.find(t, "progress of table "+name, `(?s)<tr class="table" data-table="`+regexp.QuoteMeta(name)+`".*?<td class="num percent">([^<]*)</td>`)
}

// apiStatus reads /api/status (to wait for a state; the assertions read the page).
func apiStatus(t *testing.T, addr string) (board.Status, bool) {
	t.Helper()
	r, err := http.Get("http://" + addr + "/api/status")
	if err != nil {
		return board.Status{}, false
	}
	defer r.Body.Close()
	var st board.Status
	return st, r.StatusCode == 200 && json.NewDecoder(r.Body).Decode(&st) == nil
}

// waitStatus polls /api/status until ok holds.
func waitStatus(t *testing.T, addr, what string, d time.Duration, p *proc, ok func(board.Status) bool) board.Status {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		p.running(t)
		if st, read := apiStatus(t, addr); read && ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			st, _ := apiStatus(t, addr)
			t.Fatalf("waited %s for %s; status: %+v\n%s", d, what, st, p.out.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}
