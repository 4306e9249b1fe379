#!/usr/bin/env bash
# Fetches fio 3.33 from Debian's source archive (no deb-src line needed on the host),
# checks the pinned sha256, and builds build/bin/fio. The engine is compiled against this
# tree: fio only checks FIO_IOOPS_VERSION, so an engine must match the fio that loads it.
# Usage: mk/fio.sh BUILD_DIR
set -euo pipefail

build=$(realpath -m "${1:?usage: mk/fio.sh BUILD_DIR}")
ver=3.33
sha=d2410e13e0f379d061d077cc5ae325835bb7c6186aa7bafc1df954cbc9b014fc
tarball=fio_${ver}.orig.tar.gz
dl=$build/fio-dl
src=$build/fio-$ver
mirror=${FIO_DEB_MIRROR:-http://deb.debian.org/debian}

mkdir -p "$dl" "$build/bin"
if [[ -n "${FIO_TARBALL:-}" ]]; then
	cp "$FIO_TARBALL" "$dl/$tarball"
fi
if [[ ! -f "$dl/$tarball" ]] || ! echo "$sha  $dl/$tarball" | sha256sum -c --status; then
	echo "fio: fetching fio $ver source from Debian ($mirror, bookworm)" >&2
	echo "deb-src $mirror bookworm main" >"$dl/sources.list"
	mkdir -p "$dl/lists/partial"
	apt_o=(-o "Dir::Etc::SourceList=$dl/sources.list" -o Dir::Etc::SourceParts=/dev/null
	       -o "Dir::State::Lists=$dl/lists" -o APT::Sandbox::User=root)
	apt-get "${apt_o[@]}" update -qq >&2
	(cd "$dl" && apt-get "${apt_o[@]}" source --download-only -qq fio >&2)
fi
if ! echo "$sha  $dl/$tarball" | sha256sum -c --status; then
	echo "fio: $dl/$tarball does not match the pinned sha256 $sha; refusing to build" >&2
	exit 1
fi

rm -rf "$src.tmp" && mkdir -p "$src.tmp"
tar -xzf "$dl/$tarball" -C "$src.tmp" --strip-components=1
echo "fio: configuring and building fio $ver (about 40 s)" >&2
(cd "$src.tmp" && ./configure --disable-native >configure.log 2>&1) ||
	{ echo "fio: configure failed, see $src.tmp/configure.log" >&2; exit 1; }
(cd "$src.tmp" && make -j"$(nproc)" fio >make.log 2>&1) ||
	{ echo "fio: build failed, see $src.tmp/make.log" >&2; exit 1; }
rm -rf "$src" && mv "$src.tmp" "$src"
cp "$src/fio" "$build/bin/fio"
