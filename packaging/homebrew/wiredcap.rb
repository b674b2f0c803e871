# Homebrew formula for wiredcap. For a tap: copy to Formula/wiredcap.rb and fill in the
# RELEASE placeholders (homepage, url and sha256 of the release tarball).
#
# Homebrew cannot install a setuid-root program (its prefix belongs to a user, and it never
# runs as root), so the helper is installed mode 0755 (-DWIREDCAP_INSTALL_SETUID=OFF) and the
# caveats print the one-time privileged step. Without that step `wiredcap status`, `recover`,
# `policy check` and `convert` work; `set`, `reset` and `ramp` are refused by the helper.
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

  depends_on "cmake" => :build
  depends_on "cli11" => :build # header-only
  depends_on "spdlog" => :build # header-only in the helper
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
      wiredcap-helper must be root's and setuid before wiredcap can change the cap.
      Homebrew cannot do that; run these once (and again after every `brew upgrade wiredcap`,
      which installs a new, unprivileged helper):

        sudo chown root:wheel #{helper_path}
        sudo chmod 4755 #{helper_path}
        sudo install -d -o root -g wheel -m 0755 /var/db/wiredcap
        [ -e /etc/wiredcap.conf ] || sudo install -o root -g wheel -m 0644 #{pkgshare}/wiredcap.conf.example /etc/wiredcap.conf
        wiredcap policy check

      The last line checks the band in /etc/wiredcap.conf against this Mac; the template is
      written for a 192 GB Mac, so edit it (sudo) until the check passes. /var/db/wiredcap
      holds the journal. Nothing runs at boot: the cap returns to the OS default on every
      reboot.

      `wiredcap persist` (re-apply a confirmed value at every boot, with a boot-loop guard)
      needs the boot LaunchDaemon, which runs the helper as root. This formula does not
      install it: launchd would run as root whatever program is at the keg's path, and the
      Homebrew prefix belongs to you. Use the macOS package for persistence. The plist is in
      #{pkgshare}/org.wiredcap.boot.plist for reference only. Here `wiredcap persist` only
      stores a value (in /var/db/wiredcap/boot.state) that nothing applies; the package's
      LaunchDaemon would apply it, so run `wiredcap persist --off` before you switch to the
      package.

      `brew cleanup wiredcap` removes older kegs, and with them their setuid helpers.
      To remove wiredcap: `brew uninstall wiredcap`; /etc/wiredcap.conf and /var/db/wiredcap
      stay until you remove them with sudo.

      Sites that forbid setuid programs: do not use the sudoers.d alternative with this
      formula. A sudo rule must name a program in a directory only root can write, and the
      Homebrew prefix belongs to you. Use the macOS package instead.
    EOS
  end

  test do
    assert_match "237568 MiB", shell_output("#{bin}/wiredcap convert 232GiB --to MiB")
    assert_match "usage: wiredcap-helper", shell_output("#{helper_path} --help")
    # A bare number is refused: the unit is never guessed.
    shell_output("#{bin}/wiredcap convert 232000 --to MiB", 2)
  end
end
