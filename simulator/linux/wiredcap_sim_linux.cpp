// wiredcap-sim-linux: a simulated Linux AMD APU as a directory tree (sysfs, /proc, GRUB's
// files), for wiredcap-ttm --root. It plays the parts no test can: GRUB at boot (next_entry
// once, then the default), the kernel (cmdline -> pages_limit, amdgpu -> GTT), and a hang.
//
//   wiredcap-sim-linux init --root DIR --profile NAME
//   wiredcap-sim-linux reboot --root DIR [--keep-oneshot]
//                                               the boot loader picks the entry (with
//                                               --keep-oneshot GRUB cannot clear next_entry and
//                                               boots the default); the kernel boots or hangs
//   wiredcap-sim-linux hang-above --root DIR PAGES   a boot with pages_limit above this hangs
//   wiredcap-sim-linux advance --root DIR SECONDS    the machine stays up that much longer
//   wiredcap-sim-linux update-grub --root DIR   regenerates grub.cfg from /etc/default/grub
//   wiredcap-sim-linux profiles
//
// The simulator's own state (profile, hang threshold, hung, boots) is in DIR/.wiredcap-sim.
// grubenv is read and written with GRUB's real grub-editenv.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "linux_profiles.hpp"
#include "wiredcap/linux/cmdline.hpp"
#include "wiredcap/linux/grub.hpp"
#include "wiredcap/linux/grub_bls.hpp"
#include "wiredcap/linux/run.hpp"
#include "wiredcap/linux/system_root.hpp"
#include "wiredcap/linux/systemd_boot.hpp"

namespace {

using namespace wiredcap::linux_amd;
using wiredcap::sim_linux::LinuxProfile;

constexpr std::string_view kSimState = "/.wiredcap-sim/state";
constexpr std::string_view kKernel = "/vmlinuz-6.12.48-amd64";
constexpr std::string_view kBaseArgs = "root=UUID=3b1f0c2e-5d1a-4c7e-9a41-7f2b8c6d9e10 ro";

struct Sim {
    std::string profile;
    std::uint64_t hang_above = 0;  // pages; 0 = never
    bool hung = false;
    std::uint64_t boots = 0;
};

bool fail(const std::string& why) {
    std::fprintf(stderr, "wiredcap-sim-linux: %s\n", why.c_str());
    return false;
}

Sim load(const SystemRoot& root) {
    Sim s;
    const auto text = root.read(kSimState).value_or("");
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto end = text.find('\n', pos);
        const std::string line = text.substr(pos, end - pos);
        pos = end == std::string::npos ? text.size() : end + 1;
        const auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        const std::string k = line.substr(0, eq), v = line.substr(eq + 1);
        if (k == "profile") s.profile = v;
        else if (k == "hang_above_pages") s.hang_above = parse_u64(v).value_or(0);
        else if (k == "hung")  // not a journal word: the simulator's state
            s.hung = v == "1";
        else if (k == "boots") s.boots = parse_u64(v).value_or(0);
    }
    return s;
}

bool save(const SystemRoot& root, const Sim& s) {
    return static_cast<bool>(root.write(
        kSimState, "profile=" + s.profile + "\nhang_above_pages=" + std::to_string(s.hang_above) +
                       "\nhung=" + (s.hung ? "1" : "0") + "\nboots=" + std::to_string(s.boots) +
                       "\n"));
}

bool put(const SystemRoot& root, std::string_view path, const std::string& text) {
    if (auto w = root.write(path, text); !w) return fail(w.error().message);
    return true;
}

bool editenv(const SystemRoot& root, const std::vector<std::string>& args) {
    std::vector<std::string> argv{"grub-editenv", root.at(kGrubEnv).string()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_program(argv);
    return r && r->exit_code == 0 ? true : fail("grub-editenv failed");
}

// The value of KEY="..." in /etc/default/grub.
std::string default_line(const SystemRoot& root, const std::string& key) {
    const auto text = root.read(kGrubDefaults).value_or("");
    std::string value;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto end = text.find('\n', pos);
        const std::string line = text.substr(pos, end - pos);
        pos = end == std::string::npos ? text.size() : end + 1;
        if (line.rfind(key + "=", 0) != 0) continue;
        value = line.substr(key.size() + 1);
        if (value.size() >= 2 && value.front() == '"') value = value.substr(1, value.size() - 2);
    }
    return value;
}

constexpr std::string_view kUuid = "3b1f0c2e";

// One of 10_linux's entries: `version` empty for the top "simple" entry.
std::string linux_entry(const std::string& version, bool recovery, const std::string& args,
                        bool savedefault) {
    const std::string v = version.empty() ? "6.12.48-amd64" : version;
    std::string title = "Debian GNU/Linux";
    if (!version.empty()) title += ", with Linux " + version + (recovery ? " (recovery mode)" : "");
    const std::string id =
        version.empty()
            ? "gnulinux-simple-" + std::string(kUuid)
            : "gnulinux-" + version + (recovery ? "-recovery-" : "-advanced-") + std::string(kUuid);
    const std::string in = version.empty() ? "" : "\t";  // inside the submenu: one tab deeper
    const std::string body = in + "\t";
    return in + "menuentry '" + title +
           "' --class debian --class gnu-linux --class gnu --class os " + "$menuentry_id_option '" +
           id + "' {\n" + (savedefault ? body + "savedefault\n" : "") + body + "load_video\n" +
           body + "insmod gzio\n" + body + "echo\t'Loading Linux " + v + " ...'\n" + body +
           "linux\t/vmlinuz-" + v + " " + args + "\n" + body + "initrd\t/initrd.img-" + v + "\n" +
           in + "}\n";
}

// grub-mkconfig's shape: 00_header's one-shot and default (GRUB_DEFAULT, saved_entry when
// it is `saved`), 10_linux's top entry and its "Advanced options" submenu (two kernels, each
// with a recovery entry, which gets GRUB_CMDLINE_LINUX but not _DEFAULT), 41_custom's source.
bool update_grub(const SystemRoot& root) {
    std::string args(kBaseArgs), recovery_args(kBaseArgs);
    for (const auto& key :
         {std::string("GRUB_CMDLINE_LINUX"), std::string("GRUB_CMDLINE_LINUX_DEFAULT")}) {
        const std::string v = default_line(root, key);
        if (!v.empty()) args += " " + v;
        if (!v.empty() && key == "GRUB_CMDLINE_LINUX") recovery_args += " " + v;
    }
    recovery_args += " single";
    const std::string grub_default = default_line(root, "GRUB_DEFAULT");
    const bool saved = default_line(root, "GRUB_SAVEDEFAULT") == "true";
    const std::string default_value = grub_default == "saved" ? "${saved_entry}"
                                      : grub_default.empty()  ? "0"
                                                              : grub_default;
    std::string cfg =
        "# generated by wiredcap-sim-linux update-grub, in the shape of grub-mkconfig's output\n"
        "### BEGIN /etc/grub.d/00_header ###\n"
        "if [ -s $prefix/grubenv ]; then\n  set have_grubenv=true\n  load_env\nfi\n"
        "if [ \"${next_entry}\" ] ; then\n   set default=\"${next_entry}\"\n   set next_entry=\n"
        "   save_env next_entry\n   set boot_once=true\nelse\n   set default=\"" +
        default_value + "\"\nfi\n" +
        (saved
             ? "function savedefault {\n  if [ -z \"${boot_once}\" ]; then\n    saved_entry=\"${chosen}\"\n"
               "    save_env saved_entry\n  fi\n}\n"
             : "") +
        "### END /etc/grub.d/00_header ###\n"
        "### BEGIN /etc/grub.d/10_linux ###\n" +
        linux_entry("", false, args, saved) +
        "submenu 'Advanced options for Debian GNU/Linux' $menuentry_id_option "
        "'gnulinux-advanced-" +
        std::string(kUuid) + "' {\n" + linux_entry("6.12.48-amd64", false, args, saved) +
        linux_entry("6.12.48-amd64", true, recovery_args, saved) +
        linux_entry("6.12.38-amd64", false, args, saved) +
        linux_entry("6.12.38-amd64", true, recovery_args, saved) +
        "}\n"
        "### END /etc/grub.d/10_linux ###\n"
        "### BEGIN /etc/grub.d/41_custom ###\n"
        "if [ -f  ${config_directory}/custom.cfg ]; then\n  source ${config_directory}/custom.cfg\n"
        "elif [ -z \"${config_directory}\" -a -f  $prefix/custom.cfg ]; then\n  source $prefix/custom.cfg\nfi\n"
        "### END /etc/grub.d/41_custom ###\n";
    return put(root, kGrubCfg, cfg);
}

// The kernel and amdgpu coming up with `cmdline`: /proc and sysfs as they would read.
bool boot_kernel(const SystemRoot& root, const LinuxProfile& p, const std::string& cmdline,
                 std::uint64_t boots) {
    const std::string module(p.module);
    const std::uint64_t default_pages =
        p.mem_total_kib * 1024 / p.page_size / 2;  // ttm_global_init
    const auto param = cmdline_value(cmdline, module + ".pages_limit");
    const std::uint64_t pages = param ? parse_u64(*param).value_or(default_pages) : default_pages;
    const auto gttsize = cmdline_value(cmdline, "amdgpu.gttsize");
    const std::uint64_t gtt = gttsize ? parse_u64(*gttsize).value_or(0) << 20 : pages * p.page_size;
    char id[40];
    std::snprintf(id, sizeof id, "5a1d0000-0000-4000-8000-%012llx",
                  static_cast<unsigned long long>(boots));
    const std::string card = "/sys/class/drm/card1/device";
    const std::string kfd = "/sys/class/kfd/kfd/topology/nodes";
    bool ok =
        put(root, "/proc/cmdline", cmdline + "\n") && put(root, "/proc/uptime", "5.00 2.00\n") &&
        put(root, "/proc/sys/kernel/random/boot_id", std::string(id) + "\n") &&
        put(root, "/sys/module/" + module + "/parameters/pages_limit",
            std::to_string(pages) + "\n") &&
        put(root, "/sys/module/amdgpu/parameters/gttsize", (gttsize ? *gttsize : "-1") + "\n") &&
        put(root, card + "/mem_info_gtt_total", std::to_string(gtt) + "\n") &&
        put(root, card + "/mem_info_vram_total", std::to_string(p.vram_bytes) + "\n") &&
        put(root, kfd + "/1/mem_banks/0/properties",
            "heap_type 1\nsize_in_bytes " + std::to_string(gtt) + "\n");
    if (p.both_modules) {
        const std::string other = module == "ttm" ? "amdttm" : "ttm";
        ok = ok && put(root, "/sys/module/" + other + "/parameters/pages_limit",
                       std::to_string(default_pages) + "\n");
    }
    return ok;
}

constexpr std::string_view kEsp = "/efi";
constexpr std::string_view kSdDefault = "arch-6.12.conf";

// What systemd-boot hands the kernel: the entry's options and its initrd.
std::string sd_cmdline(const std::string& options) {
    return "initrd=\\initramfs-linux.img " + options;
}

bool init_systemd_boot(const SystemRoot& root, const std::string& extra) {
    const std::string entries = std::string(kEsp) + "/loader/entries/";
    const std::string options = std::string(kBaseArgs) + " quiet" + extra;
    return put(root, std::string(kEsp) + "/loader/loader.conf",
               "default " + std::string(kSdDefault) + "\ntimeout 3\n") &&
           put(root, entries + std::string(kSdDefault),
               "title Arch Linux\nlinux /vmlinuz-linux\ninitrd /initramfs-linux.img\noptions " +
                   options + "\n") &&
           put(root, entries + "arch-6.12-fallback.conf",
               "title Arch Linux (fallback)\nlinux /vmlinuz-linux\ninitrd /initramfs-linux-fallback.img\noptions " +
                   std::string(kBaseArgs) + "\n") &&
           put(root, std::string(kKernelCmdline), options + "\n") &&
           put(root, std::string(kEfiVars) + "/LoaderInfo-" + std::string(kLoaderGuid),
               efi_string_bytes("systemd-boot 257.7"));
}

// systemd-boot at power-on: LoaderEntryOneShot once (it removes the variable before the
// kernel runs), else LoaderEntryDefault, else loader.conf's default. The entry's options.
std::optional<std::pair<std::string, std::string>> sd_pick(const SystemRoot& root) {
    const std::string oneshot_var =
        std::string(kEfiVars) + "/LoaderEntryOneShot-" + std::string(kLoaderGuid);
    std::string id;
    if (auto once = read_efi_string(root, "LoaderEntryOneShot")) {
        id = *once;
        if (!root.remove(oneshot_var)) return std::nullopt;
    }
    const SystemdBoot loader(root);
    const std::string dir = std::string(kEsp) + "/loader/entries/";
    if (id.empty() || !root.exists(dir + id)) id = loader.default_entry().value_or("");
    const auto text = root.read(dir + id);
    if (!text) return std::nullopt;
    std::string title, options;
    std::size_t pos = 0;
    while (pos < text->size()) {
        const auto end = text->find('\n', pos);
        const std::string line = text->substr(pos, end - pos);
        pos = end == std::string::npos ? text->size() : end + 1;
        if (line.rfind("title ", 0) == 0) title = line.substr(6);
        if (line.rfind("options ", 0) == 0) options = line.substr(8);
    }
    return std::make_pair(title, sd_cmdline(options));
}

// Fedora's GRUB: /boot/grub2/grub.cfg runs blscfg over /boot/loader/entries; grubenv's
// saved_entry names the default (GRUB_DEFAULT=saved). Two kernels and a rescue entry.
constexpr std::string_view kMachineId = "0d772916a9724907a5d1350bcd39ac92";
constexpr std::string_view kBlsDir = "/boot/grub2";

std::string bls_id(std::string_view version) {
    return std::string(kMachineId) + "-" + std::string(version);
}

bool init_grub_bls(const SystemRoot& root, const std::string& options) {
    auto entry = [&](std::string_view version, const std::string& title, const std::string& opts) {
        const std::string v(version);
        return put(root, std::string(kBlsEntries) + "/" + bls_id(version) + ".conf",
                   "title " + title + "\nversion " + v + "\nlinux /vmlinuz-" + v +
                       "\ninitrd /initramfs-" + v + ".img\noptions " + opts +
                       "\ngrub_users $grub_users\ngrub_arg --unrestricted\ngrub_class fedora\n");
    };
    const std::string cfg =
        "# generated in the shape of Fedora's grub2-mkconfig output (BLS)\n"
        "### BEGIN /etc/grub.d/00_header ###\n"
        "set pager=1\nif [ -f ${config_directory}/grubenv ]; then\n  load_env -f ${config_directory}/grubenv\n"
        "elif [ -s $prefix/grubenv ]; then\n  load_env\nfi\n"
        "if [ \"${next_entry}\" ] ; then\n   set default=\"${next_entry}\"\n   set next_entry=\n"
        "   save_env next_entry\n   set boot_once=true\nelse\n   set default=\"${saved_entry}\"\nfi\n"
        "### END /etc/grub.d/00_header ###\n"
        "### BEGIN /etc/grub.d/10_linux ###\ninsmod blscfg\nblscfg\n### END /etc/grub.d/10_linux ###\n";
    bool ok =
        put(root, kGrubDefaults,
            "GRUB_TIMEOUT=5\nGRUB_DISTRIBUTOR=\"$(sed 's, release .*$,,g' /etc/system-release)\"\n"
            "GRUB_DEFAULT=saved\nGRUB_DISABLE_SUBMENU=true\nGRUB_TERMINAL_OUTPUT=\"console\"\n"
            "GRUB_CMDLINE_LINUX=\"rhgb quiet\"\nGRUB_DISABLE_RECOVERY=\"true\"\nGRUB_ENABLE_BLSCFG=true\n") &&
        put(root, std::string(kBlsDir) + "/grub.cfg", cfg) &&
        entry("6.12.48-200.fc41.x86_64", "Fedora Linux (6.12.48-200.fc41.x86_64) 41 (Forty One)",
              options) &&
        entry("6.12.38-200.fc41.x86_64", "Fedora Linux (6.12.38-200.fc41.x86_64) 41 (Forty One)",
              options) &&
        entry("0-rescue-" + std::string(kMachineId),
              "Fedora Linux (0-rescue-" + std::string(kMachineId) + ") 41 (Forty One)", options) &&
        put(root, std::string(kKernelCmdline), options + "\n");
    if (!ok) return false;
    const std::string env = root.at(std::string(kBlsDir) + "/grubenv").string();
    auto r = run_program({"grub-editenv", env, "create"});
    auto s = run_program(
        {"grub-editenv", env, "set", "saved_entry=" + bls_id("6.12.48-200.fc41.x86_64")});
    return r && r->exit_code == 0 && s && s->exit_code == 0 ? true : fail("grub-editenv failed");
}

// Fedora's GRUB at power-on: next_entry once (cleared first), else saved_entry; the entry's
// title and the command line it hands the kernel.
std::optional<std::pair<std::string, std::string>> bls_pick(const SystemRoot& root) {
    const std::string env = std::string(kBlsDir) + "/grubenv";
    const auto vars = grub_env(root, env);
    if (!vars) return std::nullopt;
    std::string id = vars->count("saved_entry") != 0 ? vars->at("saved_entry") : "";
    if (vars->count("next_entry") != 0 && !vars->at("next_entry").empty()) {
        if (!grub_editenv(root, env, {"set", "next_entry="})) return std::nullopt;
        if (root.exists(std::string(kBlsEntries) + "/" + vars->at("next_entry") + ".conf"))
            id = vars->at("next_entry");
    }
    const auto text = root.read(std::string(kBlsEntries) + "/" + id + ".conf");
    if (!text) return std::nullopt;
    return std::make_pair(key_value(*text, "title").value_or(""),
                          "BOOT_IMAGE=(hd0,gpt2)" + key_value(*text, "linux").value_or("") + " " +
                              key_value(*text, "options").value_or(""));
}

bool init(const SystemRoot& root, const LinuxProfile& p, const std::string& self) {
    const std::string module(p.module);
    std::filesystem::create_directories(root.at("/sys/module/" + module + "/holders/amdgpu"));
    std::filesystem::create_directories(root.at("/etc/modprobe.d"));
    const std::string extra = p.extra_cmdline.empty() ? "" : " " + std::string(p.extra_cmdline);
    bool ok = put(root, "/proc/self/smaps",
                  "KernelPageSize:        " + std::to_string(p.page_size / 1024) + " kB\n") &&
              put(root, "/proc/meminfo",
                  "MemTotal:       " + std::to_string(p.mem_total_kib) + " kB\n") &&
              put(root, "/sys/class/kfd/kfd/topology/nodes/0/properties",
                  "cpu_cores_count 16\nsimd_count 0\n") &&
              put(root, "/sys/class/kfd/kfd/topology/nodes/1/properties",
                  "cpu_cores_count 0\nsimd_count 80\n") &&
              put(root, "/.wiredcap-sim/.keep", "") &&
              (p.modprobe_conf.empty() ||
               put(root, "/etc/modprobe.d/ttm.conf", std::string(p.modprobe_conf)));
    if (!ok) return false;
    Sim s{std::string(p.name), 0, false, 1};
    if (p.systemd_boot)
        return save(root, s) && init_systemd_boot(root, extra) &&
               boot_kernel(root, p, sd_cmdline(std::string(kBaseArgs) + " quiet" + extra), 1);
    if (p.grub_bls) {
        const std::string options = std::string(kBaseArgs) + " rhgb quiet" + extra;
        return save(root, s) && init_grub_bls(root, options) &&
               boot_kernel(root, p,
                           "BOOT_IMAGE=(hd0,gpt2)/vmlinuz-6.12.48-200.fc41.x86_64 " + options, 1);
    }
    ok = put(root, kGrubDefaults,
             "GRUB_DEFAULT=0\nGRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet" + extra +
                 "\"\nGRUB_CMDLINE_LINUX=\"\"\n") &&
         put(root, kUpdateGrub,
             "#!/bin/sh\nexec '" + self + "' update-grub --root '" + root.root().string() + "'\n");
    if (!ok) return false;
    std::filesystem::permissions(root.at(kUpdateGrub), std::filesystem::perms::owner_all |
                                                           std::filesystem::perms::group_read |
                                                           std::filesystem::perms::group_exec);
    if (!update_grub(root)) return false;
    auto r = run_program({"grub-editenv", root.at(kGrubEnv).string(), "create"});
    if (!r || r->exit_code != 0) return fail("grub-editenv create failed");
    return save(root, s) && boot_kernel(root, p,
                                        "BOOT_IMAGE=" + std::string(kKernel) + " " +
                                            std::string(kBaseArgs) + " quiet" + extra,
                                        1);
}

// grubenv's NAME as grub-editenv lists it, or empty.
std::string env_value(const std::string& listing, const std::string& name) {
    std::size_t at = listing.rfind("\n" + name + "=");
    at = listing.rfind(name + "=", 0) == 0 ? 0 : at == std::string::npos ? at : at + 1;
    if (at == std::string::npos) return {};
    const auto from = at + name.size() + 1;
    return listing.substr(from, listing.find('\n', from) - from);
}

// GRUB at power-on: next_entry once (cleared before the kernel runs), else the default
// 00_header set: saved_entry when grub.cfg says `${saved_entry}`, else entry 0; a default
// that names no entry boots entry 0, as GRUB does.
std::optional<MenuEntry> grub_pick(const SystemRoot& root) {
    auto r = run_program({"grub-editenv", root.at(kGrubEnv).string(), "list"});
    if (!r || r->exit_code != 0) return std::nullopt;
    const std::string next = env_value(r->out, "next_entry");
    const std::string cfg = root.read(kGrubCfg).value_or("");
    auto entries = parse_menu_tree(cfg);
    if (entries.empty()) return std::nullopt;
    if (!next.empty()) {
        if (!editenv(root, {"set", "next_entry="})) return std::nullopt;
        auto custom = parse_menu_tree(root.read(kGrubCustom).value_or(""));
        entries.insert(entries.end(), custom.begin(), custom.end());
        if (auto e = resolve_menu_entry(entries, next)) return e;
    }
    const std::string spec = cfg.find("set default=\"${saved_entry}\"") != std::string::npos
                                 ? env_value(r->out, "saved_entry")
                                 : "0";
    return resolve_menu_entry(entries, spec).value_or(entries.front());
}

// keep_oneshot: the boot loader could not clear its one-shot (GRUB on a file system it cannot
// write) and booted the default: the armed trial stays armed.
bool reboot(const SystemRoot& root, bool keep_oneshot) {
    Sim s = load(root);
    const auto* p = wiredcap::sim_linux::find_linux_profile(s.profile);
    if (!p) return fail("no simulated machine at " + root.root().string());
    s.hung = false;
    ++s.boots;
    std::string title, cmdline;
    if (keep_oneshot) {
        const auto entries = parse_menu_entries(root.read(kGrubCfg).value_or(""));
        if (p->systemd_boot || p->grub_bls || entries.empty())
            return fail("--keep-oneshot needs a Debian GRUB profile");
        title = entries.front().title;
        cmdline = "BOOT_IMAGE=" + entries.front().image + " " + entries.front().linux_args;
    } else if (p->grub_bls) {
        const auto picked = bls_pick(root);
        if (!picked) return fail("GRUB (BLS) found no entry to boot");
        title = picked->first;
        cmdline = picked->second;
    } else if (p->systemd_boot) {
        const auto picked = sd_pick(root);
        if (!picked) return fail("systemd-boot found no entry to boot");
        title = picked->first;
        cmdline = picked->second;
    } else {
        const auto entry = grub_pick(root);
        if (!entry) return fail("GRUB found no entry to boot");
        title = entry->title;
        cmdline = "BOOT_IMAGE=" + entry->image + " " + entry->linux_args;
    }
    const auto param = cmdline_value(cmdline, std::string(p->module) + ".pages_limit");
    const auto pages = param ? parse_u64(*param) : std::nullopt;
    if (s.hang_above != 0 && pages && *pages > s.hang_above) {
        s.hung = true;  // amdgpu came up and the machine froze: nothing after GRUB ran
        std::printf("booted '%s': HUNG (pages_limit %s above %llu)\n", title.c_str(),
                    param->c_str(), static_cast<unsigned long long>(s.hang_above));
        return save(root, s);
    }
    std::printf("booted '%s'\n", title.c_str());
    return save(root, s) && boot_kernel(root, *p, cmdline, s.boots);
}

int usage() {
    std::fputs(
        "usage: wiredcap-sim-linux init --root DIR --profile NAME | reboot --root DIR [--keep-oneshot] |\n"
        "       hang-above --root DIR PAGES | advance --root DIR SECONDS | update-grub --root DIR | profiles\n",
        stderr);
    return 64;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> a(argv + 1, argv + argc);
    if (a.size() == 1 && a[0] == "profiles") {
        for (const auto& p : wiredcap::sim_linux::linux_profiles())
            std::printf("%-11s %s\n", std::string(p.name).c_str(),
                        std::string(p.description).c_str());
        return 0;
    }
    if (a.size() < 3 || a[1] != "--root") return usage();
    const SystemRoot root(std::filesystem::absolute(a[2]));
    if (root.is_real()) return fail("--root / is the host, never simulated") ? 0 : 1;
    const std::string& cmd = a[0];
    if (cmd == "init" && a.size() == 5 && a[3] == "--profile") {
        const auto* p = wiredcap::sim_linux::find_linux_profile(a[4]);
        if (!p) return fail("unknown profile " + a[4]) ? 0 : 64;
        const std::string self = std::filesystem::canonical("/proc/self/exe").string();
        return init(root, *p, self) ? 0 : 1;
    }
    if (cmd == "reboot" && a.size() == 3) return reboot(root, false) ? 0 : 1;
    if (cmd == "reboot" && a.size() == 4 && a[3] == "--keep-oneshot")
        return reboot(root, true) ? 0 : 1;
    if (cmd == "update-grub" && a.size() == 3) return update_grub(root) ? 0 : 1;
    if (cmd == "advance" && a.size() == 4) {  // the simulated machine stays up SECONDS longer
        const auto add = parse_u64(a[3]);
        const auto now = root.read_value("/proc/uptime");
        const auto up = now ? parse_u64(now->substr(0, now->find('.'))) : std::nullopt;
        if (!add || !up) return usage();
        return put(root, "/proc/uptime", std::to_string(*up + *add) + ".00 2.00\n") ? 0 : 1;
    }
    if (cmd == "hang-above" && a.size() == 4) {
        Sim s = load(root);
        const auto n = parse_u64(a[3]);
        if (!n || s.profile.empty()) return usage();
        s.hang_above = *n;
        return save(root, s) ? 0 : 1;
    }
    return usage();
}
