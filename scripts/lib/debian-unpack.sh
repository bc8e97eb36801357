# shellcheck shell=bash
# scripts/lib/debian-unpack.sh: servers from newer Debian suites (trixie, sid) on this Debian 12
# machine, without installing anything. Sourced by scripts/sandbox (needs its log and die).
#
# deb_fetch downloads packages and their library closure through a private apt configuration
# (the system's apt sources, lists and dpkg status stay untouched) and unpacks them into
# DIR/root; the programs then run through the suite's own dynamic loader (deb_run), because
# they need a newer glibc and libstdc++ than Debian 12 has.

# deb_ld DIR / deb_libpath DIR: the unpacked suite's loader and library path.
deb_ld() { echo "$1/root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"; }
deb_libpath() { echo "$1/root/usr/lib/x86_64-linux-gnu:$1/root/lib/x86_64-linux-gnu"; }

# deb_run DIR PROGRAM ARGS...: run an unpacked program (path relative to DIR/root) with its loader.
deb_run() {
	local d=$1 prog=$2
	shift 2
	"$(deb_ld "$d")" --library-path "$(deb_libpath "$d")" "$d/root/$prog" "$@"
}

# deb_fetch DIR SUITE LABEL PACKAGE...: download PACKAGE... and their library closure from
# Debian SUITE into DIR once (DIR/unpacked marks a complete unpack), the .debs removed after.
deb_fetch() {
	local d=$1 suite=$2 label=$3
	shift 3
	[[ -f $d/unpacked && -x $(deb_ld "$d") ]] && return 0
	local mirror wanted
	log "downloading $label (Debian $suite: $* and their libraries) into $d"
	rm -rf "$d/root" "$d/debs" "$d/unpacked"
	mkdir -p "$d/apt/lists/partial" "$d/apt/cache/archives/partial" "$d/debs" "$d/root"
	touch "$d/apt/status"
	mirror="$(apt-cache policy | awk '$3 ~ /^bookworm\/main/ {print $2; exit}')"
	[[ -n $mirror ]] || mirror=http://deb.debian.org/debian
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" >"$d/apt/sources.list"
	cat >"$d/apt/apt.conf" <<C
Dir::Etc::SourceList "$d/apt/sources.list";
Dir::Etc::SourceParts "/dev/null";
Dir::State::Lists "$d/apt/lists";
Dir::Cache "$d/apt/cache";
Dir::State::status "$d/apt/status";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
APT::Sandbox::User "root";
C
	# The packages named, exactly, plus every library of their closure (suites move: the
	# closure is computed now, not hard-coded).
	wanted="$(printf '%s$|' "$@")"
	(
		export APT_CONFIG=$d/apt/apt.conf
		apt-get update -qq >&2 || die "apt-get update of Debian $suite (mirror $mirror) failed: $label cannot be downloaded"
		local p
		for p in "$@"; do
			apt-cache show "$p" >/dev/null 2>&1 || die "Debian $suite no longer carries $p (mirror $mirror): $label cannot be downloaded"
		done
		apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
			--no-enhances "$@" | grep -v '^[ <]' | sort -u |
			grep -E "^(lib|zlib1g|${wanted%|})" | grep -vE '^libperl|-dev$|-data$' >"$d/want.txt"
		# shellcheck disable=SC2046 # one argument per package
		(cd "$d/debs" && apt-get download -qq $(cat "$d/want.txt")) >&2 ||
			die "downloading $label packages from Debian $suite failed (list in $d/want.txt)"
	)
	local f
	for f in "$d"/debs/*.deb; do dpkg-deb -x "$f" "$d/root" || die "unpacking $f failed"; done
	[[ -x $(deb_ld "$d") ]] || die "the unpacked $label tree in $d/root has no dynamic loader"
	rm -rf "$d/debs"
}

# deb_wrap DIR BINDIR PROGRAM...: replace DIR/root/BINDIR/PROGRAM by a script that runs the real
# binary through the loader under its own name (--argv0). Programs that find their siblings,
# share and lib directories from their own path (PostgreSQL's initdb starts postgres, pg_ctl
# starts postgres) then find the wrappers and the unpacked tree.
deb_wrap() {
	local d=$1 bindir=$2 p
	shift 2
	for p in "$@"; do
		local real="$d/root/$bindir/.$p.real" wrapper="$d/root/$bindir/$p"
		[[ -e $real ]] || mv "$wrapper" "$real"
		printf '#!/bin/sh\nexec %s --library-path %s --argv0 "$0" %s "$@"\n' \
			"$(deb_ld "$d")" "$(deb_libpath "$d")" "$real" >"$wrapper"
		chmod 755 "$wrapper"
	done
}
