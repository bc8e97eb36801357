package cli

import "github.com/spf13/cobra"

// newReplicateCmd is a placeholder until its issue lands; the engineer who owns
// the subcommand replaces this file.
func newReplicateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "replicate",
		Short: "replicate (not implemented yet)",
		RunE:  notImplemented,
	}
	addSourceFlag(cmd)
	addTargetFlag(cmd)
	return cmd
}
