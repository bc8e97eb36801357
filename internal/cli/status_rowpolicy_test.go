package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
)

// TestStatusListsRowPolicy: status shows the stream's recorded filters,
// masks and key fingerprint, one line each.
func TestStatusListsRowPolicy(t *testing.T) {
	var b bytes.Buffer
	printStatus(&b, &streamStatus{Stream: "s", Naming: &schema.NamingOptions{Identifiers: schema.IdentPreserve,
		RowPolicy: []string{"mask shop.*.email=hash", "where shop.orders: tenant = 1", "mask key fingerprint 0011223344556677"}}})
	for _, want := range []string{"policy:          mask shop.*.email=hash\n", "policy:          where shop.orders: tenant = 1\n", "policy:          mask key fingerprint 0011223344556677\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, b.String())
		}
	}
}
