package config

import (
	"fmt"
	"os"
	"strings"

	"github.com/knadh/koanf/v2"
)

// ReadPasswordFile reads a password file: the password alone, a trailing
// line break ignored. what names the setting in messages.
func ReadPasswordFile(path, what string) (string, error) {
	if err := CheckPrivate(path, what); err != nil {
		return "", err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	pw := strings.TrimRight(string(b), "\r\n")
	switch {
	case pw == "":
		return "", fmt.Errorf("%s %s is empty: the file holds the password alone", what, path)
	case strings.ContainsAny(pw, "\r\n"):
		return "", fmt.Errorf("%s %s has more than one line: the file holds the password alone", what, path)
	}
	return pw, nil
}

// CheckPrivate refuses a file holding a password that the group or other
// users may read or write, naming the fix.
func CheckPrivate(path, what string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s %s holds a password but has group or world access (mode %04o): "+
			"other users of this machine can read it; run chmod 600 %s", what, path, perm, path)
	}
	return nil
}

// holdsPassword reports whether a loaded config file sets a password: a
// password setting, or a URL with a password in any value.
func holdsPassword(k *koanf.Koanf) bool {
	for _, key := range k.Keys() {
		if strings.HasSuffix(key, "-password") {
			return true
		}
		vals, _ := stringsOf(k.Get(key))
		for _, v := range vals {
			if URLHasPassword(v) {
				return true
			}
		}
	}
	return false
}
