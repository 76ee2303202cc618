# Sourced by .ci/run and .ci/vulkan: times CI's phases and prints them as one table at the end.
#   phase NAME COMMAND...   runs COMMAND, records its seconds, the machine's load while it ran
#                           and, for a phase that compiled C/C++, ccache's hits and misses.
#   phase_table             prints the table (.ci/run calls it on exit, failed or not).
# The records go to $SQALE_CI_PHASES, so a script that .ci/run calls adds its own rows.
: "${SQALE_CI_PHASES:=$(mktemp)}"
export SQALE_CI_PHASES

# One sample of the 1-minute load average every 10 s while CI runs: a phase's mean load tells a
# slow run from a busy machine (this CI's own build keeps 2 cores at a load of about 2).
if [ -z "${SQALE_CI_LOAD:-}" ]; then
  SQALE_CI_LOAD=$(mktemp)
  export SQALE_CI_LOAD
  ( while sleep 10; do echo "$(date +%s) $(cut -d' ' -f1 /proc/loadavg)"; done >>"$SQALE_CI_LOAD" ) </dev/null 2>/dev/null &
  SQALE_CI_LOAD_PID=$!
fi

ccache_counts() {  # "hits misses" of the ccache in use, or "- -" without ccache
  if command -v ccache >/dev/null; then
    ccache --print-stats 2>/dev/null | awk '
      $1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h += $2 }
      $1 == "cache_miss" { m += $2 }
      END { print h + 0, m + 0 }'
  else
    echo "- -"
  fi
}

phase() {
  local name=$1 start end rc=0 before after load
  shift
  before=$(ccache_counts)
  start=$(date +%s)
  "$@" || rc=$?
  end=$(date +%s)
  after=$(ccache_counts)
  load=$(awk -v s="$start" -v e="$end" '$1 >= s && $1 <= e { t += $2; n++ } END { if (n) printf "%.2f", t / n; else print "-" }' "$SQALE_CI_LOAD")
  read -r h0 m0 <<<"$before"
  read -r h1 m1 <<<"$after"
  local cc="-"
  if [ "$h0" != "-" ] && [ $((h1 - h0 + m1 - m0)) -gt 0 ]; then
    cc="$((h1 - h0)) hit / $((m1 - m0)) miss"
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$((end - start))" "$load" "$cc" "$rc" >>"$SQALE_CI_PHASES"
  return "$rc"
}

phase_table() {
  [ -s "$SQALE_CI_PHASES" ] || return 0
  echo
  echo "CI phases (seconds; load: mean 1-minute load average while the phase ran, on $(nproc) cores)"
  awk -F'\t' '
    BEGIN { printf "%-16s %8s %6s  %-24s %s\n", "phase", "seconds", "load", "ccache (C/C++)", "status" }
    { printf "%-16s %8d %6s  %-24s %s\n", $1, $2, $3, $4, ($5 == 0 ? "ok" : "FAILED (" $5 ")"); total += $2 }
    END { printf "%-16s %8d\n", "total", total }' "$SQALE_CI_PHASES"
  if [ -n "${SQALE_CI_TEST_TIMES:-}" ] && [ -s "$SQALE_CI_TEST_TIMES" ]; then
    echo
    echo "test binaries (seconds, slowest first)"
    sort -t$'\t' -k2,2nr "$SQALE_CI_TEST_TIMES" | awk -F'\t' '{ printf "  %-28s %7.1f%s\n", $1, $2, ($3 == 0 ? "" : "  FAILED") }'
  fi
  [ -n "${SQALE_CI_LOAD_PID:-}" ] && kill "$SQALE_CI_LOAD_PID" 2>/dev/null
  return 0
}
