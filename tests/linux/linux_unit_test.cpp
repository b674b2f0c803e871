// Unit tests of the Linux backend: pages, the band, command lines, grub.cfg, and readings and
// boot-loader detection on hand-made trees.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "wiredcap/linux/band.hpp"
#include "wiredcap/linux/boot_loader.hpp"
#include "wiredcap/linux/cmdline.hpp"
#include "wiredcap/linux/grub.hpp"
#include "wiredcap/linux/host.hpp"
#include "wiredcap/linux/sysfs_ttm.hpp"
#include "wiredcap/linux/systemd_boot.hpp"
#include "wiredcap/units/literals.hpp"
#include "wiredcap/units/pages.hpp"

using namespace wiredcap::linux_amd;
using namespace wiredcap::units;
using namespace wiredcap::units::literals;

namespace {
const PageSize k4K = *PageSize::from_bytes(4096);
const PageSize k16K = *PageSize::from_bytes(16384);
}  // namespace

TEST(Pages, PageSizeIsAReadingOfAPowerOfTwo) {
    EXPECT_FALSE(PageSize::from_bytes(0));
    EXPECT_FALSE(PageSize::from_bytes(4095));
    EXPECT_FALSE(PageSize::from_bytes(6144));
    EXPECT_FALSE(PageSize::from_bytes(2048));
    EXPECT_TRUE(PageSize::from_bytes(65536));
}

TEST(Pages, DescribeSaysPagesMibAndGib) {
    EXPECT_EQ(describe(*Pages::from_count(27648000, k4K)),
              "27648000 pages of 4 KiB (108000 MiB, 105.46 GiB)");
    EXPECT_EQ(describe(*Pages::from_count(16469033, k4K)),
              "16469033 pages of 4 KiB (64332.16 MiB, 62.82 GiB)");
}

TEST(Pages, BytesAreDescribedAsWholePagesAndTheRest) {
    EXPECT_EQ(describe(*Bytes::from_count(8192 + 512), k4K),
              "2 pages of 4 KiB (0.00 MiB, 0.00 GiB) + 512 bytes");
    EXPECT_EQ(describe(Bytes(4_GiB), k4K), "1048576 pages of 4 KiB (4096 MiB, 4 GiB)");
}

TEST(Pages, ConversionsFloorAndNeverOverflow) {
    EXPECT_EQ(floor_pages(Bytes(100_GiB), k4K).count(), 26214400U);
    EXPECT_EQ(floor_pages(*Bytes::from_count(8191), k4K).count(), 1U);
    EXPECT_FALSE(exact_pages(*Bytes::from_count(8191), k4K));
    EXPECT_FALSE(Pages::from_count(UINT64_MAX / 4096 + 1, k4K));
    EXPECT_EQ(Pages::from_count(3, k16K)->to_bytes().count(), 49152U);
}

TEST(Pages, DifferentPageSizesDoNotCompare) {
    EXPECT_THROW((void)(*Pages::from_count(1, k4K) == *Pages::from_count(1, k16K)),
                 PageSizeMismatch);
}

namespace {
const Bytes kStrix128 =
    *Bytes::from_count(131752264ULL * 1024);  // MemTotal, amd-ttm's docs: 125.65 GiB
const Pages p4k(std::uint64_t n) { return *Pages::from_count(n, k4K); }
}  // namespace

TEST(Band, BuiltInCoversWhatStrixHaloOwnersRun) {
    const auto band = builtin_ttm_band(kStrix128, k4K);
    ASSERT_TRUE(band);
    EXPECT_FALSE(band_refusal(*band, p4k(27648000),
                              std::nullopt));  // 108000 MiB (amdttm.pages_limit=27648000)
    EXPECT_FALSE(band_refusal(*band, p4k(31457280), std::nullopt));  // 120 GiB
    EXPECT_FALSE(
        band_refusal(*band, p4k(32505856), std::nullopt));  // 124 GiB (the toolboxes' value)
    EXPECT_FALSE(
        band_refusal(*band, floor_pages(Bytes(8_GiB), k4K), std::nullopt));  // below the default
    // MemTotal - 1 GiB, down to a page, is the top; one page above it is refused.
    EXPECT_EQ(band->high.to_bytes(), floor_pages(kStrix128 - Bytes(1_GiB), k4K).to_bytes());
    EXPECT_TRUE(band_refusal(*band, p4k(band->high.count() + 1), std::nullopt));
    EXPECT_FALSE(band->max_step);
}

TEST(Band, PolicyPermitsOwnersValuesInWholePages) {
    const auto band =
        policy_ttm_band("min = 16GiB\nmax = 120GiB\nreserve = 4GiB\nmax_step = 64GiB\n",
                        "/etc/wiredcap.conf", kStrix128, k4K);
    ASSERT_TRUE(band) << band.error().message;
    EXPECT_EQ(band->low.count(), 4194304U);
    EXPECT_EQ(band->high.count(), 31457280U);
    EXPECT_FALSE(band_refusal(*band, p4k(27648000), p4k(16469033)));  // 108000 MiB from the default
    EXPECT_FALSE(band_refusal(*band, p4k(31457280), p4k(16469033)));  // 120 GiB
    EXPECT_TRUE(band_refusal(*band, p4k(31457281), p4k(16469033)));   // one page above max
    EXPECT_TRUE(band_refusal(*band, p4k(31457280), p4k(4194304)));    // a step of 104 GiB > 64
    EXPECT_FALSE(band_refusal(*band, p4k(4194304), p4k(31457280)));   // lowering is never a step
}

TEST(Band, AboveMemTotalMinusTheReserveIsRefusedWhateverThePolicySays) {
    // 124 GiB with a 4 GiB reserve on 125.65 GiB: max is above MemTotal - reserve.
    EXPECT_FALSE(policy_ttm_band("min = 16GiB\nmax = 124GiB\nreserve = 4GiB\nmax_step = 8GiB\n",
                                 "p", kStrix128, k4K));
    // And no reserve below Linux's floor of 1 GiB.
    const auto low = policy_ttm_band(
        "min = 16GiB\nmax = 124GiB\nreserve = 512MiB\nmax_step = 8GiB\n", "p", kStrix128, k4K);
    ASSERT_FALSE(low);
    EXPECT_NE(low.error().message.find("below the floor of 1024 MiB"), std::string::npos)
        << low.error().message;
}

TEST(Band, ASizeThatIsNotWholePagesNamesBothNeighbours) {
    const auto e = whole_pages("the trial's size",
                               *Bytes::from_count(100ULL * 1024 * 1024 * 1024 + 1024), k4K);
    ASSERT_FALSE(e);
    EXPECT_NE(
        e.error().message.find(
            "either side are 26214400 pages of 4 KiB (102400 MiB, 100 GiB) and 26214401 pages"),
        std::string::npos)
        << e.error().message;
    // 64 KiB pages: 1 MiB is 16 pages, 1.5 MiB + 4 KiB is not whole.
    const PageSize k64K = *PageSize::from_bytes(65536);
    EXPECT_EQ(whole_pages("x", Bytes(1_MiB), k64K)->count(), 16U);
    EXPECT_FALSE(whole_pages("x", *Bytes::from_count(1536 * 1024 + 4096), k64K));
}

TEST(Band, ABrokenPolicyIsNoBand) {
    const PolicyText unreadable{"/etc/wiredcap.conf", wiredcap::Error{"owned by uid 1000"}};
    EXPECT_FALSE(ttm_band(unreadable, kStrix128, k4K));
    const PolicyText absent{"/etc/wiredcap.conf", std::optional<std::string>{}};
    EXPECT_TRUE(ttm_band(absent, kStrix128, k4K));
    EXPECT_FALSE(
        ttm_band(PolicyText{"p", std::optional<std::string>{"max = 1GiB\n"}}, kStrix128, k4K));
}

TEST(Cmdline, LastWinsAndDashIsUnderscore) {
    EXPECT_EQ(cmdline_value("ro ttm.pages_limit=1 quiet ttm.pages-limit=2", "ttm.pages_limit"),
              "2");
    EXPECT_FALSE(cmdline_value("ro amdttm.pages_limit=5", "ttm.pages_limit"));
    EXPECT_EQ(remove_param("quiet ttm.pages_limit=1 splash", "ttm.pages_limit"), "quiet splash");
    EXPECT_EQ(set_param("quiet ttm.pages_limit=1", "ttm.pages_limit", "9"),
              "quiet ttm.pages_limit=9");
    EXPECT_EQ(split_cmdline("a=\"b c\" d").size(), 2U);
}

TEST(Grub, MenuEntriesOfAGeneratedConfig) {
    const auto entries = parse_menu_entries(
        "if [ x ]; then\n  set a=b\nfi\n"
        "menuentry 'Debian' --class debian $menuentry_id_option 'gnulinux-simple-x' {\n"
        "\tlinux\t/vmlinuz root=UUID=1 ro quiet\n\tinitrd\t/initrd\n}\n"
        "submenu 'Advanced' {\n  menuentry 'Old' {\n\tlinux /old ro\n  }\n}\n"
        "menuentry 'wiredcap trial' --id wiredcap-trial {\n\tlinux /vmlinuz ro ttm.pages_limit=5\n}\n");
    ASSERT_EQ(entries.size(), 2U);
    EXPECT_EQ(entries[0].title, "Debian");
    EXPECT_EQ(entries[0].id, "gnulinux-simple-x");
    EXPECT_EQ(entries[0].linux_args, "root=UUID=1 ro quiet");
    EXPECT_EQ(entries[1].id, "wiredcap-trial");
}

// GRUB numbers a menu's items with its submenus counted, and a default names each level by
// number, title or id, joined with ">" (grub-set-default, GRUB_DEFAULT).
TEST(Grub, DefaultNamesAnEntryThroughItsSubmenu) {
    const auto tree = parse_menu_tree(
        "function load_video {\n  insmod all_video\n}\n"
        "menuentry 'Debian' --id top {\n\tlinux /vmlinuz-new ro quiet\n}\n"
        "submenu 'Advanced' --id adv {\n"
        "\tmenuentry 'New' --id new {\n\t\tlinux /vmlinuz-new ro quiet\n\t}\n"
        "\tmenuentry 'Old' --id old {\n\t\tlinux /vmlinuz-old ro quiet\n\t}\n}\n"
        "menuentry 'Last' --id last {\n\tlinux /vmlinuz-new ro\n}\n");
    ASSERT_EQ(tree.size(), 4U);
    EXPECT_EQ(resolve_menu_entry(tree, "")->id, "top");
    EXPECT_EQ(resolve_menu_entry(tree, "1>1")->image, "/vmlinuz-old");
    EXPECT_EQ(resolve_menu_entry(tree, "Advanced>Old")->id, "old");
    EXPECT_EQ(resolve_menu_entry(tree, "adv>new")->title, "New");
    EXPECT_EQ(resolve_menu_entry(tree, "2")->id, "last");  // the submenu is item 1
    EXPECT_FALSE(resolve_menu_entry(tree, "1"));           // a submenu, not an entry
    EXPECT_FALSE(resolve_menu_entry(tree, "Old"));         // not at the top level
    EXPECT_EQ(
        parse_menu_entries("menuentry 'A' {\n}\nsubmenu 'S' {\nmenuentry 'B' {\n}\n}\n").size(),
        1U);
}

// ---- readings and boot-loader detection on hand-made trees -------------------------------

namespace {

class Tree {
public:
    Tree() {
        char tmpl[] = "/tmp/wiredcap-linux-unit.XXXXXX";
        dir_ = ::mkdtemp(tmpl);
    }
    ~Tree() { std::filesystem::remove_all(dir_); }
    Tree(const Tree&) = delete;
    Tree& operator=(const Tree&) = delete;
    void put(const std::string& path, const std::string& text) const {
        const auto p = std::filesystem::path(dir_) / path.substr(1);
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << text;
    }
    void mkdir(const std::string& path) const {
        std::filesystem::create_directories(std::filesystem::path(dir_) / path.substr(1));
    }
    [[nodiscard]] SystemRoot root() const { return SystemRoot(dir_); }

private:
    std::string dir_;
};

}  // namespace

TEST(Readings, BothModulesWithoutAHolderAreUnknownNotGuessed) {
    Tree t;
    t.put("/sys/module/ttm/parameters/pages_limit", "100\n");
    t.put("/sys/module/amdttm/parameters/pages_limit", "200\n");
    SysfsTtmKernel k(t.root());
    const auto r = k.read();
    EXPECT_FALSE(r.module.value);
    EXPECT_FALSE(r.pages_limit.value);
    t.mkdir("/sys/module/amdttm/holders/amdgpu");
    const auto r2 = k.read();
    ASSERT_TRUE(r2.module.value);
    EXPECT_EQ(*r2.module.value, wiredcap::kernel::TtmModule::amdttm);
}

TEST(Readings, AmdUnderscoreTtmIsTheModuleThatHoldsAmdgpu) {
    Tree t;
    t.put("/proc/self/smaps", "KernelPageSize:        4 kB\n");
    t.put("/sys/module/ttm/parameters/pages_limit", "100\n");
    t.put("/sys/module/amd_ttm/parameters/pages_limit", "200\n");
    SysfsTtmKernel k(t.root());
    const auto none = k.read();
    ASSERT_FALSE(none.module.value);
    // Two candidates and no holder: a refusal that names both.
    EXPECT_NE(none.module.note.find("amd_ttm and ttm"), std::string::npos) << none.module.note;
    t.mkdir("/sys/module/amd_ttm/holders/amdgpu");
    const auto r = k.read();
    ASSERT_TRUE(r.module.value);
    EXPECT_EQ(wiredcap::kernel::module_name(*r.module.value), "amd_ttm");
    ASSERT_TRUE(r.pages_limit.value);
    EXPECT_EQ(r.pages_limit.value->count(), 200U);
    // Both listed as holding amdgpu: unknown again, both named.
    t.mkdir("/sys/module/ttm/holders/amdgpu");
    const auto both = k.read();
    EXPECT_FALSE(both.module.value);
    EXPECT_NE(both.module.note.find("amd_ttm and ttm"), std::string::npos) << both.module.note;
}

TEST(Readings, PageSizeComesFromTheTreeAndAnOddOneIsUnknown) {
    Tree t;
    t.put("/proc/self/smaps", "KernelPageSize:       16 kB\n");
    t.put("/sys/module/ttm/parameters/pages_limit", "4\n");
    SysfsTtmKernel k(t.root());
    auto r = k.read();
    ASSERT_TRUE(r.page_size.value);
    EXPECT_EQ(r.page_size.value->bytes(), 16384U);
    EXPECT_EQ(r.pages_limit.value->to_bytes().count(), 65536U);
    t.put("/proc/self/smaps", "KernelPageSize:        3 kB\n");
    r = k.read();
    EXPECT_FALSE(r.page_size.value);
    EXPECT_FALSE(r.pages_limit.value);  // a count without a page size is no size
}

TEST(Readings, GttsizeOnTheCommandLineIsAConflict) {
    Tree t;
    t.put("/proc/cmdline", "ro quiet amdgpu.gttsize=57344\n");
    SysfsTtmKernel k(t.root());
    const auto r = k.read();
    ASSERT_TRUE(r.gttsize.value);
    EXPECT_EQ(*r.gttsize.value, "57344");
}

TEST(SystemdBoot, EfiStringsRoundTripAndRefuseNonAscii) {
    Tree t;
    t.put("/sys/firmware/efi/efivars/LoaderInfo-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f",
          efi_string_bytes("systemd-boot 257.7"));
    EXPECT_EQ(read_efi_string(t.root(), "LoaderInfo"), "systemd-boot 257.7");
    t.put("/sys/firmware/efi/efivars/LoaderEntryOneShot-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f",
          std::string("\x07\0\0\0\xe9\0\0\0", 8));
    EXPECT_FALSE(read_efi_string(t.root(), "LoaderEntryOneShot"));
    EXPECT_FALSE(read_efi_string(t.root(), "LoaderEntryDefault"));
}

TEST(BootLoaders, DetectedFromLoaderInfoThenGrubFilesElseNone) {
    Tree t;
    EXPECT_FALSE(detect_boot_loader(t.root()).loader);
    t.put("/boot/grub/grub.cfg", "menuentry 'x' {\n}\n");
    ASSERT_TRUE(detect_boot_loader(t.root()).loader);
    EXPECT_EQ(detect_boot_loader(t.root()).loader->name(), "GRUB");
    t.put("/sys/firmware/efi/efivars/LoaderInfo-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f",
          efi_string_bytes("systemd-boot 257.7"));
    EXPECT_EQ(detect_boot_loader(t.root()).loader->name(), "systemd-boot");
}

TEST(SystemdBoot, APatternDefaultIsRefused) {
    Tree t;
    t.mkdir("/sys/firmware/efi/efivars");
    t.put("/efi/loader/loader.conf", "default arch-*\n");
    t.put("/efi/loader/entries/arch-6.12.conf", "title A\noptions ro\n");
    const SystemdBoot sd(t.root());
    const auto why = sd.unusable();
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("pattern"), std::string::npos);
    t.put("/efi/loader/loader.conf", "default arch-6.12\n");
    EXPECT_FALSE(sd.unusable());
    EXPECT_EQ(sd.default_entry(), "arch-6.12.conf");
}

TEST(SystemdBoot, SeveralOptionsLinesCarryTheParameterOnce) {
    const std::string entry = "title A\noptions root=UUID=1 ttm.pages_limit=5\noptions quiet\n";
    EXPECT_EQ(with_options(entry, "ttm.pages_limit", "9"),
              "title A\noptions root=UUID=1\noptions quiet ttm.pages_limit=9\n");
    EXPECT_EQ(with_options(entry, "ttm.pages_limit", std::nullopt),
              "title A\noptions root=UUID=1\noptions quiet\n");
    EXPECT_EQ(with_options("title B\n", "ttm.pages_limit", "9"),
              "title B\noptions ttm.pages_limit=9\n");
}

// ---- /etc/default/grub: wiredcap edits its own parameter and nothing else -----------------

namespace {

// A tree whose update-grub writes a one-entry grub.cfg from GRUB_CMDLINE_LINUX_DEFAULT.
void with_update_grub(const Tree& t) {
    const std::string dir = t.root().at("/").string();
    t.put("/usr/sbin/update-grub",
          "#!/bin/sh\n. '" + dir + "/etc/default/grub'\nmkdir -p '" + dir +
              "/boot/grub'\nprintf \"menuentry 'D' {\\n\\tlinux /vmlinuz ro %s\\n}\\n\" "
              "\"$GRUB_CMDLINE_LINUX_DEFAULT\" >'" +
              dir + "/boot/grub/grub.cfg'\n");
    std::filesystem::permissions(t.root().at("/usr/sbin/update-grub"),
                                 std::filesystem::perms::owner_all);
}

}  // namespace

TEST(GrubDefaults, ATrailingCommentIsKeptAndTheParameterStaysInsideTheQuotes) {
    const Tree t;
    with_update_grub(t);
    const std::string original =
        "GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash\"  # mine\n";
    t.put("/etc/default/grub", original);
    const Grub grub(t.root());
    ASSERT_TRUE(grub.make_default("ttm.pages_limit", "26214400"));
    EXPECT_EQ(
        *t.root().read("/etc/default/grub"),
        "GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash ttm.pages_limit=26214400\"  # mine\n");
    EXPECT_EQ(grub.default_value("ttm.pages_limit"), "26214400");
    ASSERT_TRUE(grub.remove_default("ttm.pages_limit"));
    EXPECT_EQ(*t.root().read("/etc/default/grub"), original);
}

TEST(GrubDefaults, ALineWiredcapCannotEditSafelyIsRefusedAndLeftAsItWas) {
    for (const std::string text : {
             // set twice: rewriting both would lose "quiet"
             "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n"
             "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT splash\"\n",
             // exported: an appended assignment would replace "quiet splash"
             "export GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash\"\n",
             // shell expansions would change meaning inside new quotes
             "GRUB_CMDLINE_LINUX_DEFAULT='quiet $x'\n",
             "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\" splash\n",
         }) {
        const Tree t;
        with_update_grub(t);
        t.put("/etc/default/grub", text);
        const Grub grub(t.root());
        EXPECT_FALSE(grub.make_default("ttm.pages_limit", "26214400")) << text;
        EXPECT_EQ(*t.root().read("/etc/default/grub"), text);
        EXPECT_FALSE(grub.remove_default("ttm.pages_limit")) << text;
        EXPECT_EQ(*t.root().read("/etc/default/grub"), text);
    }
}

TEST(GrubDefaults, AnOverrideInGrubDotDIsRefused) {
    const Tree t;
    with_update_grub(t);
    const std::string text = "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n";
    t.put("/etc/default/grub", text);
    t.put("/etc/default/grub.d/50-cloud.cfg", "GRUB_CMDLINE_LINUX_DEFAULT=\"console=ttyS0\"\n");
    const Grub grub(t.root());
    EXPECT_FALSE(grub.make_default("ttm.pages_limit", "26214400"));
    EXPECT_EQ(*t.root().read("/etc/default/grub"), text);
}

TEST(GrubDefaults, TheFileKeepsItsModeWhenRewritten) {
    const Tree t;
    with_update_grub(t);
    t.put("/etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n");
    const auto path = t.root().at("/etc/default/grub");
    std::filesystem::permissions(
        path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    ASSERT_TRUE(Grub(t.root()).make_default("ttm.pages_limit", "26214400"));
    EXPECT_EQ(std::filesystem::status(path).permissions(),
              std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

// `wiredcap status`, set, reset and recover take the Linux backend on "/" only on a host this
// says is one: amdgpu loaded and a TTM with pages_limit, both read, never guessed.
TEST(Host, AnAmdTtmHostNeedsAmdgpuAndAPagesLimit) {
    Tree t;
    EXPECT_FALSE(is_amd_ttm_host(t.root())) << "an empty tree";
    t.put("/sys/module/ttm/parameters/pages_limit", "100\n");
    EXPECT_FALSE(is_amd_ttm_host(t.root())) << "TTM without amdgpu (another GPU's driver)";
    t.mkdir("/sys/module/amdgpu");
    EXPECT_TRUE(is_amd_ttm_host(t.root()));
    Tree dkms;
    dkms.mkdir("/sys/module/amdgpu");
    EXPECT_FALSE(is_amd_ttm_host(dkms.root())) << "amdgpu without a TTM limit to set";
    dkms.put("/sys/module/amdttm/parameters/pages_limit", "100\n");
    EXPECT_TRUE(is_amd_ttm_host(dkms.root())) << "amdgpu-dkms's own TTM";
}
