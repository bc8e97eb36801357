package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/sluice-db/sluice/internal/config"
)

// Webhook is one --notify-webhook URL.
type Webhook struct {
	URL      string
	redacted string // for logs: scheme and host only (elided)
}

// ParseWebhook checks one --notify-webhook URL: http or https, with a host.
func ParseWebhook(raw string) (Webhook, error) {
	shown := config.RedactArgs([]string{raw})[0]
	u, err := url.Parse(raw)
	if err != nil {
		return Webhook{}, fmt.Errorf("--notify-webhook %s: not a URL: give one like https://hooks.example.com/sluice", shown)
	}
	shown = elided(u)
	if u.Scheme != "http" && u.Scheme != "https" {
		return Webhook{}, fmt.Errorf("--notify-webhook %s: the scheme is %q: give an http:// or https:// URL, e.g. https://hooks.example.com/sluice", shown, u.Scheme)
	}
	if u.Host == "" {
		return Webhook{}, fmt.Errorf("--notify-webhook %s: the URL has no host: give one like https://hooks.example.com/sluice", shown)
	}
	return Webhook{URL: raw, redacted: shown}, nil
}

// elided is a webhook URL as logs show it: scheme and host only. Its
// user, password, path and query are left out: services put their token
// there (https://hooks.slack.com/services/T000/B000/XXXX).
func elided(u *url.URL) string {
	s := u.Scheme + "://" + u.Host
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		s += "/…"
	}
	return s
}

// post delivers ev, retrying a refused, failed or non-2xx POST with
// doubling backoff until attempts are spent or ctx ends. failed is called
// for each failed attempt.
func (w Webhook) post(ctx context.Context, client *http.Client, ev Event, r Retry, failed func(error)) error {
	body, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	wait := r.Backoff
	for attempt := 1; ; attempt++ {
		err = w.once(ctx, client, body)
		if err == nil {
			return nil
		}
		failed(err)
		if attempt >= r.Attempts {
			return fmt.Errorf("gave up after %d attempts: %w", attempt, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped retrying: %w", err)
		case <-time.After(wait):
		}
		wait = min(2*wait, r.MaxBackoff)
	}
}

func (w Webhook) once(ctx context.Context, client *http.Client, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "sluice")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its text repeats the URL, which may hold a token
		}
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("HTTP %s", resp.Status)
	}
	return nil
}
