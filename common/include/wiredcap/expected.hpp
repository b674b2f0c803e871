// A value or the reason there is none. C++20 has no std::expected (C++23), and the toolchains
// this project must build with (GCC 12, clang 14, Debian 12) do not all ship one.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace wiredcap {

// A failure a person will read: one sentence saying what was wrong and what would be right.
struct Error {
    std::string message;
};

// The value of an operation that returns nothing but can fail: Expected<Ok>.
struct Ok {};

template <class T, class E = Error>
class [[nodiscard]] Expected {
public:
    Expected(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
    Expected(E error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

    [[nodiscard]] bool has_value() const noexcept { return v_.index() == 0; }
    explicit operator bool() const noexcept { return has_value(); }

    // Asking for the value of a failure is a programming error, reported loudly.
    [[nodiscard]] const T& value() const& { return checked(v_); }
    [[nodiscard]] T& value() & { return checked(v_); }
    [[nodiscard]] T&& value() && { return std::move(checked(v_)); }
    const T& operator*() const& { return value(); }
    T& operator*() & { return value(); }
    T&& operator*() && { return std::move(*this).value(); }
    const T* operator->() const { return &value(); }
    T* operator->() { return &value(); }

    [[nodiscard]] const E& error() const {
        if (has_value()) throw std::logic_error("Expected::error() on a value");
        return std::get<1>(v_);
    }

private:
    template <class V>
    static auto& checked(V& v) {
        if (v.index() != 0) throw std::logic_error("Expected::value() on an error");
        return std::get<0>(v);
    }

    std::variant<T, E> v_;
};

}  // namespace wiredcap
