// Package all registers every target engine with internal/target: a
// program (cmd/sluice) or a test that opens targets by URL imports it.
package all

import (
	_ "github.com/sluice-db/sluice/internal/sink/kafka"    // kafka://
	_ "github.com/sluice-db/sluice/internal/sink/mysql"    // mysql://, mariadb://
	_ "github.com/sluice-db/sluice/internal/sink/postgres" // postgres://, postgresql://, opengauss://
)
