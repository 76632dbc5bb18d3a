# tap.sh: helpers for the shell tests, which speak TAP (sourced).
# The plan is printed last, by tap_done, so tests need not be counted.
tap_n=0
tap_failed=0
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $*"; }
diag() { sed 's/^/# /'; }
tap_skip_all() { echo "1..0 # SKIP $*"; exit 0; }
tap_done() { echo "1..$tap_n"; }
