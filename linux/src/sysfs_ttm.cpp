#include "wiredcap/linux/sysfs_ttm.hpp"

#include <unistd.h>

#include <array>

#include "wiredcap/linux/cmdline.hpp"

namespace wiredcap::linux_amd {
namespace {

using kernel::Sourced;
using kernel::TtmModule;
using units::Bytes;
using units::Pages;
using units::PageSize;

constexpr std::array kModules{TtmModule::amdttm, TtmModule::amd_ttm, TtmModule::ttm};

std::string param_path(TtmModule m, std::string_view param) {
    return "/sys/module/" + std::string(kernel::module_name(m)) + "/parameters/" +
           std::string(param);
}

// The first "<key> N" or "<key>: N ..." line's N.
std::optional<std::uint64_t> keyed_number(const std::string& text, std::string_view key) {
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto end = text.find('\n', pos);
        const std::string line =
            text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        pos = end == std::string::npos ? text.size() : end + 1;
        if (line.rfind(key, 0) != 0) continue;
        auto rest = line.substr(key.size());
        const auto first = rest.find_first_not_of(" \t:");
        if (first == std::string::npos) return std::nullopt;
        rest = rest.substr(first);
        return parse_u64(rest.substr(0, rest.find_first_of(" \t")));
    }
    return std::nullopt;
}

Sourced<PageSize> read_page_size(const SystemRoot& root) {
    if (root.is_real()) {
        const long b = ::sysconf(_SC_PAGESIZE);
        auto size = b > 0 ? PageSize::from_bytes(static_cast<std::uint64_t>(b)) : std::nullopt;
        return {size, "sysconf(_SC_PAGESIZE)", size ? "" : "not a page size wiredcap knows"};
    }
    const std::string src = "/proc/self/smaps";
    const auto text = root.read(src);
    const auto kib = text ? keyed_number(*text, "KernelPageSize") : std::nullopt;
    auto size = kib ? PageSize::from_bytes(*kib * 1024) : std::nullopt;
    return {size, src + " KernelPageSize", size ? "" : "absent or not a page size"};
}

Sourced<TtmModule> detect_module(const SystemRoot& root) {
    std::vector<TtmModule> present;
    std::vector<TtmModule> holding;
    for (auto m : kModules) {
        if (!root.exists(param_path(m, "pages_limit"))) continue;
        present.push_back(m);
        if (root.exists("/sys/module/" + std::string(kernel::module_name(m)) + "/holders/amdgpu"))
            holding.push_back(m);
    }
    const std::string src = "/sys/module/{amdttm,amd_ttm,ttm}/parameters/pages_limit";
    if (present.empty()) return {std::nullopt, src, "none of amdttm, amd_ttm and ttm is loaded"};
    if (holding.size() == 1) {
        const std::string name(kernel::module_name(holding.front()));
        return {holding.front(), "/sys/module/" + name + "/holders/amdgpu",
                "amdgpu depends on " + name};
    }
    if (present.size() == 1 && holding.empty()) {
        const std::string name(kernel::module_name(present.front()));
        return {present.front(), param_path(present.front(), "pages_limit"),
                "the only TTM with pages_limit (built in, or no holders list)"};
    }
    // Two candidates and no single holder: which one amdgpu reads is not known, so nothing is
    // scheduled; every name is shown.
    const auto& named = holding.empty() ? present : holding;
    std::string names;
    for (auto m : named)
        names += (names.empty() ? "" : " and ") + std::string(kernel::module_name(m));
    return {std::nullopt, src,
            names +
                (holding.empty() ? " are loaded and amdgpu's holder is none of them"
                                 : " are all listed as holding amdgpu") +
                ": which one amdgpu reads is unknown"};
}

Sourced<Pages> pages_from(const std::optional<std::string>& text, std::optional<PageSize> size,
                          std::string source, std::string_view absent) {
    if (!text) return {std::nullopt, std::move(source), std::string(absent)};
    const auto n = parse_u64(*text);
    if (!n) return {std::nullopt, std::move(source), "not a page count: " + *text};
    if (!size) return {std::nullopt, std::move(source), "page size unknown"};
    return {Pages::from_count(*n, *size), std::move(source), ""};
}

Sourced<Bytes> bytes_from(const SystemRoot& root, const std::string& path) {
    const auto text = root.read_value(path);
    const auto n = text ? parse_u64(*text) : std::nullopt;
    if (!n) return {std::nullopt, path, text ? "not a byte count" : "absent"};
    return {Bytes::from_count(*n), path, ""};
}

// The first DRM card driven by amdgpu that reports a GTT size.
std::optional<std::string> amdgpu_card(const SystemRoot& root) {
    for (const auto& name : root.list("/sys/class/drm")) {
        if (name.rfind("card", 0) != 0 || name.find('-') != std::string::npos) continue;
        const std::string dev = "/sys/class/drm/" + name + "/device";
        if (root.exists(dev + "/mem_info_gtt_total")) return dev;
    }
    return std::nullopt;
}

Sourced<Bytes> kfd_gpu_bank(const SystemRoot& root) {
    const std::string nodes = "/sys/class/kfd/kfd/topology/nodes";
    for (const auto& node : root.list(nodes)) {
        const auto props = root.read(nodes + "/" + node + "/properties");
        const auto simd = props ? keyed_number(*props, "simd_count") : std::nullopt;
        if (!simd || *simd == 0) continue;  // a CPU node
        const std::string bank = nodes + "/" + node + "/mem_banks/0/properties";
        const auto text = root.read(bank);
        const auto size = text ? keyed_number(*text, "size_in_bytes") : std::nullopt;
        if (!size) return {std::nullopt, bank, "absent"};
        return {Bytes::from_count(*size), bank, ""};
    }
    return {std::nullopt, nodes, "no GPU node in the KFD topology"};
}

}  // namespace

kernel::TtmReadings SysfsTtmKernel::read() {
    kernel::TtmReadings r;
    r.page_size = read_page_size(root_);
    r.amdgpu_loaded = root_.exists("/sys/module/amdgpu");
    r.module = detect_module(root_);

    const auto cmdline = root_.read_value("/proc/cmdline");
    r.cmdline = {cmdline, "/proc/cmdline", cmdline ? "" : "absent"};
    const auto boot_id = root_.read_value("/proc/sys/kernel/random/boot_id");
    r.boot_id = {boot_id, "/proc/sys/kernel/random/boot_id", boot_id ? "" : "absent"};

    if (r.module.value) {
        const auto m = *r.module.value;
        r.pages_limit = pages_from(root_.read_value(param_path(m, "pages_limit")),
                                   r.page_size.value, param_path(m, "pages_limit"), "absent");
        const std::string name = std::string(kernel::module_name(m)) + ".pages_limit";
        r.cmdline_pages_limit =
            pages_from(cmdline ? cmdline_value(*cmdline, name) : std::nullopt, r.page_size.value,
                       "/proc/cmdline " + name, "not on the command line");
        for (auto other : kModules) {
            const std::string other_name = std::string(kernel::module_name(other)) + ".pages_limit";
            if (other != m && cmdline && cmdline_value(*cmdline, other_name))
                r.ignored_parameters.push_back(other_name + "=" +
                                               *cmdline_value(*cmdline, other_name));
        }
    } else {
        r.pages_limit = {std::nullopt, r.module.source, r.module.note};
        r.cmdline_pages_limit = {std::nullopt, "/proc/cmdline", "no TTM module"};
    }

    const std::string gtt_param = "/sys/module/amdgpu/parameters/gttsize";
    const auto gtt = root_.read_value(gtt_param);
    if (gtt && *gtt != "-1") r.gttsize = {*gtt, gtt_param, ""};
    else if (cmdline && cmdline_value(*cmdline, "amdgpu.gttsize"))
        r.gttsize = {*cmdline_value(*cmdline, "amdgpu.gttsize"), "/proc/cmdline amdgpu.gttsize",
                     ""};
    else r.gttsize = {std::nullopt, gtt_param, gtt ? "unset (-1)" : "absent"};

    if (const auto card = amdgpu_card(root_)) {
        r.gtt_total = bytes_from(root_, *card + "/mem_info_gtt_total");
        r.vram_total = bytes_from(root_, *card + "/mem_info_vram_total");
    } else {
        r.gtt_total = {std::nullopt, "/sys/class/drm/card*/device/mem_info_gtt_total",
                       "no amdgpu card"};
        r.vram_total = {std::nullopt, "/sys/class/drm/card*/device/mem_info_vram_total",
                        "no amdgpu card"};
    }
    r.kfd_mem_bank = kfd_gpu_bank(root_);

    const auto uptime = root_.read_value("/proc/uptime");
    const auto whole =
        uptime ? parse_u64(uptime->substr(0, uptime->find_first_of(". "))) : std::nullopt;
    r.uptime_s = {whole, "/proc/uptime", whole ? "" : "absent"};

    const auto meminfo = root_.read("/proc/meminfo");
    const auto kib = meminfo ? keyed_number(*meminfo, "MemTotal") : std::nullopt;
    if (kib)
        r.mem_total = {units::Bytes(*units::KiB::from_count(*kib)), "/proc/meminfo MemTotal", ""};
    else r.mem_total = {std::nullopt, "/proc/meminfo MemTotal", "absent"};
    return r;
}

}  // namespace wiredcap::linux_amd
