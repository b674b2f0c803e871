# shellcheck shell=bash
# shellcheck disable=SC2034  # PRIVATE_NS and PRIVATE_NS_WHY are read by the script that sources this
# One way for every test to get a mount namespace whose mounts stay in it. Source it, then:
#   private_mount_ns || { echo "SKIP: $PRIVATE_NS_WHY"; exit 77; }
#   "${PRIVATE_NS[@]}" CMD ARGS...
# PRIVATE_NS runs CMD in a new mount namespace in which every mount is private, so nothing the
# test mounts (a tmpfs over a journal, an overlay over /dev) reaches the machine's own namespace.
#
# Why not just `unshare -m`: it makes / private with mount(2), which fails with EINVAL where / is
# not a mount point (a chroot, some containers). There the namespace is made with propagation
# unchanged, every mount that can be named inside it is made private, and the one that cannot be
# named (the mount holding the chroot's /) is probed: a tmpfs mounted on a directory of it inside
# the namespace must not show outside. Only if it does, or if the kernel refuses a new namespace
# (no CAP_SYS_ADMIN), is there no private namespace here; PRIVATE_NS_WHY then says why.

PRIVATE_NS=()
PRIVATE_NS_WHY=

# Inside the new namespace: every mount it can see made private, then the command.
_private_ns_enter='
  while read -r _ _ _ _ point _; do
    mount --make-private "$(printf "%b" "$point")" 2>/dev/null || true
  done < /proc/self/mountinfo
  exec "$@"'

private_mount_ns() {
  if ! command -v unshare >/dev/null || ! command -v mountpoint >/dev/null; then
    echo "FAIL: unshare and mountpoint (util-linux) are missing (tools/install-deps)" >&2
    exit 1
  fi
  local err
  if err=$(unshare -m --propagation private true 2>&1); then
    PRIVATE_NS=(unshare -m --propagation private)
    return 0
  fi
  if ! err=$(unshare -m --propagation unchanged true 2>&1); then
    PRIVATE_NS_WHY="the kernel refuses a new mount namespace ($err)"
    return 1
  fi
  local candidate=(unshare -m --propagation unchanged sh -c "$_private_ns_enter" sh)
  local probe
  probe=$(mktemp -d /.wiredcap-ns-probe.XXXXXX) || {
    PRIVATE_NS_WHY="/ is not a mount point and no probe directory could be made in it"
    return 1
  }
  if ! err=$("${candidate[@]}" sh -c \
      'mount -t tmpfs wiredcap-ns-probe "$1" && mountpoint -q "$1"' sh "$probe" 2>&1); then
    rmdir "$probe"
    PRIVATE_NS_WHY="/ is not a mount point and a new namespace cannot mount ($err)"
    return 1
  fi
  if mountpoint -q "$probe"; then
    umount "$probe"; rmdir "$probe"
    PRIVATE_NS_WHY="/ is not a mount point and the mount holding it is shared: a mount made in a new namespace reaches this one"
    return 1
  fi
  rmdir "$probe"
  PRIVATE_NS=("${candidate[@]}")
}
