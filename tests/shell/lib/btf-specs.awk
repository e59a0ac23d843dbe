# bpftool btf dump ... format raw -> one spec per function:
# "FUNC $params P->M ..." with, for each parameter pointing to a struct or
# union, its first named scalar member past offset 0.  With -v byval=1,
# instead "FUNC P..." for each function with a struct or union passed by
# value: that parameter and those after it.
function strip(id) {
	while (kind[id] ~ /^(TYPEDEF|CONST|VOLATILE|RESTRICT|TYPE_TAG)$/) id = ref[id]
	return id
}
/^\[[0-9]+\] / {
	id = substr($1, 2, length($1) - 2) + 0; cur = id
	kind[id] = $2; nm = $3; gsub(/'/, "", nm); name[id] = nm
	for (i = 4; i <= NF; i++) {
		split($i, kv, "=")
		if (kv[1] == "type_id" || kv[1] == "ret_type_id") ref[id] = kv[2] + 0
	}
	nmem[id] = 0
	if (kind[id] == "FUNC") funcs[++nf] = id
	next
}
/^\t'/ {
	m = ++nmem[cur]; nm = $1; gsub(/[\t']/, "", nm); mname[cur, m] = nm
	for (i = 2; i <= NF; i++) {
		split($i, kv, "=")
		if (kv[1] == "type_id") mtype[cur, m] = kv[2] + 0
		if (kv[1] == "bits_offset") moff[cur, m] = kv[2] + 0
	}
}
END {
	for (k = 1; k <= nf; k++) {
		f = funcs[k]; p = ref[f]
		# BTF may hold a name twice (pahole before 1.25 encodes each
		# static of that name): the spec is the first's, which tracekit
		# refuses where the prototypes give other definitions.
		if (kind[p] != "FUNC_PROTO" || name[f] ~ /\./ || (name[f] in done)) continue
		done[name[f]] = 1
		if (byval) {
			line = ""
			for (i = 1; i <= nmem[p]; i++) {
				t = strip(mtype[p, i])
				if (line != "" || kind[t] == "STRUCT" || kind[t] == "UNION")
					line = line " " mname[p, i]
			}
			if (line != "") print name[f] line
			continue
		}
		spec = name[f] " $params"; chains = 0
		for (i = 1; i <= nmem[p] && chains < 3; i++) {
			t = strip(mtype[p, i])
			if (kind[t] != "PTR" || mname[p, i] == "(anon)") continue
			s = strip(ref[t])
			if (kind[s] != "STRUCT" && kind[s] != "UNION") continue
			for (j = 1; j <= nmem[s]; j++) {
				mt = strip(mtype[s, j])
				if (mname[s, j] == "(anon)" || moff[s, j] == 0) continue
				if (kind[mt] !~ /^(INT|ENUM|ENUM64|PTR)$/) continue
				spec = spec " " mname[p, i] "->" mname[s, j]; chains++
				break
			}
		}
		print spec
	}
}
