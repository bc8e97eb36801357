package deploy

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/metrics"
)

// TestPageRendersVerifyAndToken draws a board this process fills (a
// verify run with a table that differs, a cutover under way, an alter
// copying, a merged topic held back by a shard, a failed stream) in headless Chromium behind a token: opened
// as /#token=…, the page sends it and shows every card; without it, it
// says the token is missing and shows no data.
func TestPageRendersVerifyAndToken(t *testing.T) {
	br := newBrowser(t)
	b := board.New(board.Options{Command: "verify"})
	v := b.Verify("shop")
	v.Start(2, 1000)
	v.Advance(400)
	v.TableDone(board.VerifyTable{Table: "shop.orders", Result: "differences", Rows: 1200, OnlyInSource: 1, Differing: 2, PolicyRows: 3})
	v.TableDone(board.VerifyTable{Table: "shop.users", Result: "equal", Rows: 50})
	c := b.Cutover("shop", []string{"arm", "quiet", "catch-up"})
	c.Step("arm", "ok", "slot sluice_shop_reverse created", 1.5)
	c.Step("quiet", "running", "", 0)
	a := b.Alter("shop.orders")
	a.Attach(func() board.AlterReading {
		return board.AlterReading{Chunks: 10, ChunksDone: 4, Rows: 20000, KeysPending: 7, Applied: 31, Throttle: "pacing writes at 50 %"}
	})
	wm := time.Now().Add(-2*time.Hour - 10*time.Second) // shown in minutes: the seconds the load takes do not show
	b.Merged("shop.global").Observe(map[string]time.Time{"shop_a": wm, "shop_b": {}}, "shop_b", wm)
	s := b.Stream("shop", "replicate")
	s.Stopped(errors.New("apply: shop.users: connection refused"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	if err := metrics.Serve(ctx, metrics.Options{Addr: addr, Registry: metrics.NewRegistry(), Board: b, Token: "tok-9f3",
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}); err != nil {
		t.Fatal(err)
	}

	dom := br.dom(t, "http://"+addr+"/#token=tok-9f3")
	for _, want := range []string{
		`<tr class="verify-table" data-table="shop.orders" data-result="differences"><td>shop.orders</td>`,
		`<td class="num">1,200</td><td class="num">1</td><td class="num">0</td><td class="num">2</td><td class="num">3</td>`,
		`data-table="shop.users" data-result="equal"`,
		`tables 2/2 · <span class="percent">40.0 %</span>`,
		`data-phase="failed">failed</span>`,
		`apply: shop.users: connection refused`,
		`<tr class="cutover-step" data-step="arm" data-result="ok"><td>arm</td>`,
		`<td class="num">1.5 s</td><td>slot sluice_shop_reverse created</td>`,
		`data-step="quiet" data-result="running"`,
		`data-step="catch-up" data-result="pending"`,
		`<span>Alter <span class="name">shop.orders</span></span><span class="phase phase-copying" data-phase="copying">copying</span>`,
		`<span class="percent">40.0 %</span> of the chunks copied`,
		`<dd class="alter-chunks">4 of 10</dd>`,
		`<dd class="alter-changed-keys-pending">7</dd>`,
		`<dd class="alter-throttle">pacing writes at 50 %</dd>`,
		`<tr class="merged-shard" data-shard="shop_b" data-held="true"><td>shop_b</td><td>none yet</td><td class="num">—</td><td>holds the topic back</td></tr>`,
		`<tr class="merged-shard" data-shard="shop_a" data-held="false"><td>shop_a</td>`,
		`<span class="merged-delay">2 h 0 min</span>`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page with the token lacks %s:\n%s", want, dom)
		}
	}
	dom = br.dom(t, "http://"+addr+"/")
	if !strings.Contains(dom, "cannot read the status (401") || strings.Contains(dom, "shop.orders") {
		t.Errorf("the page without the token:\n%s", dom)
	}
}
