# Sourced by the Linux backend's story tests: the boot-loader tool they need, and how they run
# wiredcap-system's ttm-* verbs and the front-end's status on a scratch root. The caller sets
# `system` (and `wiredcap`, for status) and `root`.
# shellcheck shell=bash disable=SC2154  # system, wiredcap and root are the caller's
command -v grub-editenv >/dev/null || { echo "FAIL: grub-editenv is missing (tools/install-deps: grub-common)" >&2; exit 1; }
# wiredcap-system's ttm-* verbs on the scratch root; its Mac options point into it too, so the
# host's compiled-in paths are never touched. The journal is the project's one journal, where
# Linux's compiled-in path puts it (/var/lib/wiredcap/journal.jsonl), under the root.
journal() { echo "$root/var/lib/wiredcap/journal.jsonl"; }
sys() {
  local verb=$1; shift
  mkdir -p "$root/.mac" "$root/var/lib"
  "$system" --sim-state "$root/.mac/sim-state" --journal "$(journal)" --policy "$root/.mac/policy" \
    "ttm-$verb" --root "$root" "$@"
}
# The journal's records as command:event words, in order.
events() { sed -n 's/.*"command":"\([a-z-]*\)","event":"\([a-z-]*\)".*/\1:\2/p' "$(journal)" | tr '\n' ' '; }
# `status` is the unprivileged front-end's, reading the same journal.
status() { "$wiredcap" --journal "$(journal)" --policy "$root/.mac/policy" status --linux-root "$root"; }
# The test's scratch folder in `base`, removed when the test ends; how a check fails.
scratch() {
  base=$(mktemp -d "${TMPDIR:-/tmp}/wiredcap-linux-$1.XXXXXX")
  trap 'rm -rf "$base"' EXIT
}
fail() { echo "FAIL: $*" >&2; exit 1; }
# The front-end on the scratch root, with the same development paths as sys().
front() {
  local command=$1; shift
  "$wiredcap" --journal "$(journal)" --sim-state "$root/.mac/sim-state" --policy "$root/.mac/policy" \
    "$command" --linux-root "$root" "$@"
}
