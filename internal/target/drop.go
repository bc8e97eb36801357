package target

import (
	"context"
	"fmt"
)

// Dropper is an engine that keeps state of streams `sluice drop` can list
// and remove (its sluice tables, slots, origins or state topics). The
// stream's target and its source (a forward stream's MySQL source, a
// reverse stream's PostgreSQL source) are both opened as engines.
type Dropper interface {
	// DropName names the server in drop's messages (no password).
	DropName() string
	// ConnectDrop connects; where is the role and DropName, for messages.
	ConnectDrop(ctx context.Context, where string) (DropSide, error)
}

// DropSide is one connected server of a drop.
type DropSide interface {
	// Streams lists every stream with state on the server.
	Streams(ctx context.Context) ([]string, error)
	// ReverseStream is the way back a cut-over of stream recorded there
	// ("": none).
	ReverseStream(ctx context.Context, stream string) (string, error)
	// Running describes a running replicator of one of the streams ("": none).
	Running(ctx context.Context, streams []string) (string, error)
	// Plan lists what the server holds of the streams.
	Plan(ctx context.Context, streams []string) ([]DropItem, error)
	Close()
}

// DropItem is one thing a drop removes.
type DropItem struct {
	What   string
	Remove func(context.Context) error
}

// Plural is "1 row" / "3 rows", for DropItem.What.
func Plural(n int64, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}
