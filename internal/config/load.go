package config

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

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
// variables, then flags given on the command line; then each URL setting's
// password from its file or the environment goes into its URL (secret.go). It also returns the keys of
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
		if holdsPassword(k) {
			if err := CheckPrivate(path, "config file"); err != nil {
				return nil, nil, err
			}
		}
	}
	known := map[string]bool{}
	flags.VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
	for _, key := range SecretKeys(flags) {
		known[key] = true
	}
	for _, key := range k.Keys() {
		if f := flags.Lookup(key); f != nil {
			if err := checkValue(f, fmt.Sprint(k.Get(key))); err != nil {
				return nil, nil, fmt.Errorf("config: file %s: key %q: %w", path, key, err)
			}
		}
	}
	var envErrs []error
	if err := k.Load(env.Provider(".", env.Opt{
		Prefix: EnvPrefix,
		TransformFunc: func(key, value string) (string, any) {
			name := strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(key, EnvPrefix)), "_", "-")
			if !known[name] {
				return "", nil // not a flag of this command: ignore
			}
			f := flags.Lookup(name)
			if f == nil {
				return name, value // a password setting (secret.go): no flag
			}
			if err := checkValue(f, value); err != nil {
				envErrs = append(envErrs, fmt.Errorf("config: environment variable %s: %w", key, err))
			}
			if strings.HasSuffix(f.Value.Type(), "Slice") {
				return name, strings.Split(value, ",")
			}
			return name, value
		},
	}), nil); err != nil {
		return nil, nil, fmt.Errorf("config: environment: %w", err)
	}
	if len(envErrs) > 0 {
		return nil, nil, errors.Join(envErrs...)
	}
	// Flags last: a flag given on the command line overrides; a flag's default
	// fills in only what neither the file nor the environment set.
	if err := k.Load(posflag.Provider(flags, ".", k), nil); err != nil {
		return nil, nil, fmt.Errorf("config: flags: %w", err)
	}
	if err := mergePasswords(k, flags); err != nil {
		return nil, nil, err
	}
	var unknown []string
	for _, key := range k.Keys() {
		if !known[key] {
			unknown = append(unknown, key)
		}
	}
	return k, unknown, nil
}

// checkValue reports a value a flag of this type cannot take, so a typo in a
// file or an environment variable stops the command instead of silently
// becoming the zero value.
func checkValue(f *pflag.Flag, v string) error {
	var err error
	switch f.Value.Type() {
	case "int", "int8", "int16", "int32", "int64":
		_, err = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	case "uint", "uint8", "uint16", "uint32", "uint64":
		_, err = strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	case "float32", "float64":
		_, err = strconv.ParseFloat(strings.TrimSpace(v), 64)
	case "bool":
		_, err = strconv.ParseBool(strings.TrimSpace(v))
	case "duration":
		_, err = time.ParseDuration(strings.TrimSpace(v))
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("%q is not a valid %s for --%s", v, f.Value.Type(), f.Name)
	}
	return nil
}
