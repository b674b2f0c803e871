#include "wiredcap/linux/grub_bls.hpp"

#include <sstream>

#include "wiredcap/linux/cmdline.hpp"
#include "wiredcap/linux/grub.hpp"
#include "wiredcap/linux/shell_assignment.hpp"
#include "wiredcap/linux/systemd_boot.hpp"

namespace wiredcap::linux_amd {
namespace {

constexpr std::string_view kMarker = "# wiredcap trial entry";

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

bool ends_with(const std::string& s, std::string_view tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The value of `name` in a default file: an entry's options, or /etc/kernel/cmdline's line.
std::optional<std::string> value_in(const std::string& path, const std::string& text,
                                    std::string_view name) {
    const auto lines = lines_of(text);
    const auto line = path == kKernelCmdline
                          ? std::optional<std::string>(lines.empty() ? "" : lines[0])
                          : key_value(text, "options");
    return line ? cmdline_value(*line, name) : std::nullopt;
}

std::string edited(const std::string& path, const std::string& text, std::string_view name,
                   std::optional<std::string_view> value) {
    if (path != kKernelCmdline) return with_options(text, name, value);
    const std::string old = lines_of(text).empty() ? std::string{} : lines_of(text).front();
    return (value ? set_param(old, name, *value) : remove_param(old, name)) + "\n";
}

}  // namespace

bool runs_blscfg(const std::string& cfg) {
    for (const auto& line : lines_of(cfg)) {
        const auto words = split_cmdline(line);
        if (!words.empty() && words[0] == "blscfg") return true;
    }
    return false;
}

std::string GrubBls::trial_path() const {
    return std::string(kBlsEntries) + "/" + std::string(kBlsTrialId) + ".conf";
}

Expected<std::string> GrubBls::default_entry() const {
    auto vars = grub_env(root_, env_path());
    if (!vars) return vars.error();
    const auto it = vars->find("saved_entry");
    const std::string saved = it == vars->end() ? std::string{} : it->second;
    // Unset, blscfg's own sort order picks entry 0: wiredcap does not reproduce that order.
    if (saved.empty())
        return Error{env_path() + " has no saved_entry: set the default with grub2-set-default"};
    if (saved.find_first_of(">/") != std::string::npos ||
        saved.find_first_not_of("0123456789") == std::string::npos)
        return Error{"saved_entry=" + saved +
                     " is a position or a path, not a BLS entry id: set the default with "
                     "grub2-set-default ENTRY-ID"};
    const std::string path = std::string(kBlsEntries) + "/" + saved + ".conf";
    if (!root_.exists(path))
        return Error{"saved_entry=" + saved + " names no entry: " + path + " is absent"};
    return path;
}

std::optional<std::string> GrubBls::unusable() const {
    const auto cfg = root_.read(dir_ + "/grub.cfg");
    if (!cfg || !runs_blscfg(*cfg)) return dir_ + "/grub.cfg does not run blscfg";
    if (cfg->find("next_entry") == std::string::npos)
        return dir_ + "/grub.cfg does not honour next_entry: no one-shot boot";
    if (!root_.exists(env_path())) return env_path() + " is absent: GRUB cannot boot an entry once";
    const auto defaults = root_.read(kGrubDefaults).value_or("");
    const auto grub_default = find_assignment(defaults, "GRUB_DEFAULT");
    if (!grub_default || !*grub_default || (*grub_default)->value != "saved")
        return std::string(kGrubDefaults) +
               " does not set GRUB_DEFAULT=saved: wiredcap follows only saved_entry "
               "with BLS entries";
    auto entry = default_entry();
    if (!entry) return entry.error().message;
    const auto text = root_.read(*entry).value_or("");
    for (const char* key : {"uki", "efi"})
        if (key_value(text, key))
            return *entry + " starts a unified kernel image (`" + key + "`): not supported";
    if (!key_value(text, "linux")) return *entry + " has no `linux` line";
    const auto options = key_value(text, "options");
    // Fedora up to 32 wrote `options $kernelopts`, the command line kept in grubenv.
    if (!options || options->find('$') != std::string::npos)
        return *entry +
               "'s options are not a literal command line ($kernelopts): run "
               "grub2-mkconfig --update-bls-cmdline first";
    return grubenv_unkept(root_, dir_);
}

Expected<Ok> GrubBls::schedule(std::string_view name, std::string_view value) const {
    if (auto why = unusable()) return Error{*why};
    const auto before = grub_env(root_, env_path());
    if (!before) return before.error();
    if (const auto it = before->find("next_entry");
        it != before->end() && !it->second.empty() && it->second != kBlsTrialId)
        return Error{env_path() + " already has next_entry=" + it->second +
                     " (grub2-reboot?): left alone, no trial"};
    const auto existing = root_.read(trial_path());
    if (existing && existing->rfind(kMarker, 0) != 0)
        return Error{trial_path() + " exists and is not wiredcap's: no trial"};
    const auto entry = root_.read(*default_entry()).value_or("");
    const std::string param = std::string(name) + "=" + std::string(value);
    std::string text = std::string(kMarker) + ": boots once with " + param + "\n";
    for (const auto& line : lines_of(with_options(entry, name, value))) {
        const auto words = split_cmdline(line);
        if (!words.empty() && words[0] == "title") text += "title wiredcap trial: " + param + "\n";
        else text += line + "\n";
    }
    if (auto w = root_.write(trial_path(), text); !w) return w.error();
    if (auto e = grub_editenv(root_, env_path(), {"set", "next_entry=" + std::string(kBlsTrialId)});
        !e) {
        (void)root_.remove(trial_path());
        return e;
    }
    // Readings, not echoes: what GRUB will read is grubenv and the entry as they are now.
    std::string held = "(unreadable)";
    if (const auto vars = grub_env(root_, env_path()))
        held = vars->count("next_entry") != 0 ? vars->at("next_entry") : "(unset)";
    std::optional<std::string> why;
    if (held != kBlsTrialId)
        why = "grub-editenv set exited 0, but " + env_path() + " reads next_entry=" + held +
              ", not " + std::string(kBlsTrialId);
    else if (root_.read(trial_path()) != text)
        why = trial_path() + " does not read back as written";
    if (!why) return Ok{};
    const auto undone = cancel();
    return Error{*why + "; " +
                 (undone ? "undone" : "could NOT be undone: " + undone.error().message)};
}

Expected<bool> GrubBls::oneshot_armed() const {
    auto vars = grub_env(root_, env_path());
    if (!vars) return vars.error();
    const auto it = vars->find("next_entry");
    return it != vars->end() && it->second == kBlsTrialId;
}

Expected<std::vector<std::string>> GrubBls::cancel() const {
    std::vector<std::string> done;
    if (root_.exists(env_path())) {
        auto vars = grub_env(root_, env_path());
        if (!vars) return vars.error();
        const auto it = vars->find("next_entry");
        if (it != vars->end() && it->second == kBlsTrialId) {
            if (auto r = grub_editenv(root_, env_path(), {"unset", "next_entry"}); !r)
                return r.error();
            done.push_back(env_path() + ": next_entry=" + std::string(kBlsTrialId) + " removed");
        } else if (it != vars->end() && !it->second.empty()) {
            done.push_back(env_path() + ": next_entry=" + it->second +
                           " is not wiredcap's, left alone");
        }
    }
    const auto text = root_.read(trial_path());
    if (text && text->rfind(kMarker, 0) == 0) {
        if (auto r = root_.remove(trial_path()); !r) return r.error();
        done.push_back(trial_path() + ": wiredcap's trial entry removed");
    }
    return done;
}

std::vector<std::string> GrubBls::default_files() const {
    std::vector<std::string> files;
    for (const auto& f : root_.list(kBlsEntries))
        if (ends_with(f, ".conf") && f != std::string(kBlsTrialId) + ".conf")
            files.push_back(std::string(kBlsEntries) + "/" + f);
    if (root_.exists(kKernelCmdline)) files.emplace_back(kKernelCmdline);
    return files;
}

Expected<std::vector<std::pair<std::string, std::string>>> GrubBls::edit_all(
    std::string_view name, std::optional<std::string_view> value,
    std::optional<std::string> only_if) const {
    std::vector<std::pair<std::string, std::string>> before;
    for (const auto& path : default_files()) {
        const auto text = root_.read(path);
        if (!text) return Error{path + " is unreadable"};
        if (only_if && value_in(path, *text, name) != only_if) continue;
        if (auto w = root_.write(path, edited(path, *text, name, value)); !w) {
            for (const auto& [p, t] : before) (void)root_.write(p, t);
            return w.error();
        }
        before.emplace_back(path, *text);
    }
    return before;
}

Expected<Ok> GrubBls::make_default(std::string_view name, std::string_view value) const {
    auto entry = default_entry();
    if (!entry) return entry.error();
    auto before = edit_all(name, value, std::nullopt);
    if (!before) return before.error();
    // Read back what GRUB will boot by default: the saved entry's options.
    const auto now = default_value(name);
    if (now && *now == value) return Ok{};
    for (const auto& [p, t] : *before) (void)root_.write(p, t);
    return Error{*entry + " reads " + std::string(name) + "=" + now.value_or("(none)") + ", not " +
                 std::string(value) + " after the edit; every entry put back"};
}

Expected<Ok> GrubBls::remove_default(std::string_view name) const {
    // Only where it holds wiredcap's value, the default entry's: another value is not ours.
    const auto ours = default_value(name);
    if (!ours) return Ok{};
    auto before = edit_all(name, std::nullopt, ours);
    if (!before) return before.error();
    return Ok{};
}

std::optional<std::string> GrubBls::default_value(std::string_view name) const {
    const auto entry = default_entry();
    if (!entry) return std::nullopt;
    const auto text = root_.read(*entry);
    return text ? value_in(*entry, *text, name) : std::nullopt;
}

std::vector<std::string> GrubBls::foreign_values(std::string_view name) const {
    std::vector<std::string> found;
    const auto ours = default_value(name);
    for (const auto& path : default_files()) {
        const auto text = root_.read(path);
        const auto v = text ? value_in(path, *text, name) : std::nullopt;
        if (v && v != ours) found.push_back(path + ": " + std::string(name) + "=" + *v);
    }
    const auto defaults = root_.read(kGrubDefaults).value_or("");
    for (const auto& line : lines_of(defaults))
        if (line.rfind("GRUB_CMDLINE_LINUX=", 0) == 0 &&
            line.find(std::string(name) + "=") != std::string::npos)
            found.push_back(std::string(kGrubDefaults) + ": " + std::string(name) +
                            " in GRUB_CMDLINE_LINUX");
    return found;
}

std::string GrubBls::trial_places() const { return trial_path() + ", next_entry in " + env_path(); }

std::string GrubBls::default_place() const {
    return std::string(kBlsEntries) + "/*.conf options" +
           (root_.exists(kKernelCmdline) ? ", " + std::string(kKernelCmdline) : std::string{});
}

}  // namespace wiredcap::linux_amd
