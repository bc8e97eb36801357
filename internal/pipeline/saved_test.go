package pipeline

import (
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/source/postgres/lsnpos"
)

// TestSavedPositionDoesNotWaitForCheckpointWrite: a PostgreSQL source reads
// the saved position from its receive loop; a checkpoint write in progress
// (ckMu held for a target transaction) must not stall it.
func TestSavedPositionDoesNotWaitForCheckpointWrite(t *testing.T) {
	a, err := New(Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := a.SavedPosition(); p != nil {
		t.Fatalf("before any checkpoint: %v, want nil", p)
	}
	a.ckMu.Lock()
	a.setSaved(mark{pos: lsnpos.Of(0x1000)})
	// Still held, as during the next checkpoint's target transaction.
	got := make(chan string, 1)
	go func() { got <- a.SavedPosition().Key() }()
	select {
	case k := <-got:
		if want := lsnpos.Of(0x1000).Key(); k != want {
			t.Errorf("SavedPosition = %s, want %s", k, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("SavedPosition waited for the checkpoint mutex")
	}
	a.ckMu.Unlock()
}
