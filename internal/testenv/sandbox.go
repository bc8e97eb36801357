package testenv

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// sandboxStartTimeout bounds `scripts/sandbox start`; on a fresh machine it installs the
// Debian packages first, which takes minutes.
const sandboxStartTimeout = 15 * time.Minute

// startSandbox runs `scripts/sandbox start` (with the servers the SLUICE_TEST_MARIADB/PG
// variables chose, versions.go) and returns the URLs from the export lines it prints, and all
// of those lines.
func startSandbox(ctx context.Context) (envVars, map[string]string, error) {
	root, err := RepoRoot()
	if err != nil {
		return envVars{}, nil, err
	}
	switches, err := sandboxSwitches()
	if err != nil {
		return envVars{}, nil, err
	}
	script := filepath.Join(root, "scripts", "sandbox")
	ctx, cancel := context.WithTimeout(ctx, sandboxStartTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script, "start")
	cmd.Env = append(os.Environ(), switches...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// The servers the script starts must not keep our pipes open; if one ever does, give up
	// waiting for the pipes instead of hanging the test binary.
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		return envVars{}, nil, fmt.Errorf("bash %s start: %w\n%s", script, err, Tail(stderr.String(), 40))
	}
	vars := parseExports(stdout.String())
	v := envVars{
		mysqlAdmin:       vars["SLUICE_TEST_MYSQL_ADMIN"],
		pgAdmin:          vars["SLUICE_TEST_PG_ADMIN"],
		source:           vars["SLUICE_SOURCE"],
		target:           vars["SLUICE_TARGET"],
		mysql9Admin:      vars["SLUICE_TEST_MYSQL9_ADMIN"],
		mysqlTargetAdmin: vars["SLUICE_TEST_MYSQL_TARGET_ADMIN"],
	}
	if v.mysqlAdmin == "" || v.pgAdmin == "" {
		return envVars{}, nil, fmt.Errorf("bash %s start printed no SLUICE_TEST_MYSQL_ADMIN/SLUICE_TEST_PG_ADMIN exports", script)
	}
	return v, vars, nil
}

// parseExports reads `export NAME=value` lines (values unquoted or in single/double quotes).
func parseExports(out string) map[string]string {
	vars := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		rest, ok := strings.CutPrefix(line, "export ")
		if !ok {
			continue
		}
		name, value, ok := strings.Cut(rest, "=")
		if !ok {
			continue
		}
		if len(value) >= 2 && (value[0] == '\'' || value[0] == '"') && value[len(value)-1] == value[0] {
			value = value[1 : len(value)-1]
		}
		vars[strings.TrimSpace(name)] = value
	}
	return vars
}

// RepoRoot finds the directory holding go.mod by walking up from the working directory
// (go test runs each test binary in its package directory).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repository root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find repository root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Tail returns the last n lines of s.
func Tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
