// Package realworld holds end-to-end tests of the sluice binary on schemas
// modelled on well-known public sample databases and applications (Sakila,
// WordPress, an e-commerce shop, Employees, MediaWiki, Zabbix, Nextcloud,
// Matomo): `sluice migrate` under a realistic write load,
// then `sluice verify`, then a value-by-value comparison written in the test.
// The package has no non-test code.
package realworld

import (
	"os"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveSluiceBinary()
	os.Exit(code)
}
