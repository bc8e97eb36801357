package board

import "time"

// Verify is one verify run's card: each table's result as it finishes.
// It holds counts only, never a differing row's key or values.
type Verify struct {
	b            *Board
	name         string
	started      time.Time
	tables       int
	bytes, done  int64
	results      []VerifyTable
	result, errs string
}

// VerifyTable is one table's result.
type VerifyTable struct {
	Table        string  `json:"table"`
	Result       string  `json:"result"` // equal, differences, error…
	Rows         int64   `json:"rows"`
	OnlyInSource int64   `json:"only_in_source"`
	OnlyInTarget int64   `json:"only_in_target"`
	Differing    int64   `json:"differing"`
	Rechecked    int64   `json:"rechecked"`
	Repaired     int64   `json:"repaired"`
	PolicyRows   int64   `json:"policy_rows"` // values a policy changed: "equal except N by policy"
	Seconds      float64 `json:"seconds"`
	Error        string  `json:"error,omitempty"`
}

// VerifyStatus is a verify run as /api/status serves it.
type VerifyStatus struct {
	Name       string        `json:"name"`
	Started    time.Time     `json:"started"`
	Result     string        `json:"result"` // "running" until Finish
	Tables     int           `json:"tables"`
	TablesDone int           `json:"tables_done"`
	Percent    float64       `json:"percent"` // of the source bytes to compare
	Results    []VerifyTable `json:"results"`
}

// Verify returns the named verify run's card, creating it.
func (b *Board) Verify(name string) *Verify {
	if b == nil {
		return nil
	}
	return card(b, b.verifies, name, func() *Verify {
		return &Verify{b: b, name: name, started: b.now(), result: "running", results: []VerifyTable{}}
	})
}

// Start records what the run compares.
func (v *Verify) Start(tables int, bytes int64) {
	if v == nil {
		return
	}
	v.b.mu.Lock()
	defer v.b.mu.Unlock()
	v.tables, v.bytes = tables, bytes
}

// Advance counts source bytes compared.
func (v *Verify) Advance(bytes int64) {
	if v == nil {
		return
	}
	v.b.mu.Lock()
	defer v.b.mu.Unlock()
	v.done += bytes
}

// TableDone records one table's result.
func (v *Verify) TableDone(t VerifyTable) {
	if v == nil {
		return
	}
	t.Error = Clean(t.Error)
	v.b.mu.Lock()
	defer v.b.mu.Unlock()
	v.results = append(v.results, t)
}

// Finish records the run's result.
func (v *Verify) Finish(result string) {
	if v == nil {
		return
	}
	v.b.mu.Lock()
	defer v.b.mu.Unlock()
	v.result = result
	v.event()
}

func (v *Verify) status() VerifyStatus {
	st := VerifyStatus{Name: v.name, Started: v.started, Result: v.result, Tables: v.tables,
		TablesDone: len(v.results), Results: append([]VerifyTable{}, v.results...)}
	st.Percent = percent(v.done, v.bytes, v.result != "running")
	return st
}
