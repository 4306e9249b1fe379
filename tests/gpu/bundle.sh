#!/usr/bin/env bash
# tests/gpu/bundle.sh [DIR] - the GPU check's programs, built here, with every shared library
# they load, the C library and its loader included, so that `tests/gpu/check.sh --bundle DIR`
# runs on a GPU machine that has the NVIDIA driver and nothing else of ours. The GPU machines
# lent to this project start bare and cannot fetch packages (no ISA-L, cmocka, liburing, fio
# there), so the check cannot build there; nvcc here compiles the kernels for sm_80 and sm_90
# plus PTX (raid/parity/cuda/cuda.mk), and only the driver's libcuda, which the CUDA runtime
# opens at the first call, is the GPU machine's own. DIR defaults to build/gpu-bundle (ignored
# by git: name it in the device tool's `carry`). Exit 0 with the bundle's size, 1 with one line
# saying what is missing.
#
#   DIR/bin/     the programs as built; DIR/engines/raid.so, the fio engine
#   DIR/lib/     their libraries and ld-linux-x86-64.so.2
#   DIR/run      PROGRAM ARGS...: runs PROGRAM with DIR/lib's loader and libraries
#   DIR/x/NAME   runs DIR/bin/NAME that way (what check.sh calls)
#   DIR/STAMP    the commit and date it was made from
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-build/gpu-bundle}
die() {
	echo "bundle.sh: $*" >&2
	exit 1
}

source tests/gpu/nvcc.sh
[[ -x $nvcc ]] || die "no nvcc ($nvcc): the GPU programs would be built without GPU support"
command -v jq >/dev/null || die "no jq here: check.sh needs it on the GPU machine too"

progs=(build/tests/pq_kernels_test build/tests/pq_cuda_test build/tests/raid56_cuda_test
	build/tests/rebuild56_cuda_test build/bin/raid-gpu-bench build/bin/fio)
make -s -j"$(nproc)" "${progs[@]}" build/engines/raid.so >/dev/null ||
	die "make failed (run make to see why)"
[[ $(nm build/bin/raid-gpu-bench | grep -c ' cudaGetDeviceCount$') -gt 0 ]] ||
	die "build/bin/raid-gpu-bench has no CUDA runtime: built without nvcc? (make clean, then again)"

rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/lib" "$dir/engines" "$dir/x"
cp "${progs[@]}" "$(command -v jq)" "$dir/bin/"
cp build/engines/raid.so "$dir/engines/"

# every library the programs and the engine need, as this machine's loader resolves them;
# libcuda is opened at run time (never a DT_NEEDED entry) and must stay the driver's own
for f in "$dir"/bin/* "$dir/engines/raid.so"; do
	ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/.*ld-linux/ { print $1 }'
done | sort -u | while read -r lib; do
	cp -L "$lib" "$dir/lib/$(basename "$lib")"
done
# and the C library's other parts that the driver's libcuda names (libdl, libpthread, librt):
# under this loader they must come from the same C library, not from the GPU machine's
libc_dir=$(dirname "$(ldd build/bin/fio | awk '$1 == "libc.so.6" { print $3 }')")
for lib in libdl.so.2 libpthread.so.0 librt.so.1 libutil.so.1; do
	[[ -e $libc_dir/$lib ]] && cp -L "$libc_dir/$lib" "$dir/lib/"
done
[[ -x $dir/lib/ld-linux-x86-64.so.2 ]] || die "no ld-linux-x86-64.so.2 among the libraries"

# LD_LIBRARY_PATH is ignored under --library-path: the GPU machine's own, and the folder where
# NVIDIA's container runtime mounts the driver, go after ours (libcuda.so.1 is looked up there,
# then in the machine's ld.so.cache and /usr/lib/x86_64-linux-gnu)
cat >"$dir/run" <<'EOF'
#!/bin/sh
d=$(dirname "$(readlink -f "$0")")
exec "$d/lib/ld-linux-x86-64.so.2" \
	--library-path "$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}:/usr/local/nvidia/lib64" "$@"
EOF
for f in "$dir"/bin/*; do
	n=$(basename "$f")
	printf '#!/bin/sh\nexec "$(dirname "$(readlink -f "$0")")/../run" "$(dirname "$(readlink -f "$0")")/../bin/%s" "$@"\n' \
		"$n" >"$dir/x/$n"
done
chmod +x "$dir/run" "$dir"/x/*
echo "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo +changes) $(date -u +%FT%TZ)" >"$dir/STAMP"

# self-contained: under its own loader, every library resolves inside DIR/lib
for f in "$dir"/bin/* "$dir/engines/raid.so"; do
	outside=$("$dir/lib/ld-linux-x86-64.so.2" --list --library-path "$dir/lib" "$f" |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | grep -v "^$(readlink -f "$dir/lib")/" |
		grep -v "^$dir/lib/" || true)
	[[ -z $outside ]] || die "$f loads a library from outside the bundle: $outside"
done
echo "bundle.sh: $dir ($(du -sh "$dir" | cut -f1), $(cat "$dir/STAMP")): carry it, then run" \
	"tests/gpu/check.sh --bundle $dir"
