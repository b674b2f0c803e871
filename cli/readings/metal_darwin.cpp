// Metal's own figure for the effective GPU cap: -[MTLDevice recommendedMaxWorkingSetSize] of the
// default device, which follows iogpu.wired_limit_mb exactly (docs/design.md section 2).
//
// NOT RUN HERE. wiredcap is developed on Linux without a Mac: this file is compiled for
// aarch64-macos and x86_64-macos by tools/cross-build (zig c++ with Darwin's libc headers only,
// no SDK, no frameworks) and has been verified by compiling only; it has never executed. The
// interpretation of what it finds (metal_probe.cpp) is unit-tested on Linux.
//
// Nothing here needs the SDK at build time: Metal.framework and the Objective-C runtime are
// opened with dlopen at run time and reached through the runtime's C API (sel_registerName,
// object_getClass, class_respondsToSelector, objc_msgSend). Every step that can fail stops the
// probe with a reason; `status` then says the cap is unknown and why. This runs in wiredcap only,
// never in the helper, which loads no frameworks.
#if defined(__APPLE__)

#include <dlfcn.h>

#include <bit>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>

#include "wiredcap/cli/readings/metal_probe.hpp"

namespace wiredcap::cli {
namespace {

constexpr const char* kMetalPath = "/System/Library/Frameworks/Metal.framework/Metal";
constexpr const char* kObjcPath = "/usr/lib/libobjc.A.dylib";
// Apple's documentation of MTLCreateSystemDefaultDevice: on macOS a command-line tool must link
// Core Graphics for the system to provide a default device. Loading it does the same; if it
// cannot be loaded the probe goes on and reports what Metal says.
constexpr const char* kCoreGraphicsPath =
    "/System/Library/Frameworks/CoreGraphics.framework/CoreGraphics";

// Objective-C objects, selectors and classes, as the runtime's C API passes them: opaque pointers.
using Id = void*;
using Sel = void*;
using Class = void*;
// objc.h: BOOL is bool on arm64 and signed char on x86_64 macOS.
#if defined(__arm64__) || defined(__aarch64__)
using ObjcBool = bool;
#else
using ObjcBool = signed char;
#endif

using CreateDeviceFn = Id (*)();                             // MTLCreateSystemDefaultDevice
using CopyAllDevicesFn = Id (*)();                           // MTLCopyAllDevices: +1 NSArray
using SelRegisterNameFn = Sel (*)(const char*);              // sel_registerName
using ObjectGetClassFn = Class (*)(Id);                      // object_getClass
using ClassRespondsToSelectorFn = ObjcBool (*)(Class, Sel);  // class_respondsToSelector
using PoolPushFn = void* (*)();                              // objc_autoreleasePoolPush
using PoolPopFn = void (*)(void*);                           // objc_autoreleasePoolPop
// objc_msgSend has no prototype of its own: it is called through a pointer of the exact type
// of the method it reaches (on arm64 any other type passes the arguments and result wrongly).
using MsgSendU64Fn = std::uint64_t (*)(Id, Sel);        // -(uint64_t)recommendedMaxWorkingSetSize
using MsgSendVoidFn = void (*)(Id, Sel);                // -(oneway void)release
using MsgSendIndexFn = Id (*)(Id, Sel, std::uint64_t);  // -(id)objectAtIndex:(NSUInteger)

std::string last_dl_error(const char* fallback) {
    const char* e = ::dlerror();
    return e != nullptr ? std::string(e) : std::string(fallback);
}

// The handles are never closed: unloading a framework is not supported by Apple, and the
// process (a short-lived command) keeps what it loaded.
void* open_library(const char* path) { return ::dlopen(path, RTLD_LAZY | RTLD_LOCAL); }

template <class Fn>
Fn find_symbol(void* handle, const char* name) {
    void* p = ::dlsym(handle, name);
    return p != nullptr ? std::bit_cast<Fn>(p) : nullptr;
}

// An autorelease pool around the calls, as @autoreleasepool would give: objects Metal
// autoreleases while creating the device are freed here, not leaked into a pool-less thread.
class AutoreleasePool {
public:
    AutoreleasePool(PoolPushFn push, PoolPopFn pop) : pop_(pop) {
        if (push != nullptr && pop != nullptr) token_ = push();
    }
    ~AutoreleasePool() {
        if (token_ != nullptr) pop_(token_);
    }
    AutoreleasePool(const AutoreleasePool&) = delete;
    AutoreleasePool& operator=(const AutoreleasePool&) = delete;

private:
    PoolPopFn pop_ = nullptr;
    void* token_ = nullptr;
};

MetalProbe fail(MetalStep step, std::string detail = {}) {
    return MetalProbe{step, 0, std::move(detail)};
}

MetalProbe probe() {
    void* metal = open_library(kMetalPath);
    if (metal == nullptr) return fail(MetalStep::metal_framework, last_dl_error(kMetalPath));
    const auto create_device = find_symbol<CreateDeviceFn>(metal, "MTLCreateSystemDefaultDevice");
    if (create_device == nullptr)
        return fail(MetalStep::create_device_symbol, last_dl_error("MTLCreateSystemDefaultDevice"));

    void* objc = open_library(kObjcPath);
    if (objc == nullptr) return fail(MetalStep::objc_runtime, last_dl_error(kObjcPath));
    const auto sel_register_name = find_symbol<SelRegisterNameFn>(objc, "sel_registerName");
    if (sel_register_name == nullptr) return fail(MetalStep::objc_symbol, "sel_registerName");
    const auto object_get_class = find_symbol<ObjectGetClassFn>(objc, "object_getClass");
    if (object_get_class == nullptr) return fail(MetalStep::objc_symbol, "object_getClass");
    const auto responds = find_symbol<ClassRespondsToSelectorFn>(objc, "class_respondsToSelector");
    if (responds == nullptr) return fail(MetalStep::objc_symbol, "class_respondsToSelector");
    // One function, two exact types: see MsgSendU64Fn.
    const auto send_u64 = find_symbol<MsgSendU64Fn>(objc, "objc_msgSend");
    const auto send_void = find_symbol<MsgSendVoidFn>(objc, "objc_msgSend");
    if (send_u64 == nullptr || send_void == nullptr)
        return fail(MetalStep::objc_symbol, "objc_msgSend");

    const Sel working_set_sel = sel_register_name("recommendedMaxWorkingSetSize");
    if (working_set_sel == nullptr)
        return fail(MetalStep::selector, "recommendedMaxWorkingSetSize");
    const Sel release_sel = sel_register_name("release");
    if (release_sel == nullptr) return fail(MetalStep::selector, "release");

    static_cast<void>(open_library(kCoreGraphicsPath));  // best effort: see kCoreGraphicsPath
    AutoreleasePool pool(find_symbol<PoolPushFn>(objc, "objc_autoreleasePoolPush"),
                         find_symbol<PoolPopFn>(objc, "objc_autoreleasePoolPop"));

    Id device = create_device();  // +1: the Create rule; released below
    // No default device (a process outside the window server's session can get none on some
    // Macs): the first of all devices, from MTLCopyAllDevices (+1 array; the device in it is
    // the array's, valid until the array is released below). The reading says which it was.
    Id all_devices = nullptr;
    std::string via;
    if (device == nullptr) {
        const auto copy_all = find_symbol<CopyAllDevicesFn>(metal, "MTLCopyAllDevices");
        const auto send_index = find_symbol<MsgSendIndexFn>(objc, "objc_msgSend");
        const Sel count_sel = sel_register_name("count");
        const Sel index_sel = sel_register_name("objectAtIndex:");
        if (copy_all == nullptr || send_index == nullptr || count_sel == nullptr ||
            index_sel == nullptr)
            return fail(MetalStep::no_device);
        all_devices = copy_all();
        if (all_devices == nullptr) return fail(MetalStep::no_device);
        if (send_u64(all_devices, count_sel) == 0) {
            send_void(all_devices, release_sel);
            return fail(MetalStep::no_device, "MTLCopyAllDevices listed none either");
        }
        device = send_index(all_devices, index_sel, 0);
        via = "MTLCreateSystemDefaultDevice returned nil; the first of MTLCopyAllDevices";
    }
    // Releases what this function owns: the device it created, or the array the device is in.
    const auto release_owned = [&] {
        send_void(all_devices != nullptr ? all_devices : device, release_sel);
    };
    // Sending a selector the object does not implement raises an Objective-C exception, which
    // would end the process: ask first (every Metal device since macOS 10.12 implements it).
    const Class device_class = device != nullptr ? object_get_class(device) : nullptr;
    if (device_class == nullptr || !responds(device_class, working_set_sel)) {
        release_owned();
        return fail(MetalStep::not_supported, via);
    }
    const std::uint64_t bytes = send_u64(device, working_set_sel);
    release_owned();
    if (bytes == 0) return fail(MetalStep::zero, via);
    return MetalProbe{MetalStep::ok, bytes, via};
}

}  // namespace

MetalProbe probe_metal_device() noexcept {
    try {
        return probe();
    } catch (const std::exception& e) {
        // Only std::string can throw above (allocation). Building the answer may fail the same
        // way; then the caller gets an empty detail rather than an exception.
        try {
            return fail(MetalStep::internal_error, e.what());
        } catch (...) {
            return MetalProbe{};
        }
    }
}

}  // namespace wiredcap::cli

#endif  // __APPLE__
