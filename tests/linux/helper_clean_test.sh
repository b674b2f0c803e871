#!/usr/bin/env bash
# Nothing of the Linux backend is in the setuid helper: its boot-loader writes belong to root's
# own wiredcap-system. Checked on the built programs' symbols (the macOS cross build checks its
# own helper in tools/cross-build); wiredcap-system must hold them, or the check checks nothing.
# usage: helper_clean_test.sh HELPER SYSTEM
set -euo pipefail
helper=$1 system=$2
pattern='wiredcap::linux_amd::|ttm_trial|ttm_reset|ttm_confirm|ttm_after_boot'
# The journal's words for Linux trials (wiredcap/journal/vocabulary.hpp) are no backend: the
# helper reads such records (a trial judged hung binds its ceiling) and writes none.
in_helper=$(nm -C "$helper" | grep -v 'wiredcap::journal::command::' | grep -cE "$pattern" || true)
in_system=$(nm -C "$system" | grep -cE "$pattern" || true)
[ "$in_helper" = 0 ] || { echo "FAIL: the setuid helper holds $in_helper Linux backend symbols" >&2; exit 1; }
[ "$in_system" -gt 0 ] || { echo "FAIL: wiredcap-system holds no Linux backend symbol" >&2; exit 1; }
echo "ok: wiredcap-helper holds nothing of the Linux backend; wiredcap-system does"
