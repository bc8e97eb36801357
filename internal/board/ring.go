package board

// ring is a bounded series of samples, oldest dropped first.
type ring struct {
	pts  []Point
	next int
	full bool
}

func newRing(n int) *ring { return &ring{pts: make([]Point, n)} }

func (r *ring) add(p Point) {
	r.pts[r.next] = p
	r.next = (r.next + 1) % len(r.pts)
	if r.next == 0 {
		r.full = true
	}
}

// points are the samples, oldest first (a copy).
func (r *ring) points() []Point {
	if !r.full {
		return append([]Point{}, r.pts[:r.next]...)
	}
	out := make([]Point, 0, len(r.pts))
	out = append(out, r.pts[r.next:]...)
	return append(out, r.pts[:r.next]...)
}
