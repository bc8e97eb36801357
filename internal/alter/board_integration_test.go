package alter

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestAlterOnTheStatusBoard: while the copy runs under writes, the board
// shows it copying with its chunks part done and the changes applied to
// the copy; after the swap, done with every chunk copied.
func TestAlterOnTheStatusBoard(t *testing.T) {
	env := testenv.Get(t)
	name := env.NewDatabase(t, "alter_board")
	db := env.MySQL(t, name)
	rows := seed(t, db, baseTable)
	l := startLoad(t, db, rows, 2)
	b := board.New(board.Options{Command: "alter"})
	o := alterOptions(t, env, name, "ADD COLUMN d INT NULL")
	o.Board = b
	var mid []board.AlterStatus
	var mu sync.Mutex
	o.afterChunk = func(int) {
		time.Sleep(15 * time.Millisecond) // let the writers overlap the copy
		mu.Lock()
		defer mu.Unlock()
		if len(mid) < 3 {
			mid = append(mid, b.Status().Alters...)
		}
	}
	_, err := Run(context.Background(), o)
	l.finish()
	if err != nil {
		t.Fatalf("alter: %v", err)
	}
	if len(mid) == 0 {
		t.Fatal("the copy never reported a chunk")
	}
	m := mid[len(mid)-1]
	if m.Name != name+".t" || m.Phase != "copying" || m.Chunks < 2 || m.ChunksDone < 1 || m.ChunksDone >= m.Chunks || m.Rows <= 0 || m.Percent >= 100 {
		t.Errorf("during the copy: %+v (of %d rows)", m, len(rows))
	}
	st := b.Status().Alters
	if len(st) != 1 || st[0].Phase != "done" || st[0].ChunksDone != st[0].Chunks || st[0].Percent != 100 ||
		st[0].Rows < m.Rows || st[0].LastError != nil {
		t.Fatalf("after the swap: %+v", st)
	}
	t.Logf("mid-copy %+v; done %+v", m, st[0])
}
