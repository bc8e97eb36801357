package cli

import "github.com/spf13/cobra"

// newMigrateCmd is a placeholder until its issue lands; the engineer who owns
// the subcommand replaces this file.
func newMigrateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "migrate (not implemented yet)",
		RunE:  notImplemented,
	}
	addSourceFlag(cmd)
	addTargetFlag(cmd)
	return cmd
}
