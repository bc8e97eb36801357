// Package objects writes the source objects the snapshot does not migrate —
// views, triggers, procedures, functions, events, sequences and generated
// columns that became plain copied columns — to a SQL file a DBA reviews
// (--objects-sql): each object's MySQL definition, commented, and a
// best-effort PostgreSQL translation. Views are translated through the vitess
// parser, trivial triggers (SET NEW.col = expr) become PL/pgSQL trigger
// functions; everything else is commented out and marked as needing a human,
// with the reason, so the file always runs under psql -v ON_ERROR_STOP=1.
// docs/schema.md ("Views, triggers, routines, events") lists the rules.
package objects

import "fmt"

// Kind names an object kind as the file and the report print it.
const (
	KindView      = "view"
	KindTrigger   = "trigger"
	KindProcedure = "procedure"
	KindFunction  = "function"
	KindEvent     = "event"
	KindSequence  = "sequence"
	KindGenerated = "generated column"
)

// Object is one source object with its translation.
type Object struct {
	Kind     string `json:"kind"`
	Database string `json:"database"`
	// Name is the object's name; for a generated column "table.column".
	Name string `json:"name"`
	// MySQL is the source definition (SHOW CREATE … or the column
	// definition), printed commented.
	MySQL string `json:"-"`
	// PG are the PostgreSQL statements, without the final semicolon: run
	// when translated, printed commented when a human is needed.
	PG []string `json:"-"`
	// Human is why a person must port the object; empty when translated.
	Human string `json:"needs_human,omitempty"`
	// Notes are differences a reviewer should know about a translation.
	Notes []string `json:"notes,omitempty"`
	// deps are the views (db.name) a view reads, to order and to propagate.
	deps []string
}

// Translated reports whether the object's PostgreSQL statements are live in the file.
func (o *Object) Translated() bool { return o.Human == "" }

// ID is "kind db.name", unique in a Result.
func (o *Object) ID() string { return o.Kind + " " + o.Database + "." + o.Name }

func (o *Object) needsHuman(format string, args ...any) {
	if o.Human == "" {
		o.Human = fmt.Sprintf(format, args...)
	}
}

// Result is every object in scope, in the file's order.
type Result struct {
	Objects []*Object
	// Checked says the translations were run on the target inside a
	// transaction that was rolled back (those PostgreSQL refused need a human).
	Checked bool
	// schemas are the quoted target schemas of databases in scope without
	// a migrated table: the file creates them for the objects it holds.
	schemas []string
}

// Summary is the report's view of a Result.
type Summary struct {
	File       string   `json:"file"`
	Translated int      `json:"translated"`
	NeedHuman  int      `json:"need_human"`
	Checked    bool     `json:"checked_on_target"`
	Human      []string `json:"needs_human"` // "kind db.name: why"
}

// Summary counts the translated objects and lists those that need a human.
func (r *Result) Summary(file string) Summary {
	s := Summary{File: file, Checked: r.Checked, Human: []string{}}
	for _, o := range r.Objects {
		if o.Translated() {
			s.Translated++
			continue
		}
		s.NeedHuman++
		s.Human = append(s.Human, o.ID()+": "+o.Human)
	}
	return s
}
