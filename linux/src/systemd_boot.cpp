#include "wiredcap/linux/systemd_boot.hpp"

#include <unistd.h>

#include <sstream>

#include "wiredcap/linux/cmdline.hpp"
#include "wiredcap/linux/grub.hpp"
#include "wiredcap/linux/grub_bls.hpp"
#include "wiredcap/linux/run.hpp"

namespace wiredcap::linux_amd {
namespace {

std::string var_path(std::string_view name) {
    return std::string(kEfiVars) + "/" + std::string(name) + "-" + std::string(kLoaderGuid);
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

}  // namespace

std::optional<std::string> key_value(const std::string& text, std::string_view key) {
    std::optional<std::string> v;
    for (const auto& line : lines_of(text)) {
        const auto words = split_cmdline(line);
        if (words.empty() || words[0] != key) continue;
        const auto at = line.find(key) + key.size();
        const auto first = line.find_first_not_of(" \t", at);
        v = first == std::string::npos ? std::string{} : line.substr(first);
    }
    return v;
}

namespace {

// A unified kernel image carries its command line inside it (the .cmdline section, signed
// with it under Secure Boot, where systemd-stub ignores the loader's options): no entry's
// `options` can try ttm.pages_limit once.
std::string uki_refusal(const std::string& what) {
    return "the default entry " + what +
           " is a unified kernel image (UKI), whose command line is built into it: wiredcap cannot "
           "try a value once there. Add <ttm|amdttm|amd_ttm>.pages_limit=PAGES to /etc/kernel/cmdline and rebuild the "
           "image (kernel-install add, or ukify build --cmdline), keeping the old image as a menu "
           "entry to fall back to";
}

}  // namespace

std::string with_options(const std::string& entry, std::string_view name,
                         std::optional<std::string_view> value) {
    // An entry may have several `options` lines (they are joined): the parameter leaves every
    // one, and a new value goes on the last, so it is there once and wins.
    const auto lines = lines_of(entry);
    std::size_t last = lines.size();
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto words = split_cmdline(lines[i]);
        if (!words.empty() && words[0] == "options") last = i;
    }
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto words = split_cmdline(lines[i]);
        if (words.empty() || words[0] != "options") {
            out += lines[i] + "\n";
            continue;
        }
        std::string opts = remove_param(key_value(lines[i], "options").value_or(""), name);
        if (i == last && value) opts = set_param(opts, name, *value);
        out += "options " + opts + "\n";
    }
    if (last == lines.size() && value)
        out += "options " + std::string(name) + "=" + std::string(*value) + "\n";
    return out;
}

std::optional<std::string> read_efi_string(const SystemRoot& root, std::string_view name) {
    const auto bytes = root.read(var_path(name));
    if (!bytes || bytes->size() < 4 || (bytes->size() - 4) % 2 != 0) return std::nullopt;
    std::string out;
    for (std::size_t i = 4; i + 1 < bytes->size(); i += 2) {
        const auto lo = static_cast<unsigned char>((*bytes)[i]);
        const auto hi = static_cast<unsigned char>((*bytes)[i + 1]);
        if (hi != 0 || lo >= 0x80) return std::nullopt;
        if (lo == 0) break;
        out += static_cast<char>(lo);
    }
    return out;
}

std::string efi_string_bytes(std::string_view value) {
    std::string out{'\x07', '\0', '\0', '\0'};  // EFI_VARIABLE_NON_VOLATILE | BOOTSERVICE | RUNTIME
    for (char c : value) {
        out += c;
        out += '\0';
    }
    out += std::string(2, '\0');
    return out;
}

std::optional<std::string> SystemdBoot::esp() const {
    for (const char* dir : {"/efi", "/boot/efi", "/boot"})
        if (root_.exists(std::string(dir) + "/loader/loader.conf")) return std::string(dir);
    return std::nullopt;
}

std::optional<std::string> SystemdBoot::default_entry(std::string* why) const {
    const auto e = esp();
    auto no = [&](std::string w) -> std::optional<std::string> {
        if (why) *why = std::move(w);
        return std::nullopt;
    };
    if (!e) return no("no loader/loader.conf in /efi, /boot/efi or /boot");
    std::string id;
    if (auto var = read_efi_string(root_, "LoaderEntryDefault")) id = *var;
    else if (auto conf = root_.read(*e + "/loader/loader.conf");
             conf && key_value(*conf, "default"))
        id = *key_value(*conf, "default");
    if (id.empty()) return no("no default entry named (loader.conf `default`, LoaderEntryDefault)");
    if (id.find_first_of("*?[") != std::string::npos)
        return no("the default is a pattern (" + id + "): wiredcap follows only an exact entry");
    if (id.size() >= 4 && id.substr(id.size() - 4) == ".efi") return no(uki_refusal(id));
    if (id.size() < 5 || id.substr(id.size() - 5) != ".conf") id += ".conf";
    if (!root_.exists(*e + "/loader/entries/" + id))
        return no("the default entry " + id + " is not in loader/entries");
    // A type #1 entry that starts a UKI (`uki`) or another EFI program (`efi`), not `linux`.
    const auto text = root_.read(*e + "/loader/entries/" + id).value_or("");
    for (const char* key : {"uki", "efi"})
        if (key_value(text, key))
            return no(uki_refusal(id + " (`" + key + " " + *key_value(text, key) + "`)"));
    return id;
}

std::optional<std::string> SystemdBoot::unusable() const {
    if (!root_.exists(std::string(kEfiVars)))
        return std::string(kEfiVars) + " is absent: no EFI variables, no one-shot";
    std::string why;
    if (!default_entry(&why)) return why;
    if (root_.is_real() && !root_.exists("/usr/bin/bootctl"))
        return std::string("bootctl is absent: cannot set LoaderEntryOneShot");
    return std::nullopt;
}

Expected<Ok> SystemdBoot::set_oneshot(std::string_view id) const {
    // On "/" bootctl's own interface (it knows efivarfs' immutable flags). A scratch root may
    // bring its own bootctl, the machine's tool as on "/"; without one the simulated efivarfs
    // file is written directly.
    const auto own = root_.at("/usr/bin/bootctl");
    if (root_.is_real() || ::access(own.c_str(), X_OK) == 0) {
        auto r = run_program({own.string(), "set-oneshot", std::string(id)});
        if (!r) return r.error();
        if (r->exit_code != 0)
            return Error{"bootctl set-oneshot failed (exit " + std::to_string(r->exit_code) + ")"};
        return Ok{};
    }
    if (id.empty()) return root_.remove(var_path("LoaderEntryOneShot"));
    return root_.write(var_path("LoaderEntryOneShot"), efi_string_bytes(id));
}

Expected<Ok> SystemdBoot::schedule(std::string_view name, std::string_view value) const {
    if (auto why = unusable()) return Error{*why};
    const std::string dir = *esp() + "/loader/entries/";
    const auto entry = root_.read(dir + *default_entry());
    if (!entry) return Error{"cannot read the default entry"};
    const auto existing = root_.read(dir + std::string(kSdTrialEntry));
    if (existing && existing->rfind("# wiredcap", 0) != 0)
        return Error{dir + std::string(kSdTrialEntry) + " exists and is not wiredcap's: no trial"};
    std::string text = "# wiredcap trial entry: boots once with " + std::string(name) + "=" +
                       std::string(value) + "\n";
    const std::string body = with_options(*entry, name, value);
    for (const auto& line : lines_of(body)) {
        const auto words = split_cmdline(line);
        if (!words.empty() && words[0] == "title")
            text += "title wiredcap trial: " + std::string(name) + "=" + std::string(value) + "\n";
        else if (!words.empty() && words[0] == "sort-key") continue;  // never sorted first
        else text += line + "\n";
    }
    const auto armed = read_efi_string(root_, "LoaderEntryOneShot").value_or("");
    if (!armed.empty() && armed != kSdTrialEntry)
        return Error{"LoaderEntryOneShot already names " + armed + ": left alone, no trial"};
    if (auto w = root_.write(dir + std::string(kSdTrialEntry), text); !w) return w.error();
    if (auto r = set_oneshot(kSdTrialEntry); !r) {
        (void)root_.remove(dir + std::string(kSdTrialEntry));
        return r;
    }
    // Readings, not echoes: what systemd-boot will read is the variable as efivarfs holds it
    // now, and the entry as the ESP holds it; anything else is undone, no trial.
    const auto held = read_efi_string(root_, "LoaderEntryOneShot");
    std::optional<std::string> why;
    if (held.value_or("") != kSdTrialEntry)
        why = "bootctl set-oneshot exited 0, but LoaderEntryOneShot reads " +
              held.value_or("(unset)") + ", not " + std::string(kSdTrialEntry);
    else if (root_.read(dir + std::string(kSdTrialEntry)) != text)
        why = dir + std::string(kSdTrialEntry) + " does not read back as written";
    if (!why) return Ok{};
    const auto undone = cancel();
    return Error{*why + "; " +
                 (undone ? "undone" : "could NOT be undone: " + undone.error().message)};
}

Expected<bool> SystemdBoot::oneshot_armed() const {
    return read_efi_string(root_, "LoaderEntryOneShot").value_or("") == kSdTrialEntry;
}

Expected<std::vector<std::string>> SystemdBoot::cancel() const {
    std::vector<std::string> done;
    const auto armed = read_efi_string(root_, "LoaderEntryOneShot");
    if (armed && *armed == kSdTrialEntry) {
        if (auto r = set_oneshot(""); !r) return r.error();
        done.push_back("LoaderEntryOneShot=" + std::string(kSdTrialEntry) + " removed");
    } else if (armed && !armed->empty()) {
        done.push_back("LoaderEntryOneShot=" + *armed + " is not wiredcap's, left alone");
    }
    if (const auto e = esp()) {
        const std::string path = *e + "/loader/entries/" + std::string(kSdTrialEntry);
        const auto text = root_.read(path);
        if (text && text->rfind("# wiredcap", 0) == 0) {
            if (auto r = root_.remove(path); !r) return r.error();
            done.push_back(path + ": wiredcap's trial entry removed");
        }
    }
    return done;
}

Expected<Ok> SystemdBoot::edit_options(const std::string& path, std::string_view name,
                                       std::optional<std::string_view> value) const {
    const auto text = root_.read(path);
    if (!text) return Error{path + " is absent"};
    if (path == kKernelCmdline) {  // one command line, the whole file
        const std::string old = lines_of(*text).empty() ? std::string{} : lines_of(*text).front();
        return root_.write(path,
                           (value ? set_param(old, name, *value) : remove_param(old, name)) + "\n");
    }
    return root_.write(path, with_options(*text, name, value));
}

Expected<Ok> SystemdBoot::make_default(std::string_view name, std::string_view value) const {
    const auto id = default_entry();
    if (!id) return Error{"no default entry"};
    if (auto r = edit_options(*esp() + "/loader/entries/" + *id, name, value); !r) return r;
    if (root_.exists(kKernelCmdline)) return edit_options(std::string(kKernelCmdline), name, value);
    return Ok{};
}

Expected<Ok> SystemdBoot::remove_default(std::string_view name) const {
    const auto id = default_entry();
    if (!id) return Error{"no default entry"};
    if (auto r = edit_options(*esp() + "/loader/entries/" + *id, name, std::nullopt); !r) return r;
    if (root_.exists(kKernelCmdline))
        return edit_options(std::string(kKernelCmdline), name, std::nullopt);
    return Ok{};
}

std::optional<std::string> SystemdBoot::default_value(std::string_view name) const {
    const auto id = default_entry();
    if (!id) return std::nullopt;
    const auto text = root_.read(*esp() + "/loader/entries/" + *id);
    const auto options = text ? key_value(*text, "options") : std::nullopt;
    return options ? cmdline_value(*options, name) : std::nullopt;
}

std::vector<std::string> SystemdBoot::foreign_values(std::string_view name) const {
    std::vector<std::string> found;
    const auto e = esp();
    const auto id = default_entry();
    if (!e) return found;
    const std::string dir = *e + "/loader/entries";
    for (const auto& f : root_.list(dir)) {
        if (f == kSdTrialEntry || (id && f == *id)) continue;
        const auto text = root_.read(dir + "/" + f);
        const auto options = text ? key_value(*text, "options") : std::nullopt;
        if (const auto v = options ? cmdline_value(*options, name) : std::nullopt)
            found.push_back(dir + "/" + f + ": " + std::string(name) + "=" + *v + " in options");
    }
    return found;
}

std::string SystemdBoot::trial_places() const {
    return esp().value_or("<ESP>") + "/loader/entries/" + std::string(kSdTrialEntry) +
           ", LoaderEntryOneShot";
}

std::string SystemdBoot::default_place() const {
    return esp().value_or("<ESP>") + "/loader/entries/" + default_entry().value_or("?") +
           " options" + (root_.exists(kKernelCmdline) ? ", " + std::string(kKernelCmdline) : "");
}

DetectedBootLoader detect_boot_loader(const SystemRoot& root) {
    // systemd-boot announces itself (LoaderInfo, "systemd-boot 256.4"); GRUB sets no such
    // variable, so a machine without it that has GRUB's files boots GRUB.
    const auto info = read_efi_string(root, "LoaderInfo");
    if (info && info->rfind("systemd-boot", 0) == 0)
        return {std::make_unique<SystemdBoot>(root), ""};
    // GRUB that boots BLS entries (Fedora, RHEL: /boot/grub2, `blscfg` in grub.cfg).
    for (const char* dir : {"/boot/grub2", "/boot/grub"})
        if (const auto cfg = root.read(std::string(dir) + "/grub.cfg"); cfg && runs_blscfg(*cfg))
            return {std::make_unique<GrubBls>(root, dir), ""};
    if (root.exists("/boot/grub/grub.cfg")) return {std::make_unique<Grub>(root), ""};
    if (root.exists("/boot/grub2/grub.cfg"))
        return {nullptr,
                "/boot/grub2/grub.cfg without BLS entries (no blscfg): wiredcap follows Debian's "
                "update-grub layout (/boot/grub) or BLS entries only"};
    if (info)
        return {nullptr,
                "the boot loader is " + *info + " (LoaderInfo): neither GRUB nor systemd-boot"};
    return {nullptr, "neither GRUB (/boot/grub/grub.cfg) nor systemd-boot (LoaderInfo) found"};
}

}  // namespace wiredcap::linux_amd
