package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/exitcode"
)

// TestStandbyRefusedWhereItDoesNotApply: --standby on the way back (a
// postgres:// --source) is refused before anything connects, not ignored.
func TestStandbyRefusedWhereItDoesNotApply(t *testing.T) {
	code, out, errOut := runCLI(context.Background(), "replicate", "--source", "postgres://sluice@127.0.0.1:1/shop",
		"--target", "mysql://sluice@127.0.0.1:1/shop", "--stream", "shop_reverse", "--standby", "--log-level", "error")
	const want = "--standby does not apply to the reverse stream"
	if code != exitcode.Config || !strings.Contains(errOut, want) {
		t.Errorf("replicate --standby from postgres://: exit %d, want 2 and %q:\n%s%s", code, want, out, errOut)
	}
}
