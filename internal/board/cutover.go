package board

import "time"

// Cutover is one cutover run's card: its steps in order, each pending,
// running, ok or failed.
type Cutover struct {
	b       *Board
	name    string
	started time.Time
	steps   []CutoverStep
	result  string
}

// CutoverStep is one step as shown.
type CutoverStep struct {
	Name    string  `json:"name"`
	Result  string  `json:"result"` // pending, running, ok, failed
	Detail  string  `json:"detail,omitempty"`
	Seconds float64 `json:"seconds"`
}

// CutoverStatus is a cutover run as /api/status serves it.
type CutoverStatus struct {
	Name    string        `json:"name"`
	Started time.Time     `json:"started"`
	Result  string        `json:"result"` // "running" until Finish
	Steps   []CutoverStep `json:"steps"`
}

// Cutover returns the named cutover's card with its steps pending,
// creating it.
func (b *Board) Cutover(name string, steps []string) *Cutover {
	if b == nil {
		return nil
	}
	return card(b, b.cutovers, name, func() *Cutover {
		c := &Cutover{b: b, name: name, started: b.now(), result: "running"}
		for _, s := range steps {
			c.steps = append(c.steps, CutoverStep{Name: s, Result: "pending"})
		}
		return c
	})
}

// Step records a step's state (an unknown name is added at the end).
func (c *Cutover) Step(name, result, detail string, seconds float64) {
	if c == nil {
		return
	}
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	s := CutoverStep{Name: name, Result: result, Detail: Clean(detail), Seconds: seconds}
	c.event(s)
	for i := range c.steps {
		if c.steps[i].Name == name {
			c.steps[i] = s
			return
		}
	}
	c.steps = append(c.steps, s)
}

// Finish records the run's result.
func (c *Cutover) Finish(result string) {
	if c == nil {
		return
	}
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	c.result = result
}

func (c *Cutover) status() CutoverStatus {
	return CutoverStatus{Name: c.name, Started: c.started, Result: c.result, Steps: append([]CutoverStep{}, c.steps...)}
}
