package alter

import (
	"fmt"
	"time"
)

// Lock is one lock sluice took on the table that the application's
// sessions may have waited on: the checksum point's LOCK TABLES READ, the
// swap's LOCK TABLES WRITE with its RENAME, the INSTANT ALTER's exclusive
// metadata lock. Every attempt is one Lock, those given up included: a
// waiting WRITE lock holds new writers back while it waits.
type Lock struct {
	Step      string        // "checksum point", "swap", "instant alter"
	Statement string        // what was run, e.g. "LOCK TABLES t READ"
	Waited    time.Duration // from the request to the grant, or to the give-up
	Held      time.Duration // from the grant to the release (the swap: to the RENAME's end)
	Granted   bool
	// QueuesWriters: while the request waits, new writers of the table
	// queue behind it (a WRITE lock, an exclusive metadata lock); a waiting
	// READ lock lets them pass, so only its hold blocks them.
	QueuesWriters bool
	// Unsplit: one statement both waited for the lock and held it (the
	// INSTANT ALTER); its whole time is Held when granted.
	Unsplit bool
}

// Blocked is how long the application's writes to the table may have
// waited on the lock.
func (l Lock) Blocked() time.Duration {
	if l.QueuesWriters {
		return l.Waited + l.Held
	}
	return l.Held
}

func (l Lock) String() string {
	ms := func(d time.Duration) string { return d.Round(time.Millisecond).String() }
	switch {
	case !l.Granted:
		return fmt.Sprintf("%s %s: not granted after %s (writes blocked %s)", l.Step, l.Statement, ms(l.Waited), ms(l.Blocked()))
	case l.Unsplit:
		return fmt.Sprintf("%s %s: waited for and held %s (writes blocked %s)", l.Step, l.Statement, ms(l.Held), ms(l.Blocked()))
	}
	return fmt.Sprintf("%s %s: waited %s, held %s (writes blocked %s)", l.Step, l.Statement, ms(l.Waited), ms(l.Held), ms(l.Blocked()))
}

// lockTimer times one lock attempt from its request.
type lockTimer struct {
	l       Lock
	start   time.Time
	granted time.Time
}

func startLock(step, statement string, queuesWriters bool) *lockTimer {
	return &lockTimer{l: Lock{Step: step, Statement: statement, QueuesWriters: queuesWriters}, start: time.Now()}
}

// grant marks the lock granted now.
func (t *lockTimer) grant() {
	t.granted = time.Now()
	t.l.Granted = true
	t.l.Waited = t.granted.Sub(t.start)
}

// grantAtRequest marks granted a lock whose wait and hold are one
// statement's time (Unsplit).
func (t *lockTimer) grantAtRequest() {
	t.granted, t.l.Granted, t.l.Unsplit = t.start, true, true
}

// done ends the attempt now: released when granted, given up otherwise.
// The run records it (report and log).
func (t *lockTimer) done() Lock {
	if t.l.Granted {
		t.l.Held = time.Since(t.granted)
	} else {
		t.l.Waited = time.Since(t.start)
	}
	return t.l
}

// recordLock adds a finished lock attempt to the run's report and logs it.
func (r *runner) recordLock(l Lock) {
	r.locks = append(r.locks, l)
	msg := "table lock released"
	if !l.Granted {
		msg = "table lock given up"
	}
	r.log.Info(msg, "step", l.Step, "statement", l.Statement, "granted", l.Granted,
		"waited", l.Waited.Round(time.Millisecond), "held", l.Held.Round(time.Millisecond),
		"writes_blocked", l.Blocked().Round(time.Millisecond))
}
