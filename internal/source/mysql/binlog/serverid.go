package binlog

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/sluice-db/sluice/internal/exitcode"
)

// Server ids sluice derives lie in [serverIDBase, serverIDBase+serverIDSpan):
// far above the small ids people give their servers by hand.
const (
	serverIDBase = 1 << 30
	serverIDSpan = 1 << 30
)

// DefaultServerID derives a stable server id from the stream name and the
// target (its redacted URL), so that two sluice streams reading the same
// source get different ids without configuration.
func DefaultServerID(stream, target string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(stream))
	h.Write([]byte{0})
	h.Write([]byte(target))
	return serverIDBase + h.Sum32()%serverIDSpan
}

// ReplicaHost is the host name sluice registers with the source: SHOW SLAVE
// HOSTS then shows which replica is which sluice stream.
func ReplicaHost(stream string) string { return "sluice:" + stream }

// CheckServerID refuses a server id that is the source's own or that another
// connected replica uses: the source would disconnect one of the two
// replicas each time the other connects. A replica registered with our own
// stream's host name is an earlier run of this stream (e.g. killed) whose
// connection the source has not noticed yet; the source replaces it.
func CheckServerID(ctx context.Context, src *Source, info SourceInfo, id uint32, stream string) error {
	if id == info.ServerID {
		return exitcode.ConfigError(fmt.Errorf("--server-id %d is the source's own server_id; pass another --server-id", id))
	}
	replicas, err := src.Replicas(ctx)
	if err != nil {
		return err
	}
	for _, r := range replicas {
		if r.ServerID == id && r.Host != ReplicaHost(stream) {
			return exitcode.ConfigError(fmt.Errorf("--server-id %d is already used by a replica connected to the source (host %q); "+
				"pass another --server-id, or stop that replica", id, r.Host))
		}
	}
	return nil
}
