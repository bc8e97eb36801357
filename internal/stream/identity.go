package stream

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
)

// identify reads a shard's @@server_id (source.server_id) and what
// identifies the server whatever address reaches it: MySQL's
// @@server_uuid; MariaDB has none, so its @@hostname, @@port and
// @@server_id. A new stream of a server that another stream of the topic
// prefix writes is refused (kafkasink.Store.CheckNewStream).
func identify(ctx context.Context, src config.MySQL) (uint32, string, error) {
	db, err := src.OpenDB()
	if err != nil {
		return 0, "", exitcode.ConfigError(err)
	}
	defer db.Close()
	var serverID uint32
	var host, version string
	var port int
	if err := db.QueryRowContext(ctx, "SELECT @@server_id, @@hostname, @@port, VERSION()").Scan(&serverID, &host, &port, &version); err != nil {
		return 0, "", exitcode.ConfigError(fmt.Errorf("source %s: %w", src.Redacted(), err))
	}
	if strings.Contains(strings.ToLower(version), "mariadb") {
		return serverID, fmt.Sprintf("mariadb:%s:%d:%d", host, port, serverID), nil
	}
	var uuid string
	if err := db.QueryRowContext(ctx, "SELECT @@server_uuid").Scan(&uuid); err != nil {
		return 0, "", exitcode.ConfigError(fmt.Errorf("source %s: @@server_uuid: %w", src.Redacted(), err))
	}
	return serverID, "mysql:" + uuid, nil
}

// servers are the source servers of one run, by identity: two --source
// addresses of one server would stream its rows twice.
type servers struct {
	mu sync.Mutex
	by map[string]config.MySQL
}

func (s *servers) add(id string, src config.MySQL) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.by[id]; ok {
		return exitcode.ConfigError(fmt.Errorf("stream: --source %s and --source %s are the same server (%s): its rows would be streamed twice; "+
			"fix: give each shard once", prev.Redacted(), src.Redacted(), id))
	}
	if s.by == nil {
		s.by = map[string]config.MySQL{}
	}
	s.by[id] = src
	return nil
}
