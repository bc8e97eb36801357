#!/usr/bin/env python3
"""Extracts table DDL statements from SQL, mysqltest and Go test sources.

Usage: extract.py OUT.json  (reads the sources named in SOURCES below)
Each group is one origin file: {"name", "origin", "statements"}.
"""
import json, re, subprocess, sys, os

DDL = re.compile(r"^\s*(create\s+(or\s+replace\s+)?(table|(unique\s+|fulltext\s+|spatial\s+)?index)|"
                 r"alter\s+(online\s+|ignore\s+)*table|drop\s+(table|index)|rename\s+table|truncate\s+(table\s+)?\w)", re.I)
SKIP = re.compile(r"\$|temporary|data\s+directory|index\s+directory|connection\s*=|tablespace|\bseq_\d|"
                  r"\bmysql\.|\btest\.|information_schema|performance_schema|mysqltest|\bsys\.|engine\s*=\s*(federated|connect|spider|s3|sequence|merge|mrg_myisam|oqgraph|blackhole|archive|csv)|"
                  r"encryption|encrypted|\bdiscard\b|\bimport\s+tablespace|sql_mode|@@|partition\s+by\s+system_time|with\s+system\s+versioning|\bpage_compressed\b|load_file|sleep\(", re.I)

def split(text, mysqltest=False):
    """Yields (statement, expect_error) split at the current delimiter."""
    delim, out, buf, err_next = ";", [], [], False
    i, n = 0, len(text)
    lines = text.split("\n")
    cur = ""
    in_str = None
    custom = False
    for line in lines:
        s = line.strip()
        if not cur.strip() and in_str is None:
            low = s.lower()
            if mysqltest and (s.startswith("--") and not s.startswith("-- ") or s.startswith("#")):
                w = s[2:].strip().split()
                if s.startswith("--") and w and w[0] in ("error",):
                    err_next = True
                if s.startswith("--") and w and w[0] == "delimiter":
                    delim = w[1] if len(w) > 1 else ";"
                    custom = delim != ";"
                continue
            if s.startswith("-- ") or s == "--" or s.startswith("#") or not s:
                continue
            m = re.match(r"(?i)^delimiter\s+(\S+)", s)
            if m:
                d = m.group(1)
                if mysqltest and d.endswith(";") and len(d) > 1 and delim == ";":
                    d = d[:-1]
                elif mysqltest and delim != ";" and d.endswith(delim) and len(d) > len(delim):
                    d = d[: -len(delim)]
                delim = d
                custom = delim != ";"
                continue
        cur += line + "\n"
        # find delimiter outside quotes
        while True:
            idx = find_delim(cur, delim)
            if idx < 0:
                break
            stmt = cur[:idx].strip()
            cur = cur[idx + len(delim):]
            low = stmt.lower()
            if mysqltest and re.match(r"^(error|--error)\s", low):
                err_next = True
                continue
            if stmt:
                yield stmt, err_next, custom
                err_next = False
            if not cur.strip():
                cur = ""
                break

def find_delim(s, delim):
    i, n, q = 0, len(s), None
    while i < n:
        c = s[i]
        if q:
            if c == "\\" and q != "`":
                i += 2
                continue
            if c == q:
                if i + 1 < n and s[i + 1] == q:
                    i += 2
                    continue
                q = None
            i += 1
            continue
        if c in "'\"`":
            q = c
        elif s.startswith("/*", i) and not s.startswith("/*!", i):
            j = s.find("*/", i + 2)
            if j < 0:
                return -1
            i = j + 2
            continue
        elif s.startswith("-- ", i) or c == "#":
            j = s.find("\n", i)
            if j < 0:
                return -1
            i = j + 1
            continue
        elif s.startswith(delim, i):
            return i
        i += 1
    return -1

def strip_comments(stmt):
    out, i, n, q = [], 0, len(stmt), None
    while i < n:
        c = stmt[i]
        if q:
            out.append(c)
            if c == "\\" and q != "`" and i + 1 < n:
                out.append(stmt[i + 1]); i += 2; continue
            if c == q:
                q = None
            i += 1; continue
        if c in "'\"`":
            q = c; out.append(c); i += 1; continue
        if stmt.startswith("-- ", i) or c == "#":
            j = stmt.find("\n", i)
            i = n if j < 0 else j; continue
        if stmt.startswith("/*", i) and not stmt.startswith("/*!", i):
            j = stmt.find("*/", i + 2)
            i = n if j < 0 else j + 2; out.append(" "); continue
        if c in "\r\n\t":
            c = " "
        out.append(c); i += 1
    return re.sub(r"  +", " ", "".join(out)).strip() if q is None else None

def keep(stmt, err, custom):
    if err or custom or stmt is None:
        return False
    if not DDL.match(stmt) or SKIP.search(stmt):
        return False
    return len(stmt) < 4000

def git_show(repo, path):
    return subprocess.run(["git", "-C", repo, "show", "HEAD:" + path], capture_output=True, text=True, errors="replace").stdout

def git_ls(repo, prefix):
    return subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", "HEAD", prefix], capture_output=True, text=True).stdout.split()

def from_sql(text, mysqltest=False):
    out = []
    for stmt, err, custom in split(text, mysqltest):
        s = strip_comments(stmt)
        if keep(s, err, custom):
            out.append(s)
    return out

GO_STR = re.compile(r'"((?:[^"\\\n]|\\.)*)"|`([^`]*)`')

def from_go(text):
    out = []
    for m in GO_STR.finditer(text):
        if m.group(1) is not None:
            try:
                s = json.loads('"' + m.group(1) + '"')
            except Exception:
                continue
        else:
            s = m.group(2)
        for part in split(s + ";"):
            st = strip_comments(part[0])
            if keep(st, False, False):
                out.append(st)
    return out

FIELD = re.compile(r'\b(from|to|diff|cdiff|name)\s*:\s*((?:(?:"(?:[^"\\\n]|\\.)*"|`[^`]*`)\s*\+?\s*)+)', re.S)

def go_string(expr):
    parts = []
    for m in GO_STR.finditer(expr):
        parts.append(json.loads('"' + m.group(1) + '"') if m.group(1) is not None else m.group(2))
    return "".join(parts)

def from_go_cases(text):
    """schemadiff's table cases: {from, to, diff}: the from table, then the
    ALTER that turns it into the to table (cases without one only when
    their CREATE is new)."""
    out, case, seen = [], {}, set()
    def flush():
        f, d = case.get("from"), case.get("diff")
        if f:
            fs = strip_comments(f)
            if keep(fs, False, False) and (d or fs.lower() not in seen):
                seen.add(fs.lower())
                out.append(fs)
                for part in split((d or "") + ";"):
                    ds = strip_comments(part[0])
                    if keep(ds, False, False):
                        out.append(ds)
    for m in FIELD.finditer(text):
        k = m.group(1)
        if k == "from":
            flush()
            case.clear()
        if k in ("from", "diff"):
            case[k] = go_string(m.group(2))
    flush()
    return out

def main():
    groups = []
    gh = "/work/.mirror/github+gh-ost/repo"
    tests = sorted({p.split("/")[1] for p in git_ls(gh, "localtests") if p.count("/") == 2})
    for t in tests:
        stmts = from_sql(git_show(gh, f"localtests/{t}/create.sql"))
        args = git_show(gh, f"localtests/{t}/extra_args")
        m = re.search(r"""--alter=(["'])(.*?)\1""", args, re.S)
        if not stmts:
            continue
        if m and not os.path.exists(""):
            stmts.append(strip_comments("alter table gh_ost_test " + m.group(2)))
        groups.append({"name": "gh-ost/" + t, "origin": f"github.com/github/gh-ost localtests/{t}/create.sql, extra_args (--alter)", "statements": stmts})
    dbz = "/work/.mirror/debezium+debezium/repo"
    for p in git_ls(dbz, "debezium-ddl-parser/src/test/resources") + git_ls(dbz, "debezium-connector-binlog/src/test/resources/ddl"):
        if not re.search(r"\.(sql|ddl)$", p) or re.search(r"oracle|sqlserver|postgres|/legacy/", p, re.I):
            continue
        stmts = from_sql(git_show(dbz, p))
        if stmts:
            groups.append({"name": "debezium/" + p.split("/")[-3] + "/" + os.path.basename(p), "origin": "github.com/debezium/debezium " + p, "statements": stmts})
    srcdir = "/tmp/ddlcorpus/src"
    for f in sorted(os.listdir(srcdir)):
        meta = open(os.path.join(srcdir, f + ".origin")).read().strip() if os.path.exists(os.path.join(srcdir, f + ".origin")) else None
        if f.endswith(".origin") or meta is None:
            continue
        text = open(os.path.join(srcdir, f), errors="replace").read()
        if f.endswith("table_test.go") or f.endswith("diff_test.go"):
            stmts = from_go_cases(text)
        elif f.endswith(".go"):
            stmts = from_go(text)
        else:
            stmts = from_sql(text, f.endswith(".test"))
        if stmts:
            groups.append({"name": f, "origin": meta, "statements": stmts})
    json.dump(groups, open(sys.argv[1], "w"), indent=1)
    print(len(groups), "groups", sum(len(g["statements"]) for g in groups), "statements", file=sys.stderr)

main()
