#include "wiredcap/linux/grub.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <sstream>

#include "wiredcap/linux/cmdline.hpp"
#include "wiredcap/linux/run.hpp"
#include "wiredcap/linux/shell_assignment.hpp"

namespace wiredcap::linux_amd {
namespace {

std::string trim(std::string_view s) {
    const auto a = s.find_first_not_of(" \t");
    if (a == std::string_view::npos) return {};
    const auto b = s.find_last_not_of(" \t\r");
    return std::string(s.substr(a, b - a + 1));
}

std::vector<std::string> lines_of(std::string_view text) {
    std::vector<std::string> out;
    std::istringstream in{std::string(text)};
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// 'Debian GNU/Linux' --class debian --id 'gnulinux-simple-x' {  ->  title and id
template <class Item>
void parse_header(const std::string& line, Item& e) {
    const auto q1 = line.find('\'');
    const auto q2 = q1 == std::string::npos ? q1 : line.find('\'', q1 + 1);
    if (q2 != std::string::npos) e.title = line.substr(q1 + 1, q2 - q1 - 1);
    const auto words = split_cmdline(line);
    for (std::size_t i = 0; i + 1 < words.size(); ++i) {
        if (words[i] != "--id" && words[i] != "$menuentry_id_option") continue;
        std::string id = words[i + 1];
        if (id.size() >= 2 && id.front() == '\'') id = id.substr(1, id.size() - 2);
        e.id = id;
    }
}

std::string linux_args_of(const std::string& line) {
    const auto words = split_cmdline(line);
    std::string args;
    for (std::size_t i = 2; i < words.size(); ++i) args += (args.empty() ? "" : " ") + words[i];
    return args;
}

// The name=value line in /etc/default/grub, e.g. GRUB_CMDLINE_LINUX_DEFAULT="quiet"; the value
// without quotes, or nullopt.
std::optional<std::string> shell_value(const std::string& text, std::string_view key) {
    std::optional<std::string> v;
    for (const auto& line : lines_of(text)) {
        const std::string t = trim(line);
        if (t.rfind(std::string(key) + "=", 0) != 0) continue;
        std::string value = t.substr(key.size() + 1);
        // Up to the closing quote, or the first blank: a comment after it is not the value.
        if (!value.empty() && (value.front() == '"' || value.front() == '\''))
            value = value.substr(1, value.find(value.front(), 1) - 1);
        else value = value.substr(0, value.find_first_of(" \t"));
        v = value;
    }
    return v;
}

// /sys/dev/block/MAJOR:MINOR of the device holding path (read under the same root).
std::optional<std::string> block_device_of(const std::filesystem::path& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return std::nullopt;
    return "/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" +
           std::to_string(minor(st.st_dev));
}

constexpr long kBtrfsMagic = 0x9123683e;
constexpr long kZfsMagic = 0x2fc12fc1;

}  // namespace

std::vector<MenuEntry> parse_menu_tree(std::string_view cfg) {
    std::vector<MenuEntry> entries;
    std::vector<MenuRef> submenus;   // the open ones
    std::vector<int> next_index{0};  // per open menu level: the next item's position
    int functions = 0;               // open `function name {` blocks (00_header's)
    std::string section;
    bool in_entry = false;
    MenuEntry current;
    for (const auto& raw : lines_of(cfg)) {
        const std::string line = trim(raw);
        if (in_entry) {
            if (line == "}") {
                entries.push_back(current);
                in_entry = false;
                continue;
            }
            current.lines.push_back(raw);
            if (const auto words = split_cmdline(line); !words.empty() && words[0] == "linux") {
                current.image = words.size() > 1 ? words[1] : std::string{};
                current.linux_args = linux_args_of(line);
            }
            continue;
        }
        if (line.rfind("### BEGIN /etc/grub.d/", 0) == 0)
            section = line.substr(22, line.find(' ', 22) - 22);
        if (line.rfind("menuentry ", 0) == 0) {
            current = MenuEntry{};
            parse_header(line, current);
            current.index = next_index.back()++;
            current.submenus = submenus;
            current.section = section;
            in_entry = true;
        } else if (line.rfind("submenu ", 0) == 0) {
            MenuRef ref;
            parse_header(line, ref);
            ref.index = next_index.back()++;
            submenus.push_back(ref);
            next_index.push_back(0);
        } else if (line.rfind("function ", 0) == 0) {
            ++functions;
        } else if (line == "}" && functions > 0) {
            --functions;
        } else if (line == "}" && !submenus.empty()) {
            submenus.pop_back();
            next_index.pop_back();
        }
    }
    return entries;
}

std::vector<MenuEntry> parse_menu_entries(std::string_view cfg) {
    std::vector<MenuEntry> top;
    for (auto& e : parse_menu_tree(cfg))
        if (e.submenus.empty()) top.push_back(std::move(e));
    return top;
}

std::optional<MenuEntry> resolve_menu_entry(const std::vector<MenuEntry>& tree,
                                            std::string_view spec) {
    std::vector<std::string> parts;
    const std::string whole = spec.empty() ? std::string("0") : std::string(spec);
    for (std::size_t at = 0;;) {
        const auto gt = whole.find('>', at);
        parts.push_back(whole.substr(at, gt == std::string::npos ? gt : gt - at));
        if (gt == std::string::npos) break;
        at = gt + 1;
    }
    auto names = [](const std::string& part, const std::string& title, const std::string& id,
                    int index) {
        return part == title || (!id.empty() && part == id) || part == std::to_string(index);
    };
    for (const auto& e : tree) {
        if (e.submenus.size() + 1 != parts.size()) continue;
        bool match = names(parts.back(), e.title, e.id, e.index);
        for (std::size_t k = 0; match && k < e.submenus.size(); ++k)
            match = names(parts[k], e.submenus[k].title, e.submenus[k].id, e.submenus[k].index);
        if (match) return e;
    }
    return std::nullopt;
}

std::optional<std::string> Grub::unusable() const {
    const auto cfg = root_.read(kGrubCfg);
    if (!cfg) return std::string(kGrubCfg) + " is absent: GRUB is not the boot loader here";
    if (!root_.exists(kGrubEnv))
        return std::string(kGrubEnv) + " is absent: GRUB cannot boot an entry once";
    if (cfg->find("next_entry") == std::string::npos)
        return std::string(kGrubCfg) + " does not honour next_entry: no one-shot boot";
    if (cfg->find("custom.cfg") == std::string::npos)
        return std::string(kGrubCfg) +
               " does not source custom.cfg: the trial entry would not be seen";
    if (parse_menu_entries(*cfg).empty()) return std::string(kGrubCfg) + " has no menu entry";
    const auto defaults = root_.read(kGrubDefaults);
    if (!defaults) return std::string(kGrubDefaults) + " is absent: the default cannot be changed";
    const auto grub_default = shell_value(*defaults, "GRUB_DEFAULT");
    if (grub_default && *grub_default != "0" && *grub_default != "saved")
        return "GRUB_DEFAULT=" + *grub_default + " in " + std::string(kGrubDefaults) +
               ": wiredcap follows only GRUB_DEFAULT=0 (the first entry) or saved";
    // update-grub sources grub.d after /etc/default/grub: a GRUB_DEFAULT there wins.
    for (const auto& f : root_.list(kGrubDefaultsDir)) {
        const std::string path = std::string(kGrubDefaultsDir) + "/" + f;
        if (const auto other = root_.read(path); other && mentions(*other, "GRUB_DEFAULT"))
            return path + " sets GRUB_DEFAULT: wiredcap follows only /etc/default/grub's";
    }
    if (grub_default && *grub_default == "saved") {
        if (cfg->find("${saved_entry}") == std::string::npos)
            return "GRUB_DEFAULT=saved, but " + std::string(kGrubCfg) +
                   " does not boot saved_entry: run update-grub first";
        auto entry = default_entry();
        if (!entry) return entry.error().message;
        // update-grub writes GRUB_CMDLINE_LINUX_DEFAULT into 10_linux's normal entries only: a
        // saved recovery or custom entry would never carry the value made default.
        if (entry->section != "10_linux" || entry->id.find("-recovery-") != std::string::npos)
            return "saved_entry boots '" + entry->title +
                   "', which update-grub does not give GRUB_CMDLINE_LINUX_DEFAULT (a recovery or "
                   "custom entry): choose a normal one with grub-set-default";
    }
    if (auto line = cmdline_default_line(); !line) return line.error().message;
    if (!root_.exists(kUpdateGrub))
        return std::string(kUpdateGrub) + " is absent: the default cannot be rebuilt";
    return grubenv_unkept(root_, "/boot/grub");
}

namespace {

// The machine's own grub-editenv (grub2-editenv on Fedora), as update-grub is: on "/" the one
// run_program would find; a scratch root may bring its own, else the host's (the real one).
std::string editenv_program(const SystemRoot& root) {
    for (const char* name :
         {"/usr/bin/grub-editenv", "/usr/sbin/grub-editenv", "/usr/bin/grub2-editenv"})
        if (const auto own = root.at(name); ::access(own.c_str(), X_OK) == 0) return own.string();
    return "grub-editenv";
}

}  // namespace

Expected<Ok> grub_editenv(const SystemRoot& root, std::string_view env,
                          const std::vector<std::string>& args) {
    std::vector<std::string> argv{editenv_program(root), root.at(env).string()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_program(argv);
    if (!r) return r.error();
    if (r->exit_code != 0)
        return Error{"grub-editenv " + args.front() + " failed (exit " +
                     std::to_string(r->exit_code) + ")"};
    return Ok{};
}

Expected<std::map<std::string, std::string>> grub_env(const SystemRoot& root,
                                                      std::string_view env) {
    auto r = run_program({editenv_program(root), root.at(env).string(), "list"});
    if (!r) return r.error();
    if (r->exit_code != 0) return Error{"grub-editenv list failed on " + std::string(env)};
    std::map<std::string, std::string> vars;
    for (const auto& line : lines_of(r->out)) {
        const auto eq = line.find('=');
        if (eq != std::string::npos) vars[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return vars;
}

std::optional<std::string> grubenv_unkept(const SystemRoot& root, std::string_view dir) {
    // GRUB cannot write grubenv on btrfs or ZFS: next_entry would never be cleared, and a
    // trial that hangs would be booted again and again.
    struct statfs fs {};
    if (::statfs(root.at(dir).c_str(), &fs) == 0 &&
        (fs.f_type == kBtrfsMagic || fs.f_type == kZfsMagic))
        return std::string(dir) + " is on btrfs or ZFS, where GRUB cannot clear next_entry";
    // Nor on device-mapper (LVM, LUKS) or md RAID: GRUB has no write support there.
    if (const auto dev = block_device_of(root.at(dir));
        dev &&
        (root.exists(*dev + "/dm") || root.exists(*dev + "/md") || root.exists(*dev + "/../md")))
        return std::string(dir) +
               " is on device-mapper (LVM, LUKS) or md RAID, where GRUB cannot clear next_entry";
    return std::nullopt;
}

Expected<Ok> Grub::editenv(const std::vector<std::string>& args) const {
    return grub_editenv(root_, kGrubEnv, args);
}

Expected<std::map<std::string, std::string>> Grub::env() const { return grub_env(root_, kGrubEnv); }

Expected<MenuEntry> Grub::default_entry() const {
    const auto cfg = root_.read(kGrubCfg);
    if (!cfg) return Error{std::string(kGrubCfg) + " is absent"};
    const auto entries = parse_menu_entries(*cfg);
    if (entries.empty()) return Error{std::string(kGrubCfg) + " has no menu entry"};
    const auto defaults = root_.read(kGrubDefaults);
    const auto grub_default = defaults ? shell_value(*defaults, "GRUB_DEFAULT") : std::nullopt;
    if (!grub_default || *grub_default != "saved") return entries.front();
    // 00_header: `set default="${saved_entry}"`; unset or empty is the first entry.
    auto vars = env();
    if (!vars) return vars.error();
    const auto it = vars->find("saved_entry");
    const std::string saved = it == vars->end() ? std::string{} : it->second;
    auto entry = resolve_menu_entry(parse_menu_tree(*cfg), saved);
    if (!entry)
        return Error{std::string(kGrubEnv) + "'s saved_entry=" + saved + " names no entry of " +
                     std::string(kGrubCfg) + ": set one with grub-set-default"};
    return *entry;
}

Expected<Ok> Grub::schedule(std::string_view name, std::string_view value) const {
    if (auto why = unusable()) return Error{*why};
    const auto existing = root_.read(kGrubCustom);
    if (existing && existing->rfind(kCustomMarker, 0) != 0)
        return Error{std::string(kGrubCustom) +
                     " exists and is not wiredcap's: left alone, no trial"};
    auto entry = default_entry();
    if (!entry) return entry.error();
    std::string text = std::string(kCustomMarker) + ": boots once with " + std::string(name) + "=" +
                       std::string(value) + ".\n# `wiredcap-system ttm-reset` removes this file.\n";
    text += "menuentry 'wiredcap trial: " + std::string(name) + "=" + std::string(value) +
            "' --id " + std::string(kTrialEntryId) + " {\n";
    for (const auto& line : entry->lines) {
        const std::string t = trim(line);
        const auto words = split_cmdline(t);
        if (!words.empty() && words[0] == "linux") {
            const std::string args = set_param(entry->linux_args, name, value);
            text += "\tlinux " + (words.size() > 1 ? words[1] : std::string{}) + " " + args + "\n";
        } else if (!words.empty() && words[0] == "savedefault") {
            // GRUB_SAVEDEFAULT=true: the trial must never become saved_entry (00_header's
            // boot_once guard already says so; this entry does not rely on it).
            continue;
        } else {
            text += line + "\n";
        }
    }
    text += "}\n";
    // A one-shot armed by someone else (grub-reboot) would be overwritten: not ours to take.
    auto before = env();
    if (!before) return before.error();
    if (const auto it = before->find("next_entry");
        it != before->end() && !it->second.empty() && it->second != kTrialEntryId)
        return Error{std::string(kGrubEnv) + " already has next_entry=" + it->second +
                     " (grub-reboot?): left alone, no trial"};
    if (auto w = root_.write(kGrubCustom, text); !w) return w.error();
    if (auto e = editenv({"set", "next_entry=" + std::string(kTrialEntryId)}); !e) {
        (void)root_.remove(kGrubCustom);
        return e;
    }
    // Readings, not echoes: grub-editenv exiting 0 is a claim. What GRUB will read is what
    // `grub-editenv list` and custom.cfg hold now; anything else is undone, no trial.
    if (auto why = oneshot_mismatch(text)) {
        const auto undone = cancel();
        return Error{*why + "; " +
                     (undone ? "undone" : "could NOT be undone: " + undone.error().message)};
    }
    return Ok{};
}

std::optional<std::string> Grub::oneshot_mismatch(const std::string& entry_text) const {
    const auto vars = env();
    if (!vars) return "after grub-editenv set, " + vars.error().message;
    const auto it = vars->find("next_entry");
    const std::string held = it == vars->end() ? std::string("(unset)") : it->second;
    if (held != kTrialEntryId)
        return "grub-editenv set exited 0, but " + std::string(kGrubEnv) +
               " reads next_entry=" + held + ", not " + std::string(kTrialEntryId);
    if (root_.read(kGrubCustom) != entry_text)
        return std::string(kGrubCustom) + " does not read back as written";
    return std::nullopt;
}

Expected<std::vector<std::string>> Grub::cancel() const {
    std::vector<std::string> done;
    if (root_.exists(kGrubEnv)) {
        auto vars = env();
        if (!vars) return vars.error();
        const auto it = vars->find("next_entry");
        if (it != vars->end() && it->second == kTrialEntryId) {
            if (auto r = editenv({"unset", "next_entry"}); !r) return r.error();
            done.push_back(std::string(kGrubEnv) + ": next_entry=" + std::string(kTrialEntryId) +
                           " removed");
        } else if (it != vars->end() && !it->second.empty()) {
            done.push_back(std::string(kGrubEnv) + ": next_entry=" + it->second +
                           " is not wiredcap's, left alone");
        }
    }
    const auto custom = root_.read(kGrubCustom);
    if (custom && custom->rfind(kCustomMarker, 0) == 0) {
        if (auto r = root_.remove(kGrubCustom); !r) return r.error();
        done.push_back(std::string(kGrubCustom) + ": wiredcap's trial entry removed");
    } else if (custom) {
        done.push_back(std::string(kGrubCustom) + ": not wiredcap's, left alone");
    }
    return done;
}

std::optional<std::string> Grub::cmdline_value_of(std::string_view key,
                                                  std::string_view name) const {
    const auto text = root_.read(kGrubDefaults);
    if (!text) return std::nullopt;
    const auto line = shell_value(*text, key);
    return line ? cmdline_value(*line, name) : std::nullopt;
}

std::optional<std::string> Grub::default_value(std::string_view name) const {
    return cmdline_value_of("GRUB_CMDLINE_LINUX_DEFAULT", name);
}

std::vector<std::string> Grub::foreign_values(std::string_view name) const {
    std::vector<std::string> found;
    if (const auto v = cmdline_value_of("GRUB_CMDLINE_LINUX", name))
        found.push_back(std::string(kGrubDefaults) + ": " + std::string(name) + "=" + *v +
                        " in GRUB_CMDLINE_LINUX");
    return found;
}

std::string Grub::trial_places() const {
    return std::string(kGrubCustom) + ", next_entry in " + std::string(kGrubEnv);
}

std::string Grub::default_place() const {
    return std::string(kGrubDefaults) + " GRUB_CMDLINE_LINUX_DEFAULT (then update-grub)";
}

Expected<bool> Grub::oneshot_armed() const {
    auto vars = env();
    if (!vars) return vars.error();
    const auto it = vars->find("next_entry");
    return it != vars->end() && it->second == kTrialEntryId;
}

Expected<std::optional<ShellAssignment>> Grub::cmdline_default_line() const {
    constexpr std::string_view key = "GRUB_CMDLINE_LINUX_DEFAULT";
    const auto text = root_.read(kGrubDefaults);
    if (!text) return Error{std::string(kGrubDefaults) + " is absent"};
    // update-grub sources these after /etc/default/grub: an edit there would not count.
    for (const auto& f : root_.list(kGrubDefaultsDir)) {
        const std::string path = std::string(kGrubDefaultsDir) + "/" + f;
        const auto other = root_.read(path);
        if (f.size() > 4 && f.substr(f.size() - 4) == ".cfg" && other && mentions(*other, key))
            return Error{path + " sets " + std::string(key) + " after " +
                         std::string(kGrubDefaults) + ": wiredcap's edit would not count"};
    }
    auto found = find_assignment(*text, key);
    if (!found) return Error{std::string(kGrubDefaults) + ": " + found.error().message};
    return found;
}

Expected<Ok> Grub::edit_cmdline_default(std::string_view name,
                                        std::optional<std::string_view> value) const {
    auto found = cmdline_default_line();
    if (!found) return found.error();
    const std::string old = *found ? (*found)->value : std::string{};
    const std::string now = value ? set_param(old, name, *value) : remove_param(old, name);
    const auto text = root_.read(kGrubDefaults);
    if (!text) return Error{std::string(kGrubDefaults) + " is absent"};
    if (auto w = root_.write(kGrubDefaults,
                             with_assignment(*text, "GRUB_CMDLINE_LINUX_DEFAULT", *found, now));
        !w)
        return w.error();
    return update_grub();
}

Expected<Ok> Grub::make_default(std::string_view name, std::string_view value) const {
    const auto before = root_.read(kGrubDefaults);
    if (!before) return Error{std::string(kGrubDefaults) + " is absent"};
    if (auto e = edit_cmdline_default(name, value); !e) return e;
    // Read back what GRUB will boot: update-grub can exit 0 and write another file, or a
    // setting sourced later can win; then nothing is made default.
    const auto entry = default_entry();
    const auto now = entry ? cmdline_value(entry->linux_args, name) : std::nullopt;
    if (now && *now == value) return Ok{};
    // Put the admin's file back: a parameter wiredcap wrote but does not own would be left
    // behind by reset as "not wiredcap's".
    const bool restored = root_.write(kGrubDefaults, *before) && update_grub();
    return Error{"update-grub ran, but " + std::string(kGrubCfg) + "'s default entry has " +
                 std::string(name) + "=" + now.value_or("(none)") + ", not " + std::string(value) +
                 "; " + std::string(kGrubDefaults) +
                 (restored ? " restored" : " could NOT be restored")};
}

Expected<Ok> Grub::remove_default(std::string_view name) const {
    return edit_cmdline_default(name, std::nullopt);
}

Expected<Ok> Grub::update_grub() const {
    auto r = run_program({root_.at(kUpdateGrub).string()});
    if (!r) return r.error();
    if (r->exit_code != 0)
        return Error{"update-grub failed (exit " + std::to_string(r->exit_code) + ")"};
    return Ok{};
}

}  // namespace wiredcap::linux_amd
