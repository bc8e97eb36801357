package stream

import (
	"context"
	"fmt"
	"strings"

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
