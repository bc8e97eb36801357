// Package drop runs `sluice drop`: it decommissions a stream. Everything
// sluice keeps for the stream and for its way back (the reverse stream its
// cut-over recorded, <stream>_reverse by default) is found on the servers
// given, listed, and removed only when the caller confirms: the replication
// slots and publications (sluice_<name>), leftover replication origins, and
// the rows of those streams in sluice's own tables (schema sluice on
// PostgreSQL, database sluice on MySQL: checkpoint, applied records, schema
// history, snapshot state, naming, policy counts, cut-over records). Nothing
// else is touched: no table of the application, no other stream's rows.
package drop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sluice-db/sluice/internal/cutover"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/target"
)

// Server is one server the stream's state may be on: the stream's target
// and, optionally, its source (a forward stream's MySQL source holds the
// cut-over record and the way back's state; a reverse stream's PostgreSQL
// source holds its slot).
type Server struct {
	Role string // "target", "source" or "kafka", for messages
	// Engine is the server opened as a target engine; what it keeps of
	// streams is its target.Dropper's to list and remove.
	Engine target.Engine
}

// Options say what to drop where.
type Options struct {
	Stream  string
	Servers []Server
}

// Item is one thing the drop removes.
type Item struct {
	Server string `json:"server"` // role and redacted URL
	What   string `json:"what"`
	remove func(context.Context) error
}

// Plan is what a drop would remove, with its open connections.
type Plan struct {
	// Streams are the stream and its way back, in the order found.
	Streams []string
	Items   []Item
	sides   []side
}

// side is one connected server: the engine's target.DropSide, and the
// server's name for the items it lists.
type side struct {
	target.DropSide
	where string
}

// Prepare connects to the servers and lists what dropping the stream
// removes. It refuses (exit 2) while a replicator of the stream or of its
// way back runs, and when no server holds anything of the stream (naming
// the streams that exist).
func Prepare(ctx context.Context, o Options) (*Plan, error) {
	if o.Stream == "" {
		return nil, exitcode.ConfigError(errors.New("--stream is required: the name of the stream to drop"))
	}
	p := &Plan{Streams: []string{o.Stream}}
	ok := false
	defer func() {
		if !ok {
			p.Close()
		}
	}()
	for _, s := range o.Servers {
		sd, err := connect(ctx, s)
		if err != nil {
			return nil, exitcode.ConfigError(err)
		}
		p.sides = append(p.sides, sd)
	}
	if err := p.findReverse(ctx, o.Stream); err != nil {
		return nil, err
	}
	for _, sd := range p.sides {
		who, err := sd.Running(ctx, p.Streams)
		if err != nil {
			return nil, err
		}
		if who != "" {
			return nil, exitcode.ConfigError(fmt.Errorf("%s: stop it first; nothing was dropped", who))
		}
	}
	for _, sd := range p.sides {
		items, err := sd.Plan(ctx, p.Streams)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			p.Items = append(p.Items, Item{Server: sd.where, What: it.What, remove: it.Remove})
		}
	}
	if len(p.Items) == 0 {
		return nil, p.nothingFound(ctx, o)
	}
	ok = true
	return p, nil
}

// findReverse adds the stream's way back: what its cut-over recorded, and
// the default name (a cut-over killed before its record leaves the slot).
func (p *Plan) findReverse(ctx context.Context, stream string) error {
	add := func(n string) {
		if !slices.Contains(p.Streams, n) {
			p.Streams = append(p.Streams, n)
		}
	}
	for _, sd := range p.sides {
		rev, err := sd.ReverseStream(ctx, stream)
		if err != nil {
			return err
		}
		if rev != "" {
			add(rev)
		}
	}
	add(cutover.DefaultReverseStream(stream))
	return nil
}

// nothingFound is the refusal for a name nothing is kept under.
func (p *Plan) nothingFound(ctx context.Context, o Options) error {
	seen := map[string]bool{}
	for _, sd := range p.sides {
		names, err := sd.Streams(ctx)
		if err != nil {
			return err
		}
		for _, n := range names {
			seen[n] = true
		}
	}
	var names, where []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, s := range o.Servers {
		where = append(where, s.Role+" "+s.redacted())
	}
	exist := "no stream has state there"
	if len(names) > 0 {
		exist = "the streams there are: " + strings.Join(names, ", ")
	}
	return exitcode.ConfigError(fmt.Errorf("nothing of stream %q (nor of its way back %s) on %s: %s",
		o.Stream, strings.Join(p.Streams[1:], ", "), strings.Join(where, " and "), exist))
}

// Execute removes every item, in order, and returns what it removed. It
// goes on after a failure, so one stuck item does not leave the rest.
func (p *Plan) Execute(ctx context.Context) ([]string, error) {
	var done []string
	var errs []error
	for _, it := range p.Items {
		if err := it.remove(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %w", it.Server, it.What, err))
			continue
		}
		done = append(done, it.Server+": "+it.What)
	}
	return done, errors.Join(errs...)
}

// Close closes the connections.
func (p *Plan) Close() {
	for _, sd := range p.sides {
		sd.Close()
	}
	p.sides = nil
}

func connect(ctx context.Context, s Server) (side, error) {
	where := s.Role + " " + s.redacted()
	d, ok := s.Engine.(target.Dropper)
	if !ok {
		return side{}, fmt.Errorf("%s: sluice drop does not read a %s server", where, s.Engine.Name())
	}
	sd, err := d.ConnectDrop(ctx, where)
	return side{DropSide: sd, where: where}, err
}

// redacted names the server for messages (no password).
func (s Server) redacted() string {
	if d, ok := s.Engine.(target.Dropper); ok {
		return d.DropName()
	}
	return s.Engine.Redacted()
}
