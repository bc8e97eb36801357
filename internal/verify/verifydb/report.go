package verifydb

// Kinds of row difference.
const (
	OnlyInSource = "only_in_source"
	OnlyInTarget = "only_in_target"
	Differs      = "differs"
)
