#!/usr/bin/env bash
# tests/presets/profiles_test.sh: hardware profiles and NUMA placement decisions of
# raid-hwinfo on synthetic topologies of the two published hosts; malformed profiles.
source "$(dirname "$0")/../lib.sh"
HW=$ROOT/build/bin/raid-hwinfo
R284=$ROOT/hw-profiles/gigabyte-r284-s93-aal1.json
AS=$ROOT/hw-profiles/supermicro-as-2125hs-tnr.json
SYN_R284="pack:2 numa:1 core:4 pu:1"
SYN_AS="pack:2 numa:1 core:96 pu:2"

place_is() { # synthetic profile bays expected-lines...
	local syn=$1 prof=$2 bays=$3 out
	shift 3
	out=$("$HW" --synthetic "$syn" place "$prof" "$bays") || return 1
	echo "$out"
	for want in "$@"; do grep -qx -- "$want" <<<"$out" || { echo "missing: $want"; return 1; }; done
}
no_warning() { ! "$HW" --synthetic "$1" place "$2" "$3" | grep -q '^warning='; }

t_case "r284 profile is valid" "$HW" check "$R284"
t_case "as-2125 profile is valid" "$HW" check "$AS"
t_case "r284 final layout is RAID6 on 4-11, RAID1 on 0-1, spares 2-3" bash -c \
	"\"$HW\" layout \"$R284\" proxmox-final | tr '\n' ';' | grep -qx 'array proxmox-final gpu-raid6-8 6 4,5,6,7,8,9,10,11;array proxmox-final sw-raid1-2 1 0,1;spares proxmox-final 2,3;'"
t_case "r284 raid6 on bays 4-11 runs on CPU1 only" place_is "$SYN_R284" "$R284" 4,5,6,7,8,9,10,11 \
	nodes=1 cpus=4-7 spans_sockets=0 pin=1 mem_policy=bind:1
t_case "r284 raid6 placement has no warning" no_warning "$SYN_R284" "$R284" 4,5,6,7,8,9,10,11
t_case "r284 raid1 on bays 0-1 runs on CPU0" place_is "$SYN_R284" "$R284" 0,1 nodes=0 cpus=0-3
t_case "r284 all 12 bays span the sockets" bash -c \
	"\"$HW\" --synthetic '$SYN_R284' place \"$R284\" 0,1,2,3,4,5,6,7,8,9,10,11 | grep -q '^warning=array spans 2 sockets'"
t_case "as-2125 raid5 over 24 spans the sockets" place_is "$SYN_AS" "$AS" \
	0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23 spans_sockets=1 cpus=0-383
t_case "as-2125 bays 12-23 stay on socket 1" place_is "$SYN_AS" "$AS" 12,13,14,15,16,17,18,19,20,21,22,23 \
	spans_sockets=0 nodes=1 cpus=192-383
t_case "a profile node this host lacks is not pinned" bash -c \
	"\"$HW\" --synthetic 'pack:1 numa:1 core:2 pu:1' place \"$R284\" 4,5 | grep -q '^pin=0' &&
	 \"$HW\" --synthetic 'pack:1 numa:1 core:2 pu:1' place \"$R284\" 4,5 | grep -q '^warning=.*NUMA node 1.*lacks'"
t_case "host profile is generated and valid" bash -c "\"$HW\" host-profile >'$T_SCRATCH/host.json' && \"$HW\" check '$T_SCRATCH/host.json'"
t_case "facts name sockets, nodes, cores, memory" bash -c \
	"\"$HW\" --synthetic '$SYN_AS' facts | tr -d ' \n' | grep -q '\"sockets\":2,\"numa_nodes\":2,\"cores\":192,\"pus\":384'"

# Malformed profiles: a clear one-line error naming the key, non-zero exit.
bad() { # name jq-free edit: sed expression on the R284 profile; expected error text
	local f=$T_SCRATCH/bad-$1.json
	sed "$2" "$R284" >"$f"
	! "$HW" check "$f" 2>"$T_SCRATCH/err" && grep -q -- "$3" "$T_SCRATCH/err" && cat "$T_SCRATCH/err"
}
t_case "not JSON" bad notjson 's/"sockets": 2,/"sockets": 2,,/' "cannot read it as JSON"
t_case "bay on an unknown node" bad node 's/"bay": 5, "numa_node": 1/"bay": 5, "numa_node": 7/' "bays\[5\].numa_node"
t_case "bay listed twice" bad dup 's/"bay": 5,/"bay": 4,/' "bay 4 listed twice"
t_case "unknown drive model" bad drive '0,/"drive": "kingston-dc3000me-3.84t"/s//"drive": "nope"/' "bays\[0\].drive"
t_case "array on a missing bay" bad arrbay 's/\[4, 5, 6, 7, 8, 9, 10, 11\]/[4, 5, 6, 7, 8, 9, 10, 99]/' "not a bay of this profile"
t_case "raid6 on too few bays" bad few 's/\[4, 5, 6, 7, 8, 9, 10, 11\]/[4, 5, 6]/' "RAID6 cannot be built from 3 bays"
t_case "spare that is also a member" bad spare 's/"spares": \[2, 3\]/"spares": [2, 4]/' "spare bay 4 is also an array member"
t_case "bad level" bad level 's/"level": 6/"level": 4/' "level: must be"
t_case "missing sockets" bad sockets 's/"sockets": 2,//' "sockets: missing"
t_case_fail "missing profile file" "$HW" check "$T_SCRATCH/none.json"
t_case_fail "place on an unknown bay" "$HW" place "$R284" 4,42
t_case_fail "unknown layout" "$HW" layout "$R284" nope
t_case_fail "unknown command" "$HW" frobnicate
t_done
