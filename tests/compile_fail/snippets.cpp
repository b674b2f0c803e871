// The compile-fail suite. Each CASE_* block holds one line that must NOT compile; the line is
// marked "error-line: <case>" and check.cmake requires the compiler's error to point at it, so
// a case cannot pass by failing somewhere else. With no CASE_* defined this file is the
// control: the correct twin of every case, which must compile cleanly.
#include "wiredcap/kernel/kernel.hpp"
#include "wiredcap/kernel/ttm.hpp"
#include "wiredcap/units/units.hpp"

using namespace wiredcap::units;
using namespace wiredcap::units::literals;
using wiredcap::kernel::Kernel;

[[maybe_unused]] void control(Kernel& k) {
    (void)k.write_wired_limit(237568_MiB);  // the unit the kernel wants
    (void)k.write_wired_limit(232_GiB);     // exact: implicit
    if (auto exact = exact_cast<MiB>(250_GB)) (void)k.write_wired_limit(*exact);  // named, checked
    (void)k.write_wired_limit(floor_cast<MiB>(232000_MB));
    (void)k.write_wired_limit(*MiB::from_count(237568));  // a raw count, by name
    MiB m = 232_GiB;
    Bytes b = m;       // to Bytes: exact
    Pages16KiB p = m;  // 1 MiB = 64 pages of 16 KiB: exact
    KiB kib = p;
    MB mb = 232_GB;
    (void)(m + 1_GiB);
    (void)(m == 237568_MiB);
    (void)(m < 233_GiB);
    (void)(b == Bytes{232000_MB});
    (void)(mb == 232000_MB);
    (void)kib;
    static_assert(MiB::max_count == 17592186044415ULL);
    constexpr auto largest = 16777215_TiB;  // the largest TiB literal that fits
    (void)largest;
}

// Linux's TTM limit counts pages of a page size read from the kernel: only named functions
// move between pages and sizes.
[[maybe_unused]] void pages_control(PageSize size) {
    using wiredcap::kernel::TtmModule;
    const Pages p = *Pages::from_count(27648000, size);
    (void)wiredcap::kernel::pages_limit_parameter(TtmModule::ttm, p);
    (void)wiredcap::kernel::pages_limit_parameter(TtmModule::ttm, floor_pages(108000_MiB, size));
    const Bytes b = p.to_bytes();
    (void)floor_cast<MiB>(b);
    (void)(p == floor_pages(b, size));
    (void)(p < *Pages::from_count(27648001, size));
}

#ifdef CASE_mib_from_mb
void f(Kernel& k) { (void)k.write_wired_limit(232000_MB); }  // error-line: mib_from_mb
#endif
#ifdef CASE_mib_from_gb
void f(Kernel& k) { (void)k.write_wired_limit(232_GB); }  // error-line: mib_from_gb
#endif
#ifdef CASE_mib_from_kib
void f(Kernel& k) { (void)k.write_wired_limit(1024_KiB); }  // error-line: mib_from_kib
#endif
#ifdef CASE_mib_from_bytes
void f(Kernel& k) { (void)k.write_wired_limit(1048576_B); }  // error-line: mib_from_bytes
#endif
#ifdef CASE_mib_from_pages16
void f(Kernel& k, Pages16KiB p) { (void)k.write_wired_limit(p); }  // error-line: mib_from_pages16
#endif
#ifdef CASE_mib_from_pages4
void f(Kernel& k, Pages4KiB p) { (void)k.write_wired_limit(p); }  // error-line: mib_from_pages4
#endif
#ifdef CASE_mib_from_raw_int
void f(Kernel& k) { (void)k.write_wired_limit(237568); }  // error-line: mib_from_raw_int
#endif
#ifdef CASE_mib_from_double
void f(Kernel& k) { (void)k.write_wired_limit(237568.0); }  // error-line: mib_from_double
#endif
// The warnings that also catch it are off here: the deleted overload alone must refuse it.
#ifdef CASE_from_count_double
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wfloat-conversion"
#ifdef __clang__
#pragma clang diagnostic ignored "-Wliteral-conversion"
#endif
void f() { (void)MiB::from_count(1.5); }  // error-line: from_count_double
#endif
#ifdef CASE_from_count_or_throw_float
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wfloat-conversion"
#ifdef __clang__
#pragma clang diagnostic ignored "-Wliteral-conversion"
#endif
void f(float x) { (void)GiB::from_count_or_throw(x); }  // error-line: from_count_or_throw_float
#endif
#ifdef CASE_mib_copy_init_int
void f() { [[maybe_unused]] MiB m = 232000; }  // error-line: mib_copy_init_int
#endif
#ifdef CASE_mib_direct_init_int
void f() { [[maybe_unused]] MiB m{232000}; }  // error-line: mib_direct_init_int
#endif
#ifdef CASE_static_cast_mb_to_mib
void f() { (void)static_cast<MiB>(232000_MB); }  // error-line: static_cast_mb_to_mib
#endif
#ifdef CASE_mib_plus_int
void f(MiB m) { (void)(m + 1); }  // error-line: mib_plus_int
#endif
#ifdef CASE_mib_eq_int
void f(MiB m) { (void)(m == 1); }  // error-line: mib_eq_int
#endif
#ifdef CASE_mib_plus_mb
void f(MiB m) { (void)(m + 1_MB); }  // error-line: mib_plus_mb
#endif
#ifdef CASE_mib_eq_mb
void f(MiB m) { (void)(m == 1_MB); }  // error-line: mib_eq_mb
#endif
#ifdef CASE_mib_less_gb
void f(MiB m) { (void)(m < 1_GB); }  // error-line: mib_less_gb
#endif
#ifdef CASE_tb_to_kib_implicit
void f() { [[maybe_unused]] KiB k = 1_TB; }  // error-line: tb_to_kib_implicit
#endif
#ifdef CASE_mib_to_gib_implicit
void f(MiB m) { [[maybe_unused]] GiB g = m; }  // error-line: mib_to_gib_implicit
#endif
#ifdef CASE_mib_to_raw_int
void f(MiB m) { [[maybe_unused]] std::uint64_t n = m; }  // error-line: mib_to_raw_int
#endif
#ifdef CASE_overflowing_literal
constexpr auto too_big = 16777216_TiB;  // error-line: overflowing_literal
#endif
#ifdef CASE_overflowing_constexpr_sum
constexpr auto sum = MiB::max() + 1_MiB;  // error-line: overflowing_constexpr_sum
#endif
#ifdef CASE_pages_from_mib
void f(PageSize s) {
    [[maybe_unused]] Pages p = 108000_MiB;  // error-line: pages_from_mib
    (void)s;
}
#endif
#ifdef CASE_pages_from_raw_int
void f() { [[maybe_unused]] Pages p = 27648000; }  // error-line: pages_from_raw_int
#endif
#ifdef CASE_pages_from_double
void f(PageSize s) { (void)Pages::from_count(1.5, s); }  // error-line: pages_from_double
#endif
#ifdef CASE_mib_from_pages
void f(Pages p) { [[maybe_unused]] MiB m = p; }  // error-line: mib_from_pages
#endif
#ifdef CASE_bytes_from_pages
void f(Pages p) { [[maybe_unused]] Bytes b = p; }  // error-line: bytes_from_pages
#endif
#ifdef CASE_pages_eq_mib
void f(Pages p) { (void)(p == 108000_MiB); }  // error-line: pages_eq_mib
#endif
#ifdef CASE_pages_less_gib
void f(Pages p) { (void)(p < 105_GiB); }  // error-line: pages_less_gib
#endif
#ifdef CASE_pages_plus_mib
void f(Pages p) { (void)(p + 1_MiB); }  // error-line: pages_plus_mib
#endif
#ifdef CASE_pages_to_raw_int
void f(Pages p) { [[maybe_unused]] std::uint64_t n = p; }  // error-line: pages_to_raw_int
#endif
#ifdef CASE_pages_limit_from_mib
void f() {
    using wiredcap::kernel::pages_limit_parameter, wiredcap::kernel::TtmModule;
    (void)pages_limit_parameter(TtmModule::ttm, 108000_MiB);  // error-line: pages_limit_from_mib
}
#endif
#ifdef CASE_pages_limit_from_gib
void f() {
    using wiredcap::kernel::pages_limit_parameter, wiredcap::kernel::TtmModule;
    (void)pages_limit_parameter(TtmModule::ttm, 105_GiB);  // error-line: pages_limit_from_gib
}
#endif
#ifdef CASE_page_size_from_int
void f() { [[maybe_unused]] PageSize s = 4096; }  // error-line: page_size_from_int
#endif
