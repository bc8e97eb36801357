package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version and Commit are set at build time (the Makefile's build target):
// -ldflags "-X github.com/sluice-db/sluice/internal/cli.Version=v1.2.3
// -X github.com/sluice-db/sluice/internal/cli.Commit=abc1234". Without them
// the commit comes from the Go build's VCS stamp, when there is one.
var (
	Version = "dev"
	Commit  = ""
)

// versionLine is what `sluice version` and `sluice --version` print.
func versionLine() string {
	rev := Commit
	if rev == "" {
		rev = "unknown"
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" {
					rev = s.Value
				}
			}
		}
	}
	return fmt.Sprintf("sluice %s (commit %s, %s %s/%s)", Version, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the sluice version, its commit and the Go version",
		Example: `  sluice version`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return nil
		},
	}
}
