# Homebrew formula for wiredcap. For a tap: copy to Formula/wiredcap.rb and fill in the
# RELEASE placeholders (homepage, url and sha256 of the release tarball).
#
# Homebrew cannot install a setuid-root program (its prefix belongs to a user, and it never
# runs as root), so the helper is installed mode 0755 (-DWIREDCAP_INSTALL_SETUID=OFF). The
# caveats follow `brew audit --strict`: they never recommend setuid (Homebrew's Caveats cop);
# they say to run the commands that change the cap through sudo, or to use the macOS package,
# which installs the helper root-owned in a directory only root can write. Without sudo,
# `wiredcap status`, `recover`, `policy check` and `convert` work; `set`, `reset` and `ramp` are
# refused by the helper.
#
# The boot LaunchDaemon (share/wiredcap/org.wiredcap.boot.plist, installed in the keg like every
# platform's install) is not offered here: launchd would run, as root, whatever program sits at
# a path inside the keg, a directory the Homebrew user can write. That is the same reason the
# sudoers alternative is not offered. `wiredcap persist` needs the macOS package.
class Wiredcap < Formula
  desc "Set the Apple Silicon GPU wired-memory cap (iogpu.wired_limit_mb) safely"
  homepage "https://github.com/RELEASE-OWNER/wiredcap" # RELEASE: the project's home
  url "https://github.com/RELEASE-OWNER/wiredcap/archive/refs/tags/v0.1.0.tar.gz" # RELEASE: the tag's tarball
  # RELEASE: `shasum -a 256 v0.1.0.tar.gz`; the zeros below are a placeholder and fail the download check.
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  license "MIT"

  # Build dependencies first, then the others, each group in alphabetical order (Homebrew's
  # DependencyOrder cop).
  depends_on "cli11" => :build # header-only
  depends_on "cmake" => :build
  depends_on "nlohmann-json" => :build # header-only (the CLI reads JSON; wiredcap fit, safetensors)
  depends_on arch: :arm64
  depends_on "fmt"
  depends_on :macos

  def install
    system "cmake", "-S", ".", "-B", "build",
           "-DWIREDCAP_BUILD_TESTS=OFF",
           "-DWIREDCAP_WERROR=OFF",
           "-DWIREDCAP_INSTALL_SETUID=OFF",
           *std_cmake_args
    system "cmake", "--build", "build"
    system "cmake", "--install", "build"
  end

  # wiredcap runs the helper at the path compiled in from the install prefix: this keg's.
  def helper_path
    libexec/"wiredcap/wiredcap-helper"
  end

  def caveats
    <<~EOS
      wiredcap changes the cap through wiredcap-helper, which must run as root.
      Homebrew installs it unprivileged, so run the commands that change the cap
      (set, ramp, reset, persist) with sudo. Once, set up the journal's directory
      and the permitted band:

        sudo install -d -o root -g wheel -m 0755 /var/db/wiredcap
        [ -e /etc/wiredcap.conf ] || sudo install -o root -g wheel -m 0644 #{pkgshare}/wiredcap.conf.example /etc/wiredcap.conf
        wiredcap policy check

      The template is written for a 192 GB Mac: edit /etc/wiredcap.conf with sudo
      until `wiredcap policy check` passes (without it the built-in band applies).
      Then `wiredcap status` shows the highest value you may set, and
      `sudo wiredcap ramp --to SIZE` raises the cap step by step to it; to go back
      to the OS default at any time:

        sudo wiredcap reset

      `wiredcap status`, `recover` and `convert` need no sudo. Nothing runs at boot:
      the cap returns to the OS default on every reboot.

      To let members of a group change the cap without sudo, use the macOS package
      instead: it installs the helper owned by root in a directory only root can write.

      If you made an earlier keg's wiredcap-helper root's (older versions of these
      notes said to), every older keg keeps that root-owned helper until
      `brew cleanup wiredcap` removes the old kegs; run it after each upgrade.

      `wiredcap persist` (re-apply a confirmed value at every boot, with a boot-loop
      guard) needs the boot LaunchDaemon, which runs the helper as root. This formula
      does not install it: launchd would run as root whatever program is at the keg's
      path, and the Homebrew prefix belongs to you.
      Use the macOS package for persistence. The plist is in
      #{pkgshare}/org.wiredcap.boot.plist for reference only. Here `wiredcap persist` only stores a value (in
      /var/db/wiredcap/boot.state) that nothing applies; the package's LaunchDaemon
      would apply it, so run `sudo wiredcap persist --off` before you switch to the
      package.

      To remove wiredcap: `brew uninstall wiredcap`; /etc/wiredcap.conf and
      /var/db/wiredcap stay until you remove them with sudo.
    EOS
  end

  test do
    assert_match "237568 MiB", shell_output("#{bin}/wiredcap convert 232GiB --to MiB")
    assert_match "usage: wiredcap-helper", shell_output("#{helper_path} --help")
    # A bare number is refused: the unit is never guessed.
    shell_output("#{bin}/wiredcap convert 232000 --to MiB", 2)
  end
end
