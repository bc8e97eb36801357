package mysql

import (
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMain removes the sluice binary the crash test builds.
func TestMain(m *testing.M) { testenv.MainWithSluiceBinary(m) }
