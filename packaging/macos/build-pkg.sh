#!/bin/bash
# Builds the macOS installer package: wiredcap-VERSION.pkg (Apple Silicon, macOS 14 or later).
#
#   packaging/macos/build-pkg.sh [--build-dir DIR] [--out DIR] [--version V] [--identifier ID]
#                                [--codesign "Developer ID Application: ..."]
#                                [--sign "Developer ID Installer: ..."] [--unsigned]
#                                [--stage-only]
#
#   --build-dir DIR  use this build tree (configured with CMAKE_INSTALL_PREFIX=/usr/local and
#                    built); default: configure and build a Release tree in OUT/build, with
#                    fmt, CLI11 and nlohmann/json header-only (WIREDCAP_HEADER_ONLY_DEPS, their headers
#                    from Homebrew's include directory)
#   --out DIR        where the staging tree and the packages go (default: build/macos-pkg)
#   --version V      package version (default: the project's version from the build tree)
#   --identifier ID  package identifier (default: org.wiredcap.wiredcap; uninstall.sh must
#                    be given the same one)
#   --codesign IDENTITY  sign wiredcap and wiredcap-helper (hardened runtime, timestamp) with
#                    this Developer ID Application identity, as notarization requires
#   --sign IDENTITY  sign the product archive with this Developer ID Installer identity
#   --unsigned       build a package with neither signature, for testing on your own Mac; it
#                    is named wiredcap-VERSION-unsigned.pkg. A package is built only signed
#                    (--codesign and --sign, as notarization needs) or with --unsigned given
#                    explicitly, so a release cannot go out unsigned by a forgotten option
#   --stage-only     stop after staging the payload and writing distribution.xml; runs on
#                    any system (the tests run it on Linux); pkgbuild and productbuild are
#                    macOS-only
#
# The payload is `cmake --install` into a staging tree (packaging/LAYOUT.md lists it) plus
# /usr/local/libexec/wiredcap/uninstall.sh (root runs it: it lives where only root writes). pkgbuild --ownership recommended makes every payload
# file root:wheel. The helper is staged 0755; scripts/postinstall sets its setuid bit after
# making it root's, creates /var/db/wiredcap, installs /etc/wiredcap.conf if absent, and
# copies the boot LaunchDaemon to /Library/LaunchDaemons and loads it. The scripts directory
# (OUT/scripts) holds postinstall with what root reads while installing: root-chain.sh and the
# templates org.wiredcap.boot.plist and wiredcap.conf.example, so that nothing root uses comes
# from the payload's share/, which a user may own (Intel Homebrew's /usr/local/share). The payload itself holds nothing under /etc, /var or /Library.
#
# The programs must run on a Mac without Homebrew: before pkgbuild, otool -L must show only
# system libraries (fmt and CLI11 linked statically or header-only).
#
# Notarization is not done here: after signing, run `xcrun notarytool submit --wait` and
# `xcrun stapler staple` on the product archive.
set -euo pipefail
umask 022

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
prefix=/usr/local

build_dir=
out=$src/build/macos-pkg
version=
identifier=org.wiredcap.wiredcap
sign=
codesign_id=
stage_only=0
unsigned=0

die() { printf 'build-pkg.sh: %s\n' "$*" >&2; exit 1; }
need_value() { if [ $# -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value"; fi; }

while [ $# -gt 0 ]; do
  case $1 in
    --build-dir)  need_value "$@"; build_dir=$2; shift 2 ;;
    --out)        need_value "$@"; out=$2; shift 2 ;;
    --version)    need_value "$@"; version=$2; shift 2 ;;
    --identifier) need_value "$@"; identifier=$2; shift 2 ;;
    --sign)       need_value "$@"; sign=$2; shift 2 ;;
    --codesign)   need_value "$@"; codesign_id=$2; shift 2 ;;
    --stage-only) stage_only=1; shift ;;
    --unsigned)   unsigned=1; shift ;;
    -h|--help)    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *)            die "unknown argument '$1' (see --help)" ;;
  esac
done

# Decided before anything is built: a package is signed twice (the programs, then the archive)
# or explicitly unsigned. Staging alone produces no package, so it needs neither.
if [ "$stage_only" = 0 ]; then
  if [ "$unsigned" = 1 ] && { [ -n "$sign" ] || [ -n "$codesign_id" ]; }; then
    die "--unsigned contradicts --sign/--codesign: choose one"
  fi
  if [ "$unsigned" = 0 ] && { [ -z "$sign" ] || [ -z "$codesign_id" ]; }; then
    die "a package is signed: give --codesign \"Developer ID Application: ...\" and --sign \"Developer ID Installer: ...\", or --unsigned for a test package"
  fi
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

# 1. The build.
if [ -z "$build_dir" ]; then
  build_dir=$out/build
  # fmt and CLI11 as headers only, so the programs link no Homebrew library.
  deps_args=(-DWIREDCAP_HEADER_ONLY_DEPS=ON)
  if command -v brew >/dev/null; then deps_args+=(-DWIREDCAP_DEPS_INCLUDE_DIR="$(brew --prefix)/include"); fi
  cmake -S "$src" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DWIREDCAP_BUILD_TESTS=OFF \
        -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_OSX_ARCHITECTURES=arm64 -DCMAKE_OSX_DEPLOYMENT_TARGET=13.0 \
        "${deps_args[@]}"
  cmake --build "$build_dir" --parallel
fi
[ -f "$build_dir/CMakeCache.txt" ] || die "$build_dir is not a configured build tree"
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build_dir/CMakeCache.txt" | head -n 1; }
# wiredcap has the helper's path compiled in from the configured prefix: it must be this one.
configured_prefix=$(cache_value CMAKE_INSTALL_PREFIX)
[ "$configured_prefix" = "$prefix" ] ||
  die "$build_dir was configured with CMAKE_INSTALL_PREFIX=$configured_prefix; the pkg needs $prefix"
[ -n "$version" ] || version=$(cache_value CMAKE_PROJECT_VERSION)
[[ $version =~ ^[0-9A-Za-z.+-]+$ ]] || die "bad version '$version'"
[[ $identifier =~ ^[A-Za-z0-9.-]+$ ]] || die "bad identifier '$identifier'"

# 2. The payload.
root=$out/root
rm -rf "$root"
mkdir -p "$root"
DESTDIR=$root cmake --install "$build_dir" --prefix "$prefix"
install -m 0755 "$here/uninstall.sh" "$root$prefix/libexec/wiredcap/uninstall.sh"
# Not setuid in the payload: postinstall sets the bit once the file is root's.
chmod 0755 "$root$prefix/libexec/wiredcap/wiredcap-helper"
# Only /usr/local: never /etc, /var or /Library (postinstall places the LaunchDaemon, with its
# owner and mode, and never overwrites the administrator's policy).
stray=$(cd "$root" && find . -mindepth 1 ! -path ./usr ! -path ./usr/local ! -path './usr/local/*')
[ -z "$stray" ] || die "payload has files outside $prefix: $stray"

# The scripts directory: the package's scripts and every file root reads while installing.
scripts=$out/scripts
rm -rf "$scripts"
mkdir -p "$scripts"
cp "$here"/scripts/* "$scripts/"
install -m 0644 "$src/packaging/fleet/root-chain.sh" "$here/org.wiredcap.boot.plist" \
  "$src/packaging/wiredcap.conf.example" "$scripts/"

# 3. The product's distribution file: Apple Silicon, macOS 14 or later, system volume only.
#    macOS 13 is refused: it has no iogpu.wired_limit_mb, so the setuid helper and the boot
#    LaunchDaemon this package installs could never apply anything there. There
#    wiredcap only reads; Homebrew installs it unprivileged, with nothing at boot.
cat > "$out/distribution.xml" <<EOF
<?xml version="1.0" encoding="utf-8"?>
<installer-gui-script minSpecVersion="2">
    <title>wiredcap $version</title>
    <options customize="never" require-scripts="true" hostArchitectures="arm64"/>
    <domains enable_anywhere="false" enable_currentUserHome="false" enable_localSystem="true"/>
    <volume-check>
        <allowed-os-versions>
            <os-version min="14.0"/>
        </allowed-os-versions>
    </volume-check>
    <choices-outline>
        <line choice="default">
            <line choice="$identifier"/>
        </line>
    </choices-outline>
    <choice id="default"/>
    <choice id="$identifier" visible="false">
        <pkg-ref id="$identifier"/>
    </choice>
    <pkg-ref id="$identifier" version="$version" onConclusion="none">wiredcap-component.pkg</pkg-ref>
</installer-gui-script>
EOF

if [ "$stage_only" = 1 ]; then
  printf 'build-pkg.sh: staged %s, %s and %s (stopped: --stage-only)\n' "$root" "$scripts" "$out/distribution.xml"
  exit 0
fi

# 4. The packages (macOS only).
if ! command -v pkgbuild >/dev/null || ! command -v productbuild >/dev/null; then
  die "pkgbuild and productbuild are macOS tools; use --stage-only elsewhere"
fi
programs=("$root$prefix/bin/wiredcap" "$root$prefix/libexec/wiredcap/wiredcap-helper"
          "$root$prefix/libexec/wiredcap/wiredcap-system")
for p in "${programs[@]}"; do
  foreign=$(otool -L "$p" | tail -n +2 | awk '{ print $1 }' | grep -vE '^(/usr/lib/|/System/)' || true)
  if [ -n "$foreign" ]; then
    die "${p##*/} links libraries a Mac without Homebrew lacks: $(echo "$foreign" | tr '\n' ' ')(link them statically)"
  fi
done
if [ -n "$codesign_id" ]; then
  codesign --force --options runtime --timestamp --sign "$codesign_id" "${programs[@]}"
fi
pkgbuild --root "$root" --install-location / --identifier "$identifier" --version "$version" \
         --scripts "$scripts" --ownership recommended "$out/wiredcap-component.pkg"
sign_args=()
if [ -n "$sign" ]; then sign_args=(--sign "$sign"); fi
# ${a[@]+...}: an empty array under set -u is an error in macOS's bash 3.2.
product=$out/wiredcap-$version.pkg
if [ "$unsigned" = 1 ]; then product=$out/wiredcap-$version-unsigned.pkg; fi
productbuild --distribution "$out/distribution.xml" --package-path "$out" ${sign_args[@]+"${sign_args[@]}"} \
             "$product"
printf 'build-pkg.sh: built %s\n' "$product"
