#!/bin/bash
# bench/probe.sh [TRACEKIT]: `tracekit probe -D` against `perf probe -D`
# on the same specs and the same binaries with debug info, one process per
# spec and then all specs in one process, ROUNDS times each; prints both
# times and the ratio.  Binaries: the tracekit binary itself (~30 CUs),
# then the same code linked with BIG_CUS (default 600) generated CUs of
# structs and functions, where the cost of finding a function in the
# DWARF dominates (perf walks every CU for every spec).  Then the kernel:
# kernel specs by `tracekit probe -k VMLINUX` and, where the running
# kernel has /sys/kernel/btf/vmlinux, by tracekit from that BTF alone,
# both against `perf probe -k VMLINUX`, the VM guest's vmlinux with DWARF
# (tests/vm/vmlinux-dbg.sh, downloaded once into TRACEKIT_VM_CACHE).  The
# running kernel need not be that vmlinux's: -D writes nothing, and the
# specs are chosen to exist in both.
set -u
tk=$(realpath "${1:-./tracekit}")
src=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-5}
big_cus=${BIG_CUS:-600}
command -v perf >/dev/null || { echo "bench/probe.sh: perf is not installed" >&2; exit 3; }
command -v gcc >/dev/null || { echo "bench/probe.sh: gcc is not installed" >&2; exit 3; }
work=$(mktemp -d /tmp/tkbench.XXXXXX)
trap 'rm -rf "$work"' EXIT

specs=(
	'strbuf_addf sb fmt'
	'strbuf_detach sb len'
	'probe_spec_parse text:string spec err'
	'fetch_arg_format fa ctx out err'
	'probe_defs_add kind lines nr undo err'
	'probe_name_valid name:string'
	'elf_addr_load_segment elf vaddr out'
	'parse_options_noexit argc argv opts flags err'
	'xmalloc n'
	'xstrdup s:string'
	'strbuf_release sb'
	'strbuf_addstr sb->len sb->alloc s:string'
	'cmd_probe argc argv'
	'tk_dynevent_write file:string line:string err'
	'probe_def_parse line:string kind def'
	'fetch_arg_push_deref fa->nr_derefs off'
	'tk_tracefs_set instance file val restore'
	'probe_dwarf_resolve dbg spec opts pps nr'
	'strbuf_read_file sb path:string hint'
	'probe_defs_del glob deleted err'
	'tk_restore_push_write path value append'
	'cmd_test argc argv'
)
kspecs=(
	'ip_rcv dev->perm_addr:x8[6]'
	'do_sys_openat2 dfd filename:string how->flags'
	'vfs_read file->f_pos count'
	'tcp_v4_connect sk->__sk_common.skc_family addr_len'
	'ksys_write fd count'
	'do_exit code'
	'wake_up_new_task p->pid p->comm'
	'security_file_open file->f_flags'
	'inet_bind sock->type addr_len'
	'vfs_unlink dir->i_ino dentry->d_name.name:string'
	'do_nanosleep t->task mode'
)

# The machine is shared: besides the wall clock, the CPU time (user + sys)
# of the tool's processes is measured, which other load does not inflate.
# Each measure prints "WALL_NS CPU_NS".
now() { date +%s%N; }

# Children's user + sys time of this shell: `times` must not run in a
# pipe or $(...), whose fork would start from zero.  %.0f, not %d, which
# Debian's awk (mawk) clips at 2^31-1: every sum over 2.1 s read 2.1 s.
cpu_ns() {
	times >"$work/times"
	sed -n 2p "$work/times" | awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/);
		n += (a[1] * 60 + a[2]) * 1e9 } printf "%.0f\n", n }'
}

# per_spec TOOL...: every spec in its own process, ROUNDS times.
per_spec() {
	(
		t0=$(now)
		for ((r = 0; r < rounds; r++)); do
			for s in "${specs[@]}"; do
				"$@" -D "$s" >/dev/null 2>&1 ||
					{ echo "failed: $* -D '$s'" >&2; exit 1; }
			done
		done
		t1=$(now)
		cpu_ns >"$work/cpu"
		echo "$((t1 - t0)) $(cat "$work/cpu")"
	)
}

# batch TOOL...: all specs in one process, ROUNDS times.
batch() {
	(
		args=()
		for s in "${specs[@]}"; do
			args+=(-D "$s")
		done
		t0=$(now)
		for ((r = 0; r < rounds; r++)); do
			"$@" "${args[@]}" >/dev/null 2>&1 || { echo "failed: $* (batch)" >&2; exit 1; }
		done
		t1=$(now)
		cpu_ns >"$work/cpu"
		echo "$((t1 - t0)) $(cat "$work/cpu")"
	)
}

# report WHAT RUNS "PERF_WALL PERF_CPU" "TK_WALL TK_CPU"
report() {
	awk -v what="$1" -v n="$2" -v p="$3" -v t="$4" 'BEGIN {
		split(p, pp, " "); split(t, tt, " ")
		printf "%-26s wall: perf %7.1f ms  tracekit %6.1f ms  %5.1fx | cpu: perf %7.1f ms  tracekit %6.1f ms  %5.1fx\n",
		       what, pp[1] / 1e6 / n, tt[1] / 1e6 / n, pp[1] / tt[1],
		       pp[2] / 1e6 / n, tt[2] / 1e6 / n, pp[2] / tt[2] }'
}

# check_specs WHO CMD...: each spec once with CMD, so that a spec that no
# longer fits the code (a function made inline, a parameter renamed) is
# named with the tool's reason, not lost in the timed runs' silence.
check_specs() {
	local who=$1 s bad=0
	shift
	for s in "${specs[@]}"; do
		"$@" -D "$s" >/dev/null 2>"$work/err" ||
			{ echo "bench/probe.sh: $who refuses '$s': $(tr -s ' \n' ' ' <"$work/err" | cut -c 1-200)" >&2; bad=1; }
	done
	return $bad
}

run() {
	local bin=$1 p t
	echo "binary: $bin ($(stat -c %s "$bin") bytes), ${#specs[@]} specs, $rounds rounds"
	check_specs perf perf probe -x "$bin" || exit 1
	check_specs tracekit "$tk" probe -x "$bin" || exit 1
	p=$(per_spec perf probe -q -x "$bin") || exit 1
	t=$(per_spec "$tk" probe -x "$bin") || exit 1
	report "one process per spec" "$((rounds * ${#specs[@]}))" "$p" "$t"
	p=$(batch perf probe -q -x "$bin") || exit 1
	t=$(batch "$tk" probe -x "$bin") || exit 1
	report "all specs in one process" "$rounds" "$p" "$t"
}

# kernel_mode HOW LABEL COUNT: perf -k against tracekit -k and, where the
# host has BTF, tracekit from BTF, each run by HOW (per_spec or batch);
# v and btf are kernel()'s.
kernel_mode() {
	local how=$1 label=$2 n=$3 p t
	p=$($how perf probe -q -k "$v") || exit 1
	t=$($how "$tk" probe -k "$v") || exit 1
	report "-k: $label" "$n" "$p" "$t"
	[ -n "$btf" ] || return 0
	t=$($how "$tk" probe) || exit 1
	report "BTF: $label" "$n" "$p" "$t"
}

# kernel: kspecs from -k VMLINUX and from BTF, each against perf -k VMLINUX.
kernel() {
	local v btf=''
	v=$("$src/tests/vm/vmlinux-dbg.sh") || exit 1
	specs=("${kspecs[@]}")
	[ -r /sys/kernel/btf/vmlinux ] && btf=1
	echo "kernel: $v, ${#specs[@]} specs, $rounds rounds;" \
		"BTF: ${btf:+/sys/kernel/btf/vmlinux of $(uname -r)}${btf:-none here}"
	check_specs perf perf probe -k "$v" || exit 1
	check_specs "tracekit -k" "$tk" probe -k "$v" || exit 1
	if [ -n "$btf" ]; then
		# Without -k tracekit takes a vmlinux with DWARF from the usual
		# places first: this part times BTF only.
		"$tk" probe -v -D "${specs[0]}" 2>&1 | grep -q '^types and locations from BTF' ||
			{ echo "bench/probe.sh: tracekit does not use BTF without -k here" >&2; exit 1; }
		check_specs "tracekit (BTF)" "$tk" probe || exit 1
	fi
	kernel_mode per_spec "one process per spec" "$((rounds * ${#specs[@]}))"
	kernel_mode batch "all in one process" "$rounds"
}

# The big binary: tracekit's objects plus generated CUs, linked so that
# the specs' functions sit among all of them.
big() {
	local i objs=$(dirname "$tk")/build/obj
	[ -d "$objs" ] || { echo "bench/probe.sh: no $objs (run make)" >&2; exit 3; }
	for ((i = 0; i < big_cus; i++)); do
		cat >"$work/gen$i.c" <<-GEN
		struct gen${i}_node { long key; struct gen${i}_node *next; char tag[8]; unsigned f : 3; };
		static struct gen${i}_node gen${i}_pool[4];
		long gen${i}_walk(struct gen${i}_node *n, long k);
		long gen${i}_walk(struct gen${i}_node *n, long k)
		{ for (; n; n = n->next) if (n->key == k) return n->f; return gen${i}_pool[k & 3].key; }
		int gen${i}_sum(const int *v, int n);
		int gen${i}_sum(const int *v, int n) { int s = 0; while (n--) s += v[n]; return s; }
		GEN
	done
	(cd "$work" && ls gen*.c | xargs -P 2 -n 50 gcc -g -O2 -c) || exit 1
	gcc -o "$work/big" $(ls "$objs"/*.o "$objs"/*/*.o "$objs"/*/*/*.o 2>/dev/null) \
		"$work"/gen*.o $(sed -n 's/^PKG_LIBS := //p' "$(dirname "$tk")/build/config.mk") -lm ||
		exit 1
	echo "$work/big"
}

run "$tk"
run "$(big)"
kernel
