// Whether a machine is an AMD TTM host (linux/src/host.cpp).
#include <gtest/gtest.h>

#include "wiredcap/linux/host.hpp"

#include "system_tree.hpp"

using namespace wiredcap::linux_amd;
using wiredcap::linux_amd::test::Tree;

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
