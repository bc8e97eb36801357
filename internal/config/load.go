package config

import (
	"fmt"
	"os"
	"strings"

	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/providers/posflag"
	"github.com/knadh/koanf/v2"
	"github.com/spf13/pflag"
)

// EnvPrefix is the prefix of environment variables: --max-txn-memory is
// SLUICE_MAX_TXN_MEMORY.
const EnvPrefix = "SLUICE_"

// Load merges, lowest precedence first: flag defaults, the YAML file (keys are
// the flag names, e.g. "source:", "max-txn-memory:"), SLUICE_* environment
// variables, then flags given on the command line. It also returns the keys of
// the file that are not settings of this command, so the caller can warn:
// one file may serve several commands, so they are not an error.
func Load(flags *pflag.FlagSet, path string) (*koanf.Koanf, []string, error) {
	k := koanf.New(".")
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			return nil, nil, fmt.Errorf("config: file %s: %w", path, err)
		}
		if err := k.Load(file.Provider(path), yaml.Parser()); err != nil {
			return nil, nil, fmt.Errorf("config: file %s: %w", path, err)
		}
	}
	known := map[string]bool{}
	flags.VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
	if err := k.Load(env.Provider(".", env.Opt{
		Prefix: EnvPrefix,
		TransformFunc: func(key, value string) (string, any) {
			name := strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(key, EnvPrefix)), "_", "-")
			if !known[name] {
				return "", nil // not a flag of this command: ignore
			}
			if f := flags.Lookup(name); f != nil && strings.HasSuffix(f.Value.Type(), "Slice") {
				return name, strings.Split(value, ",")
			}
			return name, value
		},
	}), nil); err != nil {
		return nil, nil, fmt.Errorf("config: environment: %w", err)
	}
	// Flags last: a flag given on the command line overrides; a flag's default
	// fills in only what neither the file nor the environment set.
	if err := k.Load(posflag.Provider(flags, ".", k), nil); err != nil {
		return nil, nil, fmt.Errorf("config: flags: %w", err)
	}
	var unknown []string
	for _, key := range k.Keys() {
		if !known[key] {
			unknown = append(unknown, key)
		}
	}
	return k, unknown, nil
}
