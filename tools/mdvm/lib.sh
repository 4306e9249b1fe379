# tools/mdvm/lib.sh: the md appliance (docs/md.md), sourced by tools/mdvm/mdvm, run.sh and
# the tests. Linux md on any machine: a stock Debian kernel booted under QEMU with a small
# busybox initramfs (tools/mdvm/init) that mounts the host's / read-only over 9p, chroots
# into it and runs the caller's command, so that the host's mdadm, losetup and the
# project's fio run against a real md driver. Where the host kernel has md, mdvm_exec runs
# the command on the host instead.
#
#   mdvm_prepare            install QEMU, busybox and mdadm (as root), fetch the kernel,
#                           build the initramfs, find the accelerator; cached in MDVM_CACHE
#   mdvm_check              one line on stdout: where md comes from; 77 when it can't be had
#   mdvm_run [OPTS] -- CMD  run CMD in the appliance, exit with its status
#   mdvm_exec [OPTS] -- CMD the same, on the host when its kernel has md
#
# Environment: MDVM_CACHE (default build/mdvm), MDVM_KERNEL=6.12|6.1 (the guest kernel:
# Debian 13's or Debian 12's, default MDVM_KERNEL_DEFAULT; `mdvm --kernel` sets it),
# MDVM_ACCEL=tcg|kvm (skip the probe), MDVM_TIMEOUT (seconds a run may take, default 900),
# MDVM_KEEP=1 (keep the run's directory).

MDVM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MDVM_CACHE=${MDVM_CACHE:-$MDVM_ROOT/build/mdvm}
# what the initramfs loads, with their dependencies from modules.dep (and parameters)
# crc32c_generic first: libcrc32c (raid456) finds it by name at init, not by symbol;
# nvme for the NVMe controllers of mdvm run --nvme (nvme_core comes with it)
MDVM_MODULES=(virtio_pci 9pnet_virtio 9p loop crc32c_generic md_mod raid0 raid1 raid10 raid456
	nvme_core nvme)
# loaded where the kernel has them: ublk (6.12 only: 6.1 is built without it) and the
# filesystems a test puts on an array (a module listed in modules.builtin counts as loaded)
MDVM_MODULES_OPT=(ublk_drv ext4 xfs)
declare -A MDVM_MODPARAMS=([loop]="max_loop=16")

# The guest kernels: Debian 13's 6.12 (ublk, a current md; md's tests pass on it, see
# docs/md.md) by default, Debian 12's 6.1 on request. Each is fetched from its own
# distribution's archive and cached in MDVM_CACHE/kernel-VERSION.
MDVM_KERNEL_DEFAULT=6.12
declare -A MDVM_KERNEL_SUITE=([6.1]=bookworm [6.12]=trixie)
MDVM_DEB_MIRROR=${MDVM_DEB_MIRROR:-http://deb.debian.org/debian}
MDVM_DEB_SECURITY=${MDVM_DEB_SECURITY:-http://deb.debian.org/debian-security}

mdvm__say() { echo "mdvm: $*" >&2; }

# The host kernel has md (a real server): no appliance needed.
mdvm_host_md() {
	[[ -e /proc/mdstat ]] && return 0
	modprobe -q md_mod 2>/dev/null && [[ -e /proc/mdstat ]]
}

# The commands the appliance needs, by the Debian package that brings them.
declare -A MDVM_CMDS=([qemu-system-x86_64]=qemu-system-x86 [busybox]=busybox-static [mdadm]=mdadm)

mdvm__missing_pkgs() {
	local c
	for c in "${!MDVM_CMDS[@]}"; do
		command -v "$c" >/dev/null || PATH=$PATH:/sbin:/usr/sbin command -v "$c" >/dev/null ||
			echo "${MDVM_CMDS[$c]}"
	done
}

# As root, mk/deps.sh installs them (with the rest of the suite's packages).
mdvm__install() {
	local missing
	missing=$(mdvm__missing_pkgs)
	[[ -z "$missing" ]] && return 0
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
		mdvm__say "installing" $missing
		bash "$MDVM_ROOT/mk/deps.sh" >"$MDVM_CACHE/apt.log" 2>&1
		missing=$(mdvm__missing_pkgs)
		[[ -z "$missing" ]] && return 0
		mdvm__say "apt-get install" $missing "failed (log: $MDVM_CACHE/apt.log)"
		return 77
	fi
	# shellcheck disable=SC2086
	mdvm__say "missing Debian packages:" $missing "(as root: apt-get install" $missing")"
	return 77
}

# The chosen kernel (MDVM_KERNEL, else the default): prints it, or says why not and fails.
mdvm__kernel() {
	local k=${MDVM_KERNEL:-$MDVM_KERNEL_DEFAULT}
	if [[ -z ${MDVM_KERNEL_SUITE[$k]:-} ]]; then
		mdvm__say "MDVM_KERNEL/--kernel: '$k' is not a guest kernel (6.12 or 6.1)"
		return 2
	fi
	echo "$k"
}

# Where kernel K's appliance is cached.
mdvm__kdir() { echo "$MDVM_CACHE/kernel-$1"; }

# apt-get/apt-cache options of a private source list of suite SUITE under MDVM_CACHE (the
# host's own sources are never read nor touched: Debian 12's apt fetches Debian 13's kernel)
mdvm__apt_opts() {
	local a=$MDVM_CACHE/apt-$1
	printf '%s\n' -o "Dir::Etc::SourceList=$a/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache" -o APT::Sandbox::User=root
}

# The kernel image package linux-image-amd64 depends on in SUITE's archive
# (linux-image-6.1.0-57-amd64, linux-image-6.12.117+deb13-amd64); the list is fetched once.
mdvm__kernel_pkg() {
	local suite=$1 a=$MDVM_CACHE/apt-$1 o
	mapfile -t o < <(mdvm__apt_opts "$suite")
	if [[ ! -s $a/sources.list ]] || ! compgen -G "$a/lists/*Packages*" >/dev/null; then
		mkdir -p "$a/lists/partial" "$a/cache/archives/partial" || return 1
		# the point release and its security updates, as the host's own sources have them
		printf 'deb %s %s main\ndeb %s %s-security main\n' "$MDVM_DEB_MIRROR" "$suite" \
			"$MDVM_DEB_SECURITY" "$suite" >"$a/sources.list"
		apt-get "${o[@]}" update -qq >"$a/update.log" 2>&1 ||
			{ mdvm__say "apt-get update of $suite's list failed (log: $a/update.log)"; return 1; }
	fi
	apt-cache "${o[@]}" depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -1
}

# modules.load for MODDIR (lib/modules/VER): each module after its dependencies, once;
# one built into the kernel (6.12's virtio_pci) is skipped, an optional one that is absent too.
mdvm__module_order() {
	local moddir=$1
	touch "$moddir/modules.builtin"
	awk -v want="${MDVM_MODULES[*]}" -v opt="${MDVM_MODULES_OPT[*]}" '
		function name(p) { sub(/.*\//, "", p); sub(/\.ko.*$/, "", p); gsub(/-/, "_", p); return p }
		function load(p,   i, n, d) {
			if (p in done) return
			done[p] = 1
			n = split(deps[p], d, " ")
			for (i = n; i >= 1; i--) load(d[i])
			print p
		}
		FILENAME ~ /modules.builtin$/ { builtin[name($1)] = 1; next }
		{ p = $1; sub(/:$/, "", p); path[name(p)] = p; $1 = ""; deps[p] = $0 }
		END {
			n = split(want, w, " ")
			m = split(opt, o, " ")
			for (i = 1; i <= m; i++) w[n + i] = o[i]
			for (i = 1; i <= n + m; i++) {
				if (w[i] in builtin) continue
				if (!(w[i] in path)) {
					if (i > n) continue
					print "missing " w[i] > "/dev/stderr"; exit 1
				}
				load(path[w[i]])
			}
		}' "$moddir/modules.builtin" "$moddir/modules.dep"
}

# mdvm__copy_module SRC DEST.ko: a module into the initramfs, uncompressed (6.12's are .ko.xz,
# which busybox's insmod hands to the kernel as they are)
mdvm__copy_module() {
	case $1 in
	*.ko.xz) xz -dc "$1" >"$2" ;;
	*) cp "$1" "$2" ;;
	esac
}

# Build DIR/vmlinuz and DIR/initrd.cpio for kernel package PKG of SUITE (downloaded into the
# cache through SUITE's private source list).
mdvm__build_kernel() {
	local pkg=$1 suite=$2 dir=$3 deb x ver m p o
	mkdir -p "$MDVM_CACHE/dl"
	deb=$(ls "$MDVM_CACHE/dl/${pkg}_"*.deb 2>/dev/null | head -1)
	if [[ -z "$deb" ]]; then
		mdvm__say "downloading $pkg ($suite)"
		mapfile -t o < <(mdvm__apt_opts "$suite")
		(cd "$MDVM_CACHE/dl" && apt-get "${o[@]}" download "$pkg") >"$MDVM_CACHE/download.log" 2>&1 ||
			{ mdvm__say "apt-get download $pkg failed (log: $MDVM_CACHE/download.log)"; return 77; }
		deb=$(ls "$MDVM_CACHE/dl/${pkg}_"*.deb | head -1)
	fi
	x=$(mktemp -d "$MDVM_CACHE/unpack.XXXXXX") || return 1
	mdvm__say "unpacking $(basename "$deb")"
	dpkg-deb -x "$deb" "$x" || { rm -rf "$x"; return 1; }
	# Debian 13 is merged-/usr: its modules are under usr/lib/modules
	[[ -e $x/lib || ! -d $x/usr/lib/modules ]] || ln -s usr/lib "$x/lib"
	ver=${pkg#linux-image-}
	busybox depmod -b "$x" "$ver" || { rm -rf "$x"; mdvm__say "busybox depmod failed"; return 1; }
	mkdir -p "$x/initrd/bin" "$x/initrd/mod"
	cp /bin/busybox "$x/initrd/bin/busybox"
	install -m 0755 "$MDVM_ROOT/tools/mdvm/init" "$x/initrd/init"
	mdvm__module_order "$x/lib/modules/$ver" >"$x/order" || { rm -rf "$x"; return 1; }
	while read -r p; do
		m=$(basename "${p%.xz}" .ko)
		mdvm__copy_module "$x/lib/modules/$ver/$p" "$x/initrd/mod/$m.ko" || { rm -rf "$x"; return 1; }
		echo "mod/$m.ko ${MDVM_MODPARAMS[${m//-/_}]:-}"
	done <"$x/order" >"$x/initrd/modules.load" || { rm -rf "$x"; return 1; }
	# brd is loaded by init only for --ramdisks, with the sizes of that run
	p=$(ls "$x/lib/modules/$ver/kernel/drivers/block/brd.ko"* 2>/dev/null | head -1)
	[[ -n $p ]] && mdvm__copy_module "$p" "$x/initrd/mod/brd.ko" || { rm -rf "$x"; return 1; }
	mkdir -p "$dir"
	(cd "$x/initrd" && find . | busybox cpio -o -H newc 2>/dev/null) >"$dir/initrd.cpio" &&
		cp "$x/boot/vmlinuz-$ver" "$dir/vmlinuz" && echo "$ver" >"$dir/version" &&
		mdvm__modules_line >"$dir/modules"
	local rc=$?
	rm -rf "$x"
	return $rc
}

mdvm__modules_line() {
	local m
	for m in "${MDVM_MODULES[@]}"; do printf '%s %s;' "$m" "${MDVM_MODPARAMS[$m]:-}"; done
	printf 'optional %s;' "${MDVM_MODULES_OPT[*]}"
	printf 'brd on demand;'
}

# Is kernel K's appliance built, and up to date with init and the module list?
mdvm__ready() {
	local k
	k=$(mdvm__kdir "$1")
	[[ -s $k/vmlinuz && -s $k/initrd.cpio && -s $k/version &&
		$k/initrd.cpio -nt $MDVM_ROOT/tools/mdvm/init &&
		$(cat "$k/modules" 2>/dev/null) == "$(mdvm__modules_line)" ]]
}

mdvm_prepare() {
	local kv kd
	kv=$(mdvm__kernel) || return
	kd=$(mdvm__kdir "$kv")
	mkdir -p "$MDVM_CACHE" || return 1
	(
		flock 9
		mdvm__install || exit $?
		if ! mdvm__ready "$kv"; then
			local pkg suite=${MDVM_KERNEL_SUITE[$kv]}
			pkg=$(mdvm__kernel_pkg "$suite")
			if [[ -z "$pkg" ]]; then
				mdvm__say "no kernel package: $suite's archive ($MDVM_DEB_MIRROR) lists no linux-image-amd64"
				exit 77
			fi
			if [[ ${pkg#linux-image-} != "$kv".* ]]; then
				mdvm__say "$suite's linux-image-amd64 is $pkg, not a $kv kernel"
				exit 77
			fi
			rm -rf "$kd.new"
			mdvm__build_kernel "$pkg" "$suite" "$kd.new" || exit $?
			rm -rf "$kd"
			mv "$kd.new" "$kd"
			mdvm__say "appliance kernel $(cat "$kd/version") ready in $kd"
		fi
		MDVM_KERNEL=$kv mdvm__accel >/dev/null
	) 9>"$MDVM_CACHE/.lock"
}

# tcg or kvm: KVM is tried once (a trivial boot within 30 s) and the answer kept.
mdvm__accel() {
	local f=$MDVM_CACHE/accel a=tcg
	if [[ -n "${MDVM_ACCEL:-}" ]]; then
		echo "$MDVM_ACCEL"
		return
	fi
	if [[ ! -s $f ]]; then
		if [[ -r /dev/kvm && -w /dev/kvm ]]; then
			mdvm__say "trying KVM once (kept in $f)"
			MDVM_ACCEL=kvm MDVM_TIMEOUT=30 MDVM_KEEP=0 mdvm_run -- true 2>/dev/null && a=kvm
		fi
		echo "$a" >"$f"
		mdvm__say "accelerator: $a"
	fi
	cat "$f"
}

mdvm_check() {
	mdvm__kernel >/dev/null || return 2
	if mdvm_host_md; then
		echo "mdvm: md from the host kernel"
		return 0
	fi
	local rc
	mdvm_prepare
	rc=$?
	if [[ $rc -ne 0 ]]; then
		echo "mdvm: no md: the host kernel has none and the appliance can't be had (above)"
		return 77
	fi
	echo "mdvm: md from the appliance $(cat "$(mdvm__kdir "$(mdvm__kernel)")/version") under $(mdvm__accel)"
}

MDVM_USAGE="mdvm run [--kernel 6.12|6.1] [--numa2] [--mem MB] [--smp N] [--rw DIR]... [--ramdisks N:KIB] [--nvme N[:SIZE]]... [--nvme-file PATH]... [--timeout S] -- CMD"
MDVM_NVME_MAX=32
MDVM_NVME_SIZE=64M

# mdvm__nvme_args NUMA2 BACKING...: the QEMU arguments of one NVMe controller per
# backing file (a q35 machine, each controller behind its own PCIe root port, as drives sit
# on servers). Drive i gets serial MDVMNVME<i> and the EUI-64 52:54:00:00:00:00:00:<i+1>
# (QEMU's OUI). With NUMA2 the first half hang off a PCIe expander bridge (pxb-pcie) on
# node 0 and the rest off one on node 1: the guest's ACPI gives each bridge its node, so
# the kernel's numa_node of every controller is 0 or 1, as on a two-socket host (a device
# on the main root bus would read -1). One stderr line per drive says what it got.
mdvm__nvme_args() {
	local numa2=$1 i n node bus eui
	shift
	n=$#
	if [[ $numa2 -eq 1 ]]; then
		echo "-device pxb-pcie,id=pxb0,bus_nr=64,numa_node=0,bus=pcie.0"
		echo "-device pxb-pcie,id=pxb1,bus_nr=128,numa_node=1,bus=pcie.0"
	fi
	for ((i = 0; i < n; i++)); do
		node=-1 bus=pcie.0
		if [[ $numa2 -eq 1 ]]; then
			node=$((i < (n + 1) / 2 ? 0 : 1))
			bus=pxb$node
		fi
		eui=$(printf '525400000000%04x' $((i + 1)))
		echo "-drive file=$1,if=none,id=nvd$i,format=raw,discard=unmap"
		echo "-device pcie-root-port,id=rp$i,bus=$bus,chassis=$((i + 1)),slot=$((i + 1))"
		echo "-device nvme,id=nvme$i,bus=rp$i,serial=MDVMNVME$i"
		echo "-device nvme-ns,drive=nvd$i,bus=nvme$i,nsid=1,eui64=0x$eui"
		mdvm__say "nvme drive $i: serial MDVMNVME$i, EUI-64 ${eui:0:2}:${eui:2:2}:${eui:4:2}:${eui:6:2}:${eui:8:2}:${eui:10:2}:${eui:12:2}:${eui:14:2}$([[ $node -ge 0 ]] && echo ", NUMA node $node"), $1"
		shift
	done
}

# mdvm_run [options] -- CMD (MDVM_USAGE). --ramdisks: /dev/ram0..N-1 of KIB KiB each, zero
# at boot: members many times faster under TCG than loop devices. --nvme N[:SIZE] adds N
# NVMe drives on sparse files of SIZE (default 64M) in the run's directory, removed with it;
# --nvme-file PATH one on the caller's file, kept. Drives are numbered in the order given.
mdvm_run() {
	local numa2=0 mem=2048 smp=2 tmo=${MDVM_TIMEOUT:-900} rw=() d ram= nvme=() f
	local MDVM_KERNEL=${MDVM_KERNEL:-} kv
	while [[ $# -gt 0 ]]; do
		case $1 in
		--numa2) numa2=1 ;;
		--kernel) MDVM_KERNEL=${2:-}; shift ;;
		--nvme)
			[[ ${2:-} =~ ^([1-9][0-9]*)(:([1-9][0-9]*[KMG]))?$ ]] ||
				{ mdvm__say "--nvme: '${2:-}' is not COUNT[:SIZE] (SIZE as 64M, with K, M or G)"; return 2; }
			for ((d = 0; d < BASH_REMATCH[1] && ${#nvme[@]} <= MDVM_NVME_MAX; d++)); do
				nvme+=("new:${BASH_REMATCH[3]:-$MDVM_NVME_SIZE}")
			done
			shift
			;;
		--nvme-file)
			f=$(realpath -e -- "${2:-}" 2>/dev/null) && [[ -f $f && -w $f && -s $f ]] ||
				{ mdvm__say "--nvme-file: '${2:-}' is not a writable, non-empty regular file"; return 2; }
			[[ $f =~ [[:space:],] ]] &&
				{ mdvm__say "--nvme-file: '$f': QEMU cannot take a path with white space or commas"; return 2; }
			[[ " ${nvme[*]} " == *" file:$f "* ]] &&
				{ mdvm__say "--nvme-file: '$f' is given twice"; return 2; }
			nvme+=("file:$f")
			shift
			;;
		--mem) mem=$2; shift ;;
		--smp) smp=$2; shift ;;
		--timeout) tmo=$2; shift ;;
		--ramdisks)
			[[ ${2:-} =~ ^[1-9][0-9]*:[1-9][0-9]*$ ]] ||
				{ mdvm__say "--ramdisks: '${2:-}' is not COUNT:KIB"; return 2; }
			ram=${2/:/,}
			shift
			;;
		--rw)
			d=$(realpath -e -- "$2" 2>/dev/null) && [[ -d $d && $d != / ]] ||
				{ mdvm__say "--rw: '$2' is not a directory other than /"; return 2; }
			rw+=("$d")
			shift
			;;
		--) shift; break ;;
		*) mdvm__say "unknown option '$1' (usage: $MDVM_USAGE)"; return 2 ;;
		esac
		shift
	done
	[[ $# -gt 0 ]] || { mdvm__say "run: no command after --"; return 2; }
	[[ $mem =~ ^[0-9]+$ && $mem -ge 256 ]] || { mdvm__say "--mem: '$mem' is not a size in MiB >= 256"; return 2; }
	[[ $smp =~ ^[0-9]+$ && $smp -ge 1 ]] || { mdvm__say "--smp: '$smp' is not a CPU count"; return 2; }
	[[ $tmo =~ ^[0-9]+$ && $tmo -ge 1 ]] || { mdvm__say "--timeout: '$tmo' is not a number of seconds"; return 2; }
	if [[ $numa2 -eq 1 ]] && ((smp < 2 || smp % 2)); then
		mdvm__say "--numa2 needs an even --smp of at least 2 (got $smp)"
		return 2
	fi
	if ((${#nvme[@]} > MDVM_NVME_MAX)); then
		mdvm__say "--nvme: at most $MDVM_NVME_MAX drives"
		return 2
	fi
	kv=$(mdvm__kernel) || return 2
	if [[ -z "${MDVM_ACCEL:-}" ]] || ! mdvm__ready "$kv"; then
		MDVM_KERNEL=$kv mdvm_prepare || return $?
	fi
	local k accel ctl
	k=$(mdvm__kdir "$kv")
	accel=$(mdvm__accel)
	mkdir -p "$MDVM_CACHE/runs" || return 1
	ctl=$(mktemp -d "$MDVM_CACHE/runs/run.XXXXXX") || return 1
	if [[ $ctl =~ [[:space:]] ]]; then
		mdvm__say "the cache path '$ctl' holds white space (set MDVM_CACHE)"
		rm -rf "$ctl"
		return 2
	fi

	# the command, its environment and working directory, run by init under chroot
	local v i
	{
		for v in $(compgen -e); do
			case $v in PWD | OLDPWD | SHLVL | _ | SHELLOPTS | BASHOPTS | MDVM_BOOT_S) continue ;; esac
			printf 'export %s=%q\n' "$v" "${!v}"
		done
		while read -r _ _ v; do # exported functions (export -f) too
			declare -f "$v"
			echo "export -f $v"
		done < <(declare -Fx)
		echo "export MDVM=1"
		printf 'cd -- %q || exit 126\n' "$PWD"
		printf 'exec'
		printf ' %q' "$@"
		echo
	} >"$ctl/cmd.sh"
	: >"$ctl/stdout"
	: >"$ctl/stderr"
	: >"$ctl/rw"
	# the guest mounts its own tmpfs on /tmp, /dev/shm and /run: the project's tree and
	# the cwd, when under one of them (a clone in /tmp), are bound back from the host's
	: >"$ctl/ro"
	for v in "$MDVM_ROOT" "$PWD"; do
		case $v/ in /tmp/* | /dev/shm/* | /run/*) echo "$v" >>"$ctl/ro" ;; esac
	done
	local q=(qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot
		-monitor none -m "$mem" -kernel "$k/vmlinuz" -initrd "$k/initrd.cpio"
		-append "console=ttyS0 loglevel=4 panic=-1 mdvm.ctl=$ctl${ram:+ mdvm.ram=$ram}"
		-serial "file:$ctl/console.log"
		-virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap
		-virtfs "local,path=$ctl,mount_tag=ctl,security_model=none,multidevs=remap")
	for i in "${!rw[@]}"; do
		q+=(-virtfs "local,path=${rw[i]},mount_tag=rw$i,security_model=none,multidevs=remap")
		echo "rw$i ${rw[i]}" >>"$ctl/rw"
	done
	if [[ $accel == kvm ]]; then
		q+=(-accel kvm -cpu host)
	else
		q+=(-accel tcg,thread=multi -cpu max)
	fi
	if [[ ${#nvme[@]} -gt 0 ]]; then
		# the NVMe drives: sparse files made here (in the run's directory, removed with it)
		local back=()
		for d in "${nvme[@]}"; do
			if [[ $d == new:* ]]; then
				f=$ctl/nvme${#back[@]}.img
				truncate -s "${d#new:}" "$f" || { rm -rf "$ctl"; return 1; }
			else
				f=${d#file:}
			fi
			back+=("$f")
		done
		q+=(-machine q35)
		mapfile -t -O ${#q[@]} q < <(mdvm__nvme_args "$numa2" "${back[@]}" | tr ' ' '\n')
	fi
	if [[ $numa2 -eq 1 ]]; then
		local h=$((smp / 2)) hm=$((mem / 2))
		q+=(-smp "$smp,sockets=2,cores=$h,threads=1"
			-object "memory-backend-ram,id=m0,size=${hm}M"
			-object "memory-backend-ram,id=m1,size=$((mem - hm))M"
			-numa "node,nodeid=0,cpus=0-$((h - 1)),memdev=m0"
			-numa "node,nodeid=1,cpus=$h-$((smp - 1)),memdev=m1")
	else
		q+=(-smp "$smp")
	fi
	mdvm__say "appliance $(cat "$k/version") under $accel: $smp CPUs$([[ $numa2 -eq 1 ]] && echo ", 2 sockets, 2 NUMA nodes"), $mem MiB$([[ ${#nvme[@]} -gt 0 ]] && echo ", ${#nvme[@]} NVMe drives")"

	local qpid t1 t2 qrc rc keep=${MDVM_KEEP:-0}
	timeout -k 10 "$tmo" "${q[@]}" </dev/null >"$ctl/qemu.log" 2>&1 &
	qpid=$!
	tail -n +1 -s 0.2 -f --pid="$qpid" "$ctl/stdout" &
	t1=$!
	tail -n +1 -s 0.2 -f --pid="$qpid" "$ctl/stderr" >&2 &
	t2=$!
	wait "$qpid"
	qrc=$?
	wait "$t1" "$t2"
	if [[ -s $ctl/rc ]]; then
		rc=$(<"$ctl/rc")
	else
		if [[ $qrc -eq 124 || $qrc -eq 137 ]]; then
			mdvm__say "the guest did not finish within ${tmo} s: stopped (console: $ctl/console.log)"
			rc=124
		else
			mdvm__say "the guest ended without an exit status (QEMU exit $qrc; a panic or an init failure): last console lines below"
			rc=125
		fi
		tail -n 15 "$ctl/qemu.log" "$ctl/console.log" 2>/dev/null | sed 's/^/mdvm:   /' >&2
		keep=${MDVM_KEEP:-1} # the console log, for the post-mortem
	fi
	[[ $keep == 1 ]] || rm -rf "$ctl"
	return "$rc"
}

# mdvm_exec [run options] -- CMD: on the host when its kernel has md, else in the appliance.
mdvm_exec() {
	if mdvm_host_md; then
		while [[ $# -gt 0 && $1 != -- ]]; do
			case $1 in
			--mem | --smp | --rw | --timeout | --ramdisks | --kernel) shift ;;
			--nvme | --nvme-file)
				mdvm__say "exec $1: the appliance's NVMe drives do not exist on the host (md in its kernel): use its own drives, or mdvm run"
				return 2
				;;
			esac
			shift
		done
		[[ ${1:-} == -- ]] && shift
		[[ $# -gt 0 ]] || { mdvm__say "exec: no command after --"; return 2; }
		mdvm__say "md from the host kernel: running on the host"
		"$@"
		return
	fi
	mdvm_run "$@"
}
