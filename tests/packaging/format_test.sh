#!/usr/bin/env bash
# tools/check-format in the suite: the C++ lines this checkout changed since tools/format-base
# are as .clang-format has them; and, in a scratch repository, the check fails on a changed line
# that is not, passes over an unformatted line nobody touched, and counts a moved file's edits
# only (a check that cannot fail is no check).
# Usage: format_test.sh SOURCE_DIR WORK
source "$(dirname "$0")/lib.sh"
src=$1 work=$2
need git clang-format clang-format-diff
if ! git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  echo "SKIP: $src is not a git checkout (a source tarball): no change to check"
  exit 77
fi

check "the lines changed since tools/format-base are formatted" bash -c "cd '$src' && tools/check-format"

rm -rf "$work"; mkdir -p "$work/tools"; cd "$work" || exit 1
cp "$src/.clang-format" .; cp "$src/tools/check-format" tools/
git init -q . && git config user.email t@example.invalid && git config user.name test
printf 'int untouched( int x ){return x;}\n\nint kept(int x) { return x; }\n' > a.cpp
git add -A && git commit -qm base && git rev-parse HEAD > tools/format-base && git add -A && git commit -qm base2

git mv a.cpp b.cpp && git commit -qm moved
check "a moved file with no edit passes" quiet tools/check-format

printf 'int added( int y ){return y;}\n' >> b.cpp && git commit -qam bad
out=$(tools/check-format 2>&1); rc=$?
check "a badly formatted changed line fails (exit $rc)" test "$rc" -eq 1
check "the fix for the changed line is shown" grep -q '^+int added(int y) { return y; }' <<<"$out"
check "the untouched line is left alone" bash -c '! grep -q "^-int untouched" <<<"$1"' _ "$out"

printf 'int untouched( int x ){return x;}\n\nint kept(int x) { return x; }\nint added(int y) { return y; }\n' > b.cpp
git commit -qam fixed
check "once formatted, the change passes" quiet tools/check-format
finish
