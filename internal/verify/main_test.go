package verify

import (
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMain removes the sluice binary that the end-to-end tests build (once,
// on first use, testenv.SluiceBinary) and run as a subprocess.
func TestMain(m *testing.M) { testenv.MainWithSluiceBinary(m) }
