package preflight

import (
	"context"
	"time"

	"github.com/go-mysql-org/go-mysql/client"

	"github.com/sluice-db/sluice/internal/config"
)

// checkBinlogConnection logs in the way the binlog stream does (go-mysql's
// client, the URL's TLS settings): the stream's connection is not made by
// the SQL driver the other checks use, so a user that only TLS admits
// (REQUIRE SSL), or an authentication the stream's client cannot do, shows
// here instead of after the snapshot.
func checkBinlogConnection(ctx context.Context, m config.MySQL) []Problem {
	tlsCfg, _, err := m.TLSConfig()
	if err != nil {
		return []Problem{Problemf("source", "fix the tls/ssl-* parameters of --source", "%v", err)}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := client.ConnectWithContext(ctx, m.Addr(), m.User, m.Password, "", 10*time.Second,
		func(c *client.Conn) error {
			if tlsCfg != nil {
				c.SetTLSConfig(tlsCfg)
			}
			return nil
		})
	if err != nil {
		fix := "check the user, password and TLS settings of --source"
		if tlsCfg == nil {
			fix = "if the user requires TLS (REQUIRE SSL), add ?tls=verify-full (with ssl-ca=FILE for a private CA) or ?tls=skip-verify to --source"
		}
		return []Problem{Problemf("source", fix, "the binlog connection (the replication protocol client) cannot log in to %s: %v", m.Addr(), err)}
	}
	_ = conn.Close()
	return nil
}
