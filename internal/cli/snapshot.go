package cli

import "github.com/spf13/cobra"

// newSnapshotCmd is a placeholder until its issue lands; the engineer who owns
// the subcommand replaces this file.
func newSnapshotCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "snapshot (not implemented yet)",
		RunE:  notImplemented,
	}
	addSourceFlag(cmd)
	addTargetFlag(cmd)
	return cmd
}
