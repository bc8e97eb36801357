package replicate

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestSourceFailoverBehindAMovedAddress: the source URL names one address (a
// DNS name or a virtual IP) that moves from the primary to the promoted
// replica; a proxy stands in for it. Replicate finds another server (another
// server_id) behind the same address, checks that it holds every
// transaction the checkpoint covers, continues there by GTID, and the
// target equals the new primary row for row.
func TestSourceFailoverBehindAMovedAddress(t *testing.T) {
	failoverFlavors(t, testSourceFailoverBehindAMovedAddress)
}

func testSourceFailoverBehindAMovedAddress(t *testing.T, start serverStarter) {
	f := newFailoverRig(t, start, [2]int{61, 62})
	vip := testenv.StartTCPProxy(t, fmt.Sprintf("127.0.0.1:%d", f.primary.Port))
	src, err := config.ParseSource(fmt.Sprintf("mysql://sluice:sluice@127.0.0.1:%d/%s", vip.Port(), f.db))
	if err != nil {
		t.Fatal(err)
	}
	o := f.options()
	o.Source = src
	o.Log = slog.New(slog.NewTextHandler(f.logs, nil))
	run := f.rig.start(o)
	f.write(f.primaryDB, 1, 300)
	f.waitTargetEquals(f.primaryDB, 60*time.Second)
	f.write(f.primaryDB, 301, 400)
	f.replica.WaitCaughtUp(t, f.primary)
	f.primary.Kill9(t)
	f.replica.Promote(t)
	vip.Retarget(fmt.Sprintf("127.0.0.1:%d", f.replica.Port))
	f.write(f.replicaDB, 401, 700)
	f.waitTargetEquals(f.replicaDB, 90*time.Second)
	select {
	case err := <-run.done:
		t.Fatalf("replicate ended: %v\nlog:\n%s", err, f.logs.String())
	default:
	}
	if !strings.Contains(f.logs.String(), "by GTID") {
		t.Errorf("the log does not say replicate continued on the new server by GTID:\n%s", f.logs.String())
	}
	if err := run.stop(30 * time.Second); err != nil {
		t.Fatalf("stop: %v", err)
	}
}
