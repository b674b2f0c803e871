// TTM readings from sysfs (linux/src/sysfs_ttm.cpp) on hand-made trees: read, never guessed.
#include <gtest/gtest.h>

#include "wiredcap/linux/sysfs_ttm.hpp"

#include "system_tree.hpp"

using namespace wiredcap::linux_amd;
using wiredcap::linux_amd::test::Tree;

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
