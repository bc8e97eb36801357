package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/knadh/koanf/v2"
	"github.com/spf13/pflag"
)

// Passwords never need to be in the process's arguments, which every local
// user can read (ps, /proc/PID/cmdline). A connection URL setting NAME
// (source, target, replica) without a password in its URL takes it from
//
//	--NAME-password-file FILE    also SLUICE_NAME_PASSWORD_FILE or "NAME-password-file:" in the config file
//	SLUICE_NAME_PASSWORD         the password itself; also "NAME-password:" in the config file, never a flag
//
// or the URL keeps its own (in SLUICE_NAME or a config file). A file holding
// a password (the password file, or a config file with one) that other
// users may read is refused, as ssh and libpq's .pgpass refuse theirs.

const passwordFileSuffix = "-password-file"

// PasswordFileFlag is the flag naming the file of a URL setting's password:
// source-password-file for source.
func PasswordFileFlag(name string) string { return name + passwordFileSuffix }

// PasswordKey is the setting that is a URL setting's password itself:
// source-password (SLUICE_SOURCE_PASSWORD) for source. No flag has the name:
// it may come from the environment or the config file only.
func PasswordKey(name string) string { return name + "-password" }

// PasswordEnv is the environment variable holding a URL setting's password:
// SLUICE_SOURCE_PASSWORD for source.
func PasswordEnv(name string) string { return EnvPrefix + envName(PasswordKey(name)) }

// passwordKeyOf is the password setting that goes with a --NAME-password-file
// flag.
func passwordKeyOf(flag string) (string, bool) {
	name, ok := strings.CutSuffix(flag, passwordFileSuffix)
	if !ok {
		return "", false
	}
	return PasswordKey(name), true
}

// SecretKeys are the settings of a command that are not flags: the password
// of each URL setting with a --NAME-password-file flag.
func SecretKeys(flags *pflag.FlagSet) []string {
	var keys []string
	flags.VisitAll(func(f *pflag.Flag) {
		if key, ok := passwordKeyOf(f.Name); ok {
			keys = append(keys, key)
		}
	})
	return keys
}

// mergePasswords writes each URL setting's password, from its file or its
// password setting, into its URL (every URL of a repeatable one) and removes
// the password setting: from here on the password is only inside the URLs,
// which the Parse functions never echo.
func mergePasswords(k *koanf.Koanf, flags *pflag.FlagSet) error {
	var errs []error
	flags.VisitAll(func(f *pflag.Flag) {
		name, ok := strings.CutSuffix(f.Name, passwordFileSuffix)
		if !ok || flags.Lookup(name) == nil {
			return
		}
		pw, from, err := password(k, name)
		k.Delete(PasswordKey(name))
		if err != nil || pw == "" {
			if err != nil {
				errs = append(errs, err)
			}
			return
		}
		if err := setURLPassword(k, name, pw, from); err != nil {
			errs = append(errs, err)
		}
	})
	return errors.Join(errs...)
}

// password is a URL setting's password and where it came from; "" when
// neither the file nor the password setting is set.
func password(k *koanf.Koanf, name string) (pw, from string, err error) {
	file, value := k.String(PasswordFileFlag(name)), k.String(PasswordKey(name))
	valueFrom := PasswordEnv(name) + " (or " + PasswordKey(name) + ": in the config file)"
	switch {
	case file != "" && value != "":
		return "", "", fmt.Errorf("--%s and %s are both set: give the %s password one way", PasswordFileFlag(name), valueFrom, name)
	case value != "":
		return value, valueFrom, nil
	case file == "":
		return "", "", nil
	}
	pw, err = ReadPasswordFile(file, "--"+PasswordFileFlag(name))
	return pw, "--" + PasswordFileFlag(name), err
}

// setURLPassword puts pw into the URL (or each URL) of setting name. A URL
// with a password of its own is refused: two passwords for one connection
// is a mistake, whichever was meant.
func setURLPassword(k *koanf.Koanf, name, pw, from string) error {
	urls, isList := stringsOf(k.Get(name))
	for i, s := range urls {
		s, hosts, err := splitHosts(name, s)
		if err != nil {
			continue // Parse* reports it, without the password
		}
		u, err := url.Parse(s)
		if err != nil || s == "" {
			continue // Parse* reports it, without the password
		}
		if _, has := u.User.Password(); has {
			return fmt.Errorf("--%s: the URL has a password and %s gives one too: keep one, "+
				"and keep passwords out of the command line (--%s FILE or %s)", name, from,
				PasswordFileFlag(name), PasswordEnv(name))
		}
		u.User = url.UserPassword(u.User.Username(), pw)
		urls[i] = joinHosts(u.String(), hosts)
	}
	if len(urls) == 0 {
		return nil
	}
	if isList {
		return k.Set(name, urls)
	}
	return k.Set(name, urls[0])
}

// List reads a repeatable setting (alter's --replica, stream's --source):
// the flags given, a list in the config file, or one value in the
// environment. Empty values are left out.
func List(k *koanf.Koanf, name string) []string {
	vals, _ := stringsOf(k.Get(name))
	var out []string
	for _, v := range vals {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// stringsOf reads a setting that is one string or a list of them.
func stringsOf(v any) (out []string, isList bool) {
	switch v := v.(type) {
	case string:
		return []string{v}, false
	case []string:
		return append([]string(nil), v...), true
	case []any:
		for _, e := range v {
			out = append(out, fmt.Sprint(e))
		}
		return out, true
	}
	return nil, false
}

// envName is the environment variable's name of a setting, without the
// prefix: source-password is SOURCE_PASSWORD.
func envName(key string) string {
	return strings.ToUpper(strings.ReplaceAll(key, "-", "_"))
}
