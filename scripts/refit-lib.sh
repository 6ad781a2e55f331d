# Shared by scripts/host-refit and scripts/host-refit-pooled (sourced, not run): a recorded block
# fitted again by today's `cosched characterise`, and a check's recorded rounds replayed from a fit.
# Both need $bin, the built `cosched`.

# fit_record DIR OUT [FLAG...]: DIR/record.json fitted on DIR/host.toml into OUT (its table on stdout).
fit_record() {
  local dir=$1 out=$2
  shift 2
  "$bin" characterise --from-record "$dir/record.json" -m "$dir/host.toml" -o "$out" "$@" 2>/dev/null
}

# replay_check MIX PROGRAMS CHECK OUT: CHECK's recorded rounds predicted from PROGRAMS, as JSON in OUT.
replay_check() {
  "$bin" calibrate --check "$1" --programs "$2" --replay "$3" --format json 2>/dev/null > "$4"
}
