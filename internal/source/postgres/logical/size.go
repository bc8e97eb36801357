package logical

import "strconv"

// HumanSize prints a measured byte count with one decimal in its largest
// binary unit, e.g. 660.2 KiB (for a slot's retained WAL in messages).
func HumanSize(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	if n < 1<<10 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, i := float64(n)/(1<<10), 0
	for v >= 1<<10 && i < len(units)-1 {
		v, i = v/(1<<10), i+1
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + units[i]
}
