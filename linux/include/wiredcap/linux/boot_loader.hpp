// The boot loaders wiredcap can try a kernel parameter with for ONE boot, behind one
// interface: GRUB (grub.hpp), GRUB booting BLS entries (grub_bls.hpp) and systemd-boot
// (systemd_boot.hpp). Which one boots this machine is read, never guessed: systemd-boot says
// so itself in the EFI variable LoaderInfo; otherwise GRUB's files decide (a grub.cfg that
// runs blscfg: BLS entries); with neither, there is no trial (detect_boot_loader).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/linux/system_root.hpp"
#include "wiredcap/expected.hpp"

namespace wiredcap::linux_amd {

class BootLoader {
public:
    BootLoader() = default;
    BootLoader(const BootLoader&) = delete;
    BootLoader& operator=(const BootLoader&) = delete;
    virtual ~BootLoader() = default;

    [[nodiscard]] virtual std::string_view name() const = 0;
    // Why a one-shot trial cannot be run here, or nullopt when it can.
    [[nodiscard]] virtual std::optional<std::string> unusable() const = 0;
    // A trial entry (the default's, with `name=value`) booted once by the next boot only.
    [[nodiscard]] virtual Expected<Ok> schedule(std::string_view name,
                                                std::string_view value) const = 0;
    // Whether wiredcap's one-shot is still waiting to be booted.
    [[nodiscard]] virtual Expected<bool> oneshot_armed() const = 0;
    // Disarms wiredcap's one-shot and removes its trial entry; one line per place touched or
    // left alone.
    [[nodiscard]] virtual Expected<std::vector<std::string>> cancel() const = 0;
    // `name=value` on the default entry's command line (replacing an earlier one).
    [[nodiscard]] virtual Expected<Ok> make_default(std::string_view name,
                                                    std::string_view value) const = 0;
    [[nodiscard]] virtual Expected<Ok> remove_default(std::string_view name) const = 0;
    // The value of `name` where make_default writes it, if any.
    [[nodiscard]] virtual std::optional<std::string> default_value(std::string_view name) const = 0;
    // Other places of this boot loader's configuration that set `name`, which wiredcap never
    // writes: "<file>: <name>=<value> in <what>".
    [[nodiscard]] virtual std::vector<std::string> foreign_values(std::string_view name) const = 0;
    // Where the trial and the default are written, for messages.
    [[nodiscard]] virtual std::string trial_places() const = 0;
    [[nodiscard]] virtual std::string default_place() const = 0;
};

struct DetectedBootLoader {
    std::unique_ptr<BootLoader> loader;  // null: none found
    std::string why_none;
};

[[nodiscard]] DetectedBootLoader detect_boot_loader(const SystemRoot& root);

}  // namespace wiredcap::linux_amd
