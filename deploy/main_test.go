package deploy

import (
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

func TestMain(m *testing.M) { testenv.MainWithSluiceBinary(m) }
