// Command sluice moves a live MySQL/MariaDB database into PostgreSQL.
package main

import (
	"os"

	"github.com/sluice-db/sluice/internal/cli"
)

func main() { os.Exit(cli.Execute()) }
