//go:build sluicetest

package all

import _ "github.com/sluice-db/sluice/internal/testenv/fileengine" // testfile:// (tests only)
