// Test-side writers of model files with known contents: GGUF (versions 2 and 3) and
// safetensors. Written from the formats' specifications, independently of the parsers under
// test, so a parser bug cannot cancel out against the same bug here.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace wiredcap::fit::testing {

class GgufWriter {
public:
    explicit GgufWriter(std::uint32_t version = 3) : version_(version) {}

    GgufWriter& u32(const std::string& key, std::uint32_t v) { return kv(key, 4, le(v, 4)); }
    GgufWriter& u64(const std::string& key, std::uint64_t v) { return kv(key, 10, le(v, 8)); }
    GgufWriter& i32(const std::string& key, std::int32_t v) {
        return kv(key, 5, le(static_cast<std::uint32_t>(v), 4));
    }
    GgufWriter& f32(const std::string& key, float v) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &v, 4);
        return kv(key, 6, le(bits, 4));
    }
    GgufWriter& str(const std::string& key, const std::string& v) { return kv(key, 8, string(v)); }
    GgufWriter& boolean(const std::string& key, bool v) {
        return kv(key, 7, std::string(1, v ? '\1' : '\0'));
    }
    GgufWriter& i32_array(const std::string& key, const std::vector<std::int32_t>& v) {
        std::string body = le(5, 4) + le(v.size(), 8);
        for (auto x : v) body += le(static_cast<std::uint32_t>(x), 4);
        return kv(key, 9, body);
    }
    GgufWriter& string_array(const std::string& key, std::size_t n) {
        std::string body = le(8, 4) + le(n, 8);
        for (std::size_t i = 0; i < n; ++i) body += string("tok" + std::to_string(i));
        return kv(key, 9, body);
    }
    // A tensor of ggml type `type` whose data takes `bytes` (the caller computes it from the
    // type's block size: that is the arithmetic under test). Offsets follow each other,
    // aligned to 32.
    GgufWriter& tensor(const std::string& name, std::vector<std::uint64_t> dims, std::uint32_t type,
                       std::uint64_t bytes) {
        infos_ += string(name) + le(dims.size(), 4);
        for (auto d : dims) infos_ += le(d, 8);
        infos_ += le(type, 4) + le(next_offset_, 8);
        ++tensors_;
        next_offset_ += (bytes + 31) / 32 * 32;
        return *this;
    }
    // Raw bytes appended to the tensor table (for malformed entries).
    GgufWriter& raw_tensor_info(const std::string& bytes, std::uint64_t count_as = 1) {
        infos_ += bytes;
        tensors_ += count_as;
        return *this;
    }
    GgufWriter& tensor_count_override(std::uint64_t n) {
        tensor_count_ = n;
        return *this;
    }
    GgufWriter& meta_count_override(std::uint64_t n) {
        meta_count_ = n;
        return *this;
    }

    // Header only (up to the aligned start of the data).
    [[nodiscard]] std::string header() const {
        std::string out = "GGUF" + le(version_, 4) +
                          le(tensor_count_ ? tensor_count_ : tensors_, 8) +
                          le(meta_count_ ? meta_count_ : metas_, 8) + meta_ + infos_;
        while (out.size() % 32 != 0) out += '\0';
        return out;
    }
    [[nodiscard]] std::uint64_t data_bytes() const { return next_offset_; }
    // Header and zero-filled data: a complete file in memory.
    [[nodiscard]] std::string file() const { return header() + std::string(next_offset_, '\0'); }

    // Writes the header and extends the file to its full size without writing the data: a
    // sparse file that declares (and has, logically) every byte of its weights.
    void write_sparse(const std::string& path) const {
        const std::string h = header();
        std::ofstream(path, std::ios::binary | std::ios::trunc)
            .write(h.data(), static_cast<std::streamsize>(h.size()));
        if (::truncate(path.c_str(), static_cast<off_t>(h.size() + next_offset_)) != 0)
            throw std::runtime_error("truncate");
    }

    static std::string le(std::uint64_t v, std::size_t n) {
        std::string s;
        for (std::size_t i = 0; i < n; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
        return s;
    }
    static std::string string(const std::string& s) { return le(s.size(), 8) + s; }

private:
    GgufWriter& kv(const std::string& key, std::uint32_t type, const std::string& value) {
        meta_ += string(key) + le(type, 4) + value;
        ++metas_;
        return *this;
    }

    std::uint32_t version_;
    std::string meta_;
    std::string infos_;
    std::uint64_t metas_ = 0;
    std::uint64_t tensors_ = 0;
    std::uint64_t tensor_count_ = 0;
    std::uint64_t meta_count_ = 0;
    std::uint64_t next_offset_ = 0;
};

// A safetensors file: 8-byte length, the JSON header as given, then `data` zero bytes.
inline std::string safetensors_file(const std::string& json_header, std::uint64_t data) {
    return GgufWriter::le(json_header.size(), 8) + json_header + std::string(data, '\0');
}

inline void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace wiredcap::fit::testing
