package cli

import "github.com/spf13/cobra"

// newVerifyCmd is a placeholder until its issue lands; the engineer who owns
// the subcommand replaces this file.
func newVerifyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "verify (not implemented yet)",
		RunE:  notImplemented,
	}
	addSourceFlag(cmd)
	addTargetFlag(cmd)
	return cmd
}
