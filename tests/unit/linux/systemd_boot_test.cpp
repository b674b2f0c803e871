// systemd-boot (linux/src/systemd_boot.cpp): EFI variables, loader.conf and entries, and which
// boot loader a machine has.
#include <gtest/gtest.h>

#include <string>

#include "wiredcap/linux/boot_loader.hpp"
#include "wiredcap/linux/systemd_boot.hpp"

#include "system_tree.hpp"

using namespace wiredcap::linux_amd;
using wiredcap::linux_amd::test::Tree;

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
