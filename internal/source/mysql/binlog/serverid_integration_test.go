package binlog

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestServerIDClash registers a replica with a server id and checks that
// sluice refuses that id, unless the replica is an earlier run of the same
// stream, and refuses the source's own id.
func TestServerIDClash(t *testing.T) {
	f := newFixture(t, "bl_sid", "")
	s, err := OpenSource(f.src)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	id := uint32(3_000_000 + rand.IntN(1_000_000))
	start := f.position()
	other := replication.NewBinlogSyncer(replication.BinlogSyncerConfig{
		ServerID: id, Flavor: f.info.Flavor, Host: f.src.Host, Port: uint16(f.src.Port), User: f.src.User,
		Password: f.src.Password, Localhost: "another-replica", Logger: libraryLogger(testenv.Logger())})
	defer other.Close()
	if _, err := other.StartSync(gomysql.Position{Name: start.File, Pos: start.Pos}); err != nil {
		t.Fatal(err)
	}
	waitReplica(t, s, id)
	err = CheckServerID(ctx, s, f.info, id, "mystream")
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "already used by a replica connected to the source (host \"another-replica\")") {
		t.Errorf("clash: %v", err)
	}
	if err := CheckServerID(ctx, s, f.info, id+1, "mystream"); err != nil {
		t.Errorf("free id refused: %v", err)
	}
	err = CheckServerID(ctx, s, f.info, f.info.ServerID, "mystream")
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "the source's own server_id") {
		t.Errorf("source's own id: %v", err)
	}

	// An earlier run of our own stream (host sluice:<stream>) is no clash.
	own := uint32(id + 2)
	mine := replication.NewBinlogSyncer(replication.BinlogSyncerConfig{
		ServerID: own, Flavor: f.info.Flavor, Host: f.src.Host, Port: uint16(f.src.Port), User: f.src.User,
		Password: f.src.Password, Localhost: ReplicaHost("mystream"), Logger: libraryLogger(testenv.Logger())})
	defer mine.Close()
	if _, err := mine.StartSync(gomysql.Position{Name: start.File, Pos: start.Pos}); err != nil {
		t.Fatal(err)
	}
	waitReplica(t, s, own)
	if err := CheckServerID(ctx, s, f.info, own, "mystream"); err != nil {
		t.Errorf("own stream's stale replica refused: %v", err)
	}
}

// waitReplica waits until a replica with the server id is registered.
func waitReplica(t *testing.T, s *Source, id uint32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		reps, err := s.Replicas(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range reps {
			if r.ServerID == id {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica %d not in SHOW SLAVE HOSTS: %+v", id, reps)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
