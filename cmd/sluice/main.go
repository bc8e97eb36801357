// Command sluice moves a live MySQL/MariaDB database into PostgreSQL.
package main

import (
	"os"

	"github.com/sluice-db/sluice/internal/cli"
	_ "github.com/sluice-db/sluice/internal/target/all" // every target engine, by --target URL scheme
)

func main() { os.Exit(cli.Execute()) }
