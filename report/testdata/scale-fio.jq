# report/testdata/scale-fio.jq: a fio json+ output as if the test had run at $f times its
# speed (jq --argjson f 0.75 -f scale-fio.jq FILE): every direction's rates and I/O counts
# times $f, its latencies (means, percentiles, the json+ bins' keys) over $f. Used to make the
# repeated fixture (make-repeats.sh) and the gate bench's planted slowdown
# (tests/bench/gate_bench.sh): a copy of a real run with one configuration slowed.
def lat: if type == "object" then
	(if .mean then .mean /= $f else . end)
	| (if .min then .min /= $f else . end) | (if .max then .max /= $f else . end)
	| (if .percentile then .percentile |= map_values(. / $f) else . end)
	| (if .bins then .bins |= with_entries(.key |= ((tonumber / $f) | floor | tostring)) else . end)
	else . end;
def dir: if type == "object" then
	(reduce ("iops", "iops_mean", "bw", "bw_bytes", "bw_mean", "total_ios", "io_bytes", "io_kbytes") as $k
		(.; if .[$k] != null then .[$k] *= $f else . end))
	| (reduce ("clat_ns", "lat_ns", "slat_ns") as $k (.; if .[$k] != null then .[$k] |= lat else . end))
	else . end;
(if .jobs then .jobs else .client_stats end) |= map(.read |= dir | .write |= dir | .trim |= dir)
