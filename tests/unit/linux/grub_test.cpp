// GRUB (linux/src/grub.cpp): menu entries of a generated grub.cfg, defaults through submenus,
// and /etc/default/grub edited only where it is safe.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "wiredcap/linux/grub.hpp"

#include "system_tree.hpp"

using namespace wiredcap::linux_amd;
using wiredcap::linux_amd::test::Tree;

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
