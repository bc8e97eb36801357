package cli

import (
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMain removes the sluice binary the end-to-end tests build.
func TestMain(m *testing.M) { testenv.MainWithSluiceBinary(m) }
