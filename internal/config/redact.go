package config

import (
	"net/url"
	"strings"

	"github.com/spf13/pflag"
)

// URLHasPassword reports whether s is a URL with a password in it.
func URLHasPassword(s string) bool {
	if !strings.Contains(s, "://") {
		return false
	}
	if one, _, err := splitHosts("", s); err == nil {
		s = one // a multi-host URL's password is in front of its first host
	}
	u, err := url.Parse(s)
	if err != nil {
		// Unparsable: assume the worst when it looks like user:pass@.
		return strings.Contains(s, "@")
	}
	_, has := u.User.Password()
	return has
}

// RedactArgs is a command line with the password of every URL in it
// replaced by xxxxx (--source URL and --source=URL alike), for
// /debug/pprof/cmdline.
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		prefix, v := "", a
		if strings.HasPrefix(a, "-") {
			if j := strings.IndexByte(a, '='); j >= 0 {
				prefix, v = a[:j+1], a[j+1:]
			}
		}
		out[i] = a
		if URLHasPassword(v) {
			out[i] = prefix + redactURL(v)
		}
	}
	return out
}

// redactURL is a URL with its password replaced; an unparsable one is
// hidden whole.
func redactURL(s string) string {
	s, hosts, err := splitHosts("", s)
	if err != nil {
		return "xxxxx"
	}
	u, err := url.Parse(s)
	if err != nil {
		return "xxxxx"
	}
	return joinHosts(u.Redacted(), hosts)
}

// CommandLinePasswords names the URL flags given on the command line with
// a password in their URL: every local user can read it (ps).
func CommandLinePasswords(flags *pflag.FlagSet) []string {
	var names []string
	flags.Visit(func(f *pflag.Flag) {
		if flags.Lookup(PasswordFileFlag(f.Name)) == nil {
			return
		}
		vals := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			vals = sv.GetSlice()
		}
		for _, v := range vals {
			if URLHasPassword(v) {
				names = append(names, f.Name)
				return
			}
		}
	})
	return names
}
