package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sluice-db/sluice/internal/alter"
	"github.com/sluice-db/sluice/internal/exitcode"
)

func newAlterStatusCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Print the progress of a running (or the last) sluice alter of a table",
		Long: `status reads the progress a copy run writes every second to sluice.alter_status
on the source: its phase, rows copied of the estimate, chunks, ETA, the changed
keys the copy is behind the table, why it is paused or throttled, the last
control-file line refused, and every setting in force (the values the control
file's setting lines change).

Exit codes: 0 running or done, 1 stopped before it was done (the same sluice
alter resumes it), 2 no run of the table (check --source and --table).`,
		Example: `  sluice alter status --source mysql://root@db1:3306/shop --source-password-file /etc/sluice/db1.pw --table orders`,
		Args:    cobra.NoArgs,
		RunE:    runAlterStatus,
	}
	addSourceFlag(cmd)
	cmd.Flags().String("table", "", "the table being altered, in the --source URL's database")
	addJSONFlag(cmd)
	return cmd
}

func runAlterStatus(cmd *cobra.Command, _ []string) error {
	s, err := loadSettings(cmd)
	if err != nil {
		return err
	}
	src, err := mysqlSourceFlag(s)
	if err != nil {
		return err
	}
	st, err := alter.ReadStatus(cmd.Context(), src, s.K.String("table"))
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	lines, code := st.Lines()
	if s.K.Bool("json") {
		if err := json.NewEncoder(out).Encode(st); err != nil {
			return err
		}
	} else {
		for _, l := range lines {
			fmt.Fprintln(out, l)
		}
	}
	if code != exitcode.OK {
		return exitcode.WithCode(code, errSilent)
	}
	return nil
}
