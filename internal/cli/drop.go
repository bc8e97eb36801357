package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/sluice-db/sluice/internal/drop"
	"github.com/sluice-db/sluice/internal/exitcode"
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
	engines "github.com/sluice-db/sluice/internal/target"
)

func newDropCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "drop",
		Short: "Decommission a stream: remove its replication slots, publications and sluice state, after naming them",
		Long: `drop removes what sluice keeps for a stream and for its way back (the reverse
stream its cut-over recorded, <stream>_reverse by default), on the servers given:

  PostgreSQL  the replication slots and publications sluice_<stream> and
              sluice_<reverse stream> of this database (an inactive slot keeps
              WAL from being removed), leftover replication origins, and the
              streams' rows in schema sluice (checkpoint, applied records,
              schema history, snapshot state, naming, policy counts, cut-over)
  MySQL       the streams' rows in database sluice (a MySQL target's state; on
              a forward stream's source: the cut-over record and the way back's
              state)
  Kafka       with --kafka and --topic-prefix: the records of the stream (and of
              its shards, <stream>@host:port) in <prefix>.sluice.offsets and
              <prefix>.sluice.schema, as tombstones in one transaction under
              the stream's transactional.id (which fences its producer); the
              data topics stay

--target (or --kafka) is where the stream's state is; --source (optional) the stream's
source, for what the stream keeps there. No table of the application and no
other stream's rows are touched. Everything is listed first; on a terminal
drop asks for the stream's name, otherwise it needs --yes. A stream that runs
(a replicator connected, the slot in use) is refused, naming the process.

Exit codes: 0 dropped, 1 something could not be removed (the rest was), 2
configuration error, not confirmed, the stream running, or nothing kept
under that name (the streams that exist are listed).`,
		Example: `  sluice drop --target postgres://sluice@pg1:5432/shop --target-password-file /etc/sluice/pg1.pw --source mysql://sluice@db1:3306/shop --source-password-file /etc/sluice/db1.pw --stream shop
  SLUICE_TARGET_PASSWORD=… sluice drop --target mysql://sluice@db2:3306/replica --stream app --yes
  sluice drop --source postgres://sluice@pg1:5432/shop --source-password-file /etc/sluice/pg1.pw --target mysql://sluice@db1:3306/shop --target-password-file /etc/sluice/db1.pw --stream shop_reverse --yes
  sluice drop --kafka 127.0.0.1:9092 --topic-prefix shop --stream default --yes`,
		Args: cobra.NoArgs,
		RunE: runDrop,
	}
	f := cmd.Flags()
	addTargetFlag(cmd)
	f.String("source", "", "the stream's source, when what the stream keeps there is to go too: mysql://… (a forward stream's cut-over record and "+
		"its way back's state) or postgres://… (a reverse stream's slot); env SLUICE_SOURCE; the password from --source-password-file or SLUICE_SOURCE_PASSWORD")
	addPasswordFileFlag(cmd, "source")
	addTLSFlags(cmd, "source")
	f.String("kafka", "", "Kafka bootstrap brokers of a `sluice stream` whose state is to go (with --topic-prefix), e.g. --kafka 127.0.0.1:9092")
	f.String("topic-prefix", "", "the topic prefix of that stream, e.g. --topic-prefix shop")
	// No default: a destructive command names its stream.
	f.String("stream", "", "the stream to drop (required), e.g. --stream shop")
	f.Bool("yes", false, "drop without asking (required without a terminal)")
	return cmd
}

func runDrop(cmd *cobra.Command, _ []string) error {
	s, err := loadSettings(cmd)
	if err != nil {
		return err
	}
	o, err := dropOptions(s)
	if err != nil {
		return err
	}
	plan, err := drop.Prepare(cmd.Context(), o)
	if err != nil {
		return err
	}
	defer plan.Close()
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "sluice drop removes, for stream %s and its way back (%s):\n", o.Stream, strings.Join(plan.Streams[1:], ", "))
	server := ""
	for _, it := range plan.Items {
		if it.Server != server {
			server = it.Server
			fmt.Fprintf(out, "  on the %s:\n", server)
		}
		fmt.Fprintf(out, "    %s\n", it.What)
	}
	if err := confirmDrop(cmd, s, o.Stream); err != nil {
		return err
	}
	done, err := plan.Execute(cmd.Context())
	for _, d := range done {
		fmt.Fprintf(out, "dropped %s\n", d)
	}
	if err != nil {
		return fmt.Errorf("drop stream %s: %w", o.Stream, err)
	}
	s.Log.Info("drop: done", "stream", o.Stream, "removed", len(done))
	return nil
}

func dropOptions(s *Settings) (drop.Options, error) {
	k := s.K
	o := drop.Options{Stream: k.String("stream")}
	if k.String("kafka") != "" || k.String("topic-prefix") != "" {
		if k.String("kafka") == "" || k.String("topic-prefix") == "" {
			return o, exitcode.ConfigError(errors.New("--kafka and --topic-prefix go together: the brokers and the topic prefix of the stream"))
		}
		o.Servers = append(o.Servers, drop.Server{Role: "kafka",
			Engine: kafkasink.NewEngine(kafkasink.Config{Brokers: splitBrokers(k.String("kafka")), Prefix: k.String("topic-prefix")})})
	} else if k.String("target") == "" {
		return o, exitcode.ConfigError(errors.New("--target (or --kafka with --topic-prefix) is required: where the stream's state is, e.g. --target postgres://sluice@pg1:5432/shop"))
	}
	for _, role := range []string{"target", "source"} {
		url := k.String(role)
		if url == "" {
			continue
		}
		// A source is a database too (a forward stream's MySQL source, a
		// reverse stream's PostgreSQL one): opened as an engine, no I/O.
		e, err := engines.Open(url, engines.Options{TLS: tlsFlags(s, role), Tables: true})
		if err != nil {
			return o, exitcode.ConfigError(fmt.Errorf("--%s: %w", role, err))
		}
		o.Servers = append(o.Servers, drop.Server{Role: role, Engine: e})
	}
	if o.Stream == "" {
		return o, exitcode.ConfigError(errors.New("--stream is required: the name of the stream to drop"))
	}
	return o, nil
}

// confirmDrop asks on a terminal for the stream's name; without one,
// --yes is required.
func confirmDrop(cmd *cobra.Command, s *Settings, stream string) error {
	if s.K.Bool("yes") {
		return nil
	}
	in, ok := cmd.InOrStdin().(*os.File)
	if !ok || !isatty.IsTerminal(in.Fd()) {
		return exitcode.ConfigError(errors.New("not dropped: no terminal to confirm on; pass --yes to drop what is listed above"))
	}
	fmt.Fprintf(cmd.OutOrStdout(), "type the stream's name (%s) to drop all of this: ", stream)
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if strings.TrimSpace(line) != stream {
		return exitcode.ConfigError(errors.New("not confirmed: nothing was dropped"))
	}
	return nil
}
