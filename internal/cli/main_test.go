package cli

import (
	"testing"

	_ "github.com/sluice-db/sluice/internal/target/all" // the engines, as cmd/sluice registers them
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMain removes the sluice binary the end-to-end tests build.
func TestMain(m *testing.M) { testenv.MainWithSluiceBinary(m) }
