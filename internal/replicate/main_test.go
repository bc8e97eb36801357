package replicate

import (
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMain removes the sluice binary the re-copy kill test builds.
func TestMain(m *testing.M) { testenv.MainWithSluiceBinary(m) }
