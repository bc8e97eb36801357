package cli

import "github.com/spf13/cobra"

// newStatusCmd is a placeholder until its issue lands; the engineer who owns
// the subcommand replaces this file.
func newStatusCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "status (not implemented yet)",
		RunE:  notImplemented,
	}
	addSourceFlag(cmd)
	addTargetFlag(cmd)
	return cmd
}
