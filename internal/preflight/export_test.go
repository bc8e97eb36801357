package preflight

// HumanDuration is humanDuration, for the external tests' expected texts.
var HumanDuration = humanDuration
