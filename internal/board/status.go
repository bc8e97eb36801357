package board

import "time"

// Status is the board as /api/status serves it.
type Status struct {
	Command       string           `json:"command"`
	Started       time.Time        `json:"started"`
	Now           time.Time        `json:"now"`
	SampleSeconds float64          `json:"sample_seconds"`
	Streams       []StreamStatus   `json:"streams"`
	Snapshots     []SnapshotStatus `json:"snapshots"`
	Verifies      []VerifyStatus   `json:"verifies"`
	Cutovers      []CutoverStatus  `json:"cutovers"`
	Alters        []AlterStatus    `json:"alters"`
	Merged        []MergedStatus   `json:"merged_topics"`
}

// StreamStatus is one stream.
type StreamStatus struct {
	Name          string         `json:"name"`
	Kind          string         `json:"kind"`
	Phase         Phase          `json:"phase"`
	PhaseSince    time.Time      `json:"phase_since"`
	Source        string         `json:"source"`
	Target        string         `json:"target"`
	Read          string         `json:"read_position"`
	Applied       string         `json:"applied_position"`
	LagSeconds    *float64       `json:"lag_seconds"` // null: nothing applied yet
	RowsPerSecond float64        `json:"rows_per_second"`
	Changes       int64          `json:"changes"`
	Queue         int64          `json:"queue"`
	LastError     *ErrorStatus   `json:"last_error"`
	PolicyChanges []PolicyChange `json:"policy_changes"`
	LagHistory    []Point        `json:"lag_history"`
}

// ErrorStatus is an error as shown, with when it happened.
type ErrorStatus struct {
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// SnapshotStatus is one snapshot's progress.
type SnapshotStatus struct {
	Stream        string        `json:"stream"`
	Phase         string        `json:"phase"`
	Started       time.Time     `json:"started"`
	Rows          int64         `json:"rows"`
	EstimatedRows int64         `json:"estimated_rows"`
	Percent       float64       `json:"percent"`
	ETASeconds    *float64      `json:"eta_seconds"` // null: unknown or done
	TablesDone    int           `json:"tables_done"`
	Tables        []TableStatus `json:"tables"`
	LastError     *ErrorStatus  `json:"last_error"`
}

// TableStatus is one table of a snapshot.
type TableStatus struct {
	Name          string   `json:"name"`
	Rows          int64    `json:"rows"`
	EstimatedRows int64    `json:"estimated_rows"`
	Percent       float64  `json:"percent"`
	Done          bool     `json:"done"`
	ETASeconds    *float64 `json:"eta_seconds"`
}
