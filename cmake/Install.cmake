# Installation layout (cmake --install). packaging/LAYOUT.md lists every file with its mode, and
# tests/packaging/install_layout_test.sh checks that an install into DESTDIR is exactly that.
#
#   bin/wiredcap                                      0755  the command people type
#   libexec/wiredcap/wiredcap                         0755  the same program, for what root runs
#                                                           (fleet scripts, Ansible under become):
#                                                           bin/ may be a user's (Intel Homebrew)
#   libexec/wiredcap/wiredcap-helper                  4755  the privileged core (setuid)
#   libexec/wiredcap/wiredcap-system                  0755  root's own program (boot action,
#                                                           journal upkeep); never setuid: it
#                                                           refuses to run so
#   share/man/man1/wiredcap.1, man8/wiredcap-helper.8 0644
#   share/bash-completion/completions/wiredcap        0644
#   share/zsh/site-functions/_wiredcap                0644
#   share/fish/vendor_completions.d/wiredcap.fish     0644
#   share/wiredcap/wiredcap.conf.example              0644  template for /etc/wiredcap.conf
#   share/wiredcap/sudoers.d/wiredcap                 0644  template for /etc/sudoers.d/wiredcap
#   share/wiredcap/org.wiredcap.boot.plist            0644  the boot LaunchDaemon (macOS pkg
#                                                           postinstall copies it to
#                                                           /Library/LaunchDaemons)
#   share/wiredcap/org.wiredcap.metrics.plist         0644  example LaunchDaemon: metrics for
#                                                           Prometheus every minute (not loaded)
#   share/wiredcap/org.wiredcap.boot.managed-login-items.mobileconfig
#                                                     0644  managed login items profile (MDM)
#   share/wiredcap/prometheus/wiredcap.rules.yml      0644  Prometheus alerting rules
#   share/wiredcap/schema/*.json                      0644  the published --json contract
#                                                           (docs/schema/), for scripts and
#                                                           fleet tools to validate against
#
# Paths are literal, not GNUInstallDirs: wiredcap has the helper's installed path compiled in
# as ${CMAKE_INSTALL_PREFIX}/libexec/wiredcap/wiredcap-helper (cli/CMakeLists.txt), so install
# with the prefix the build was configured with.
#
# Nothing goes to /etc, /var or /Library: the policy file, the journal directory and the
# LaunchDaemon belong to the macOS package's postinstall or to the documented one-time step
# (README, "Install on a Mac"). The plist is installed on every platform (it is data), so the
# layout is the same everywhere; only macOS loads it.
# Ownership is not set here: a non-root `cmake --install` cannot chown. The pkg applies
# root:wheel (pkgbuild --ownership recommended, then postinstall); as root the files are
# root's anyway.
#
# Only wiredcap, wiredcap-helper and wiredcap-system are installed: wiredcap-sim, wiredcap-helper-suidtest and
# the test tools are build-tree programs for the test suite.

# Setuid in the install tree. Homebrew (which cannot install setuid files, and whose prefix
# belongs to a user) turns it off and documents the one-time `sudo chown` + `chmod 4755`.
option(WIREDCAP_INSTALL_SETUID "Install wiredcap-helper with the setuid bit (mode 4755)" ON)

set(CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

set(_wiredcap_exec_mode OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(_wiredcap_data_mode OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
set(_wiredcap_helper_mode ${_wiredcap_exec_mode})
if(WIREDCAP_INSTALL_SETUID)
  list(APPEND _wiredcap_helper_mode SETUID)
endif()

set(_wiredcap_pkg ${PROJECT_SOURCE_DIR}/packaging)

install(TARGETS wiredcap RUNTIME DESTINATION bin PERMISSIONS ${_wiredcap_exec_mode})
install(TARGETS wiredcap RUNTIME DESTINATION libexec/wiredcap PERMISSIONS ${_wiredcap_exec_mode})
install(TARGETS wiredcap-helper RUNTIME DESTINATION libexec/wiredcap PERMISSIONS ${_wiredcap_helper_mode})
install(TARGETS wiredcap-system RUNTIME DESTINATION libexec/wiredcap PERMISSIONS ${_wiredcap_exec_mode})

install(FILES ${_wiredcap_pkg}/man/wiredcap.1 DESTINATION share/man/man1 PERMISSIONS ${_wiredcap_data_mode})
install(FILES ${_wiredcap_pkg}/man/wiredcap-helper.8 DESTINATION share/man/man8 PERMISSIONS ${_wiredcap_data_mode})

install(FILES ${_wiredcap_pkg}/completions/wiredcap.bash DESTINATION share/bash-completion/completions
        RENAME wiredcap PERMISSIONS ${_wiredcap_data_mode})
install(FILES ${_wiredcap_pkg}/completions/_wiredcap DESTINATION share/zsh/site-functions
        PERMISSIONS ${_wiredcap_data_mode})
install(FILES ${_wiredcap_pkg}/completions/wiredcap.fish DESTINATION share/fish/vendor_completions.d
        PERMISSIONS ${_wiredcap_data_mode})

install(FILES ${_wiredcap_pkg}/wiredcap.conf.example DESTINATION share/wiredcap PERMISSIONS ${_wiredcap_data_mode})
# A template: the documented step copies it with `install -m 0440` after `visudo -cf`.
install(FILES ${_wiredcap_pkg}/sudoers.d/wiredcap DESTINATION share/wiredcap/sudoers.d
        PERMISSIONS ${_wiredcap_data_mode})
# A template too: postinstall copies it to /Library/LaunchDaemons and bootstraps it.
install(FILES ${_wiredcap_pkg}/macos/org.wiredcap.boot.plist DESTINATION share/wiredcap
        PERMISSIONS ${_wiredcap_data_mode})
# An example, not loaded by the package: writes `wiredcap metrics` for Prometheus every minute.
install(FILES ${_wiredcap_pkg}/macos/org.wiredcap.metrics.plist DESTINATION share/wiredcap
        PERMISSIONS ${_wiredcap_data_mode})
# Alerting rules over the metrics, for Prometheus's rule_files.
install(FILES ${_wiredcap_pkg}/prometheus/wiredcap.rules.yml DESTINATION share/wiredcap/prometheus
        PERMISSIONS ${_wiredcap_data_mode})
# For an MDM to upload: keeps org.wiredcap.boot enabled, out of the users' Login Items switch.
install(FILES ${_wiredcap_pkg}/fleet/mdm/org.wiredcap.boot.managed-login-items.mobileconfig
        DESTINATION share/wiredcap PERMISSIONS ${_wiredcap_data_mode})

# The --json contract, so that a script on the machine validates against the schemas of the
# wiredcap it runs. Every file is listed in LAYOUT.md: a new schema needs its row there.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/schema/ DESTINATION share/wiredcap/schema
        FILE_PERMISSIONS ${_wiredcap_data_mode} FILES_MATCHING PATTERN "*.json")

# Linux AMD APUs (docs/linux.md): the after-boot read-back unit (it runs wiredcap-system
# ttm-after-boot) and its timer (the health mark), shipped like the LaunchDaemon's plist: a file under share/ that the
# installation copies into place (/etc/systemd/system). It names /usr/local/libexec.
install(FILES ${_wiredcap_pkg}/systemd/wiredcap-ttm-after-boot.service
              ${_wiredcap_pkg}/systemd/wiredcap-ttm-after-boot.timer
        DESTINATION share/wiredcap/systemd PERMISSIONS ${_wiredcap_data_mode})
# Its udev rule: starts the unit when amdgpu registers a card (copied to /etc/udev/rules.d).
install(FILES ${_wiredcap_pkg}/udev/71-wiredcap-ttm.rules
        DESTINATION share/wiredcap/udev PERMISSIONS ${_wiredcap_data_mode})

unset(_wiredcap_exec_mode)
unset(_wiredcap_data_mode)
unset(_wiredcap_helper_mode)
unset(_wiredcap_pkg)
