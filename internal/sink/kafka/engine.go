package kafka

import (
	"errors"
	"net/url"
	"strings"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/target"
)

func init() {
	target.Register(openEngine, "kafka")
}

// engine is a Kafka cluster (and topic prefix) as a target.Engine.
type engine struct{ cfg Config }

// NewEngine is the engine of a Kafka target.
func NewEngine(cfg Config) target.Engine { return engine{cfg: cfg} }

// openEngine parses kafka://host:port[,host:port]/prefix. A command on
// tables (target.Options.Tables) does not take a Kafka target: its scheme
// is unsupported there.
func openEngine(rawURL string, o target.Options) (target.Engine, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, errors.New("target: not a valid kafka:// URL")
	}
	if o.Tables {
		return nil, config.UnsupportedScheme("target", u.Scheme, target.DefaultScheme)
	}
	if u.User != nil {
		return nil, errors.New("target: a kafka:// URL carries no user or password: kafka://host:port[,host:port]/topic-prefix")
	}
	var brokers []string
	for _, b := range strings.Split(u.Host, ",") {
		if b != "" {
			brokers = append(brokers, b)
		}
	}
	prefix := strings.Trim(u.Path, "/")
	if len(brokers) == 0 || prefix == "" {
		return nil, errors.New("target: a kafka:// URL names the brokers and the topic prefix: kafka://host:port[,host:port]/topic-prefix")
	}
	return engine{cfg: Config{Brokers: brokers, Prefix: prefix}}, nil
}

func (engine) Name() string { return "kafka" }

// Redacted names the brokers and the prefix (a Kafka target has no password).
func (e engine) Redacted() string {
	return "kafka://" + strings.Join(e.cfg.Brokers, ",") + "/" + url.PathEscape(e.cfg.Prefix)
}

// Capabilities: translated DDL for the schema history, the source's
// statement in the change events, REPLACE as logged, every column.
func (engine) Capabilities() target.Capabilities {
	return target.Capabilities{DDL: target.DDLTranslate, SourceStatements: true, KeepReplace: true, Generated: target.GeneratedAll}
}

// TunePipeline is the package's TunePipeline (target.PipelineTuner).
func (engine) TunePipeline(c *pipeline.Config) { TunePipeline(c) }
