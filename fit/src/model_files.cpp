#include "wiredcap/fit/model_files.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <regex>

#include "wiredcap/fit/gguf_architecture.hpp"
#include "wiredcap/fit/gguf_header.hpp"
#include "wiredcap/fit/hf_config.hpp"
#include "wiredcap/fit/safetensors_header.hpp"
#include "wiredcap/fit/hf_index.hpp"
#include "wiredcap/fit/ollama_store.hpp"
#include "regular_file.hpp"
#include "wiredcap/fit/printable.hpp"

namespace wiredcap::fit {
namespace {

namespace fs = std::filesystem;

bool ends_with(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Runs `parse` over the bytes of a regular file (regular_file.hpp).
template <class Parse>
auto with_file(const std::string& path, std::uint64_t& bytes_read, Parse parse)
    -> decltype(parse(std::declval<ByteReader&>())) {
    auto file = RegularFile::open(path);
    if (!file) return file.error();
    ByteReader in = ByteReader::of_file(file->fd(), file->size());
    auto result = parse(in);
    bytes_read += in.bytes_read();
    if (!result) return Error{printable_path(path) + ": " + result.error().message};
    return result;
}

Expected<std::string> read_small_file(const std::string& path, std::uint64_t limit) {
    auto file = RegularFile::open(path);
    if (!file) return file.error();
    if (file->size() > limit)
        return Error{printable_path(path) + " is larger than a config file can be"};
    std::string text(static_cast<std::size_t>(file->size()), '\0');
    ByteReader in = ByteReader::of_file(file->fd(), text.size());
    if (!in.read(text.data(), text.size())) return Error{"cannot read " + printable_path(path)};
    return text;
}

// The parts of a split GGUF (name-00001-of-00003.gguf): all of them, in order. A file that is
// not named as a part is a model on its own.
Expected<std::vector<std::string>> gguf_parts(const std::string& path) {
    static const std::regex split(R"(^(.*)-([0-9]{5})-of-([0-9]{5})\.gguf$)");
    std::smatch m;
    if (!std::regex_match(path, m, split)) return std::vector<std::string>{path};
    const unsigned long count = std::stoul(m[3].str());
    if (count == 0 || count > kMaxModelFiles)
        return Error{printable_path(path) + ": a split into " + m[3].str() + " parts is not real"};
    std::vector<std::string> parts;
    for (unsigned long i = 1; i <= count; ++i)
        parts.push_back(fmt::format("{}-{:05}-of-{:05}.gguf", m[1].str(), i, count));
    return parts;
}

// The GGUF magic at the start of a regular file: what makes it a GGUF file, whatever its name
// (Ollama's blobs have none).
bool has_gguf_magic(const std::string& path) {
    auto file = RegularFile::open(path);
    if (!file || file->size() < 4) return false;
    ByteReader in = ByteReader::of_file(file->fd(), 4);
    std::array<char, 4> magic{};
    return in.read(magic.data(), magic.size()) && std::string_view(magic.data(), 4) == "GGUF";
}

// Why a named path cannot be read as a model file: the open's own reason (permission denied),
// or what it is instead of a regular file (a FIFO, a socket, a device). nullopt: it can be read.
std::optional<std::string> unreadable_reason(const std::string& path) {
    std::error_code ec;
    const auto st = fs::status(path, ec);
    if (!ec && fs::is_fifo(st))
        return printable_path(path) + " is a FIFO (a named pipe), not a model file";
    if (!ec && fs::is_socket(st)) return printable_path(path) + " is a socket, not a model file";
    if (!ec && (fs::is_block_file(st) || fs::is_character_file(st)))
        return printable_path(path) + " is a device, not a model file";
    auto file = RegularFile::open(path);
    if (!file) return file.error().message;
    return std::nullopt;
}

// A vision model's projector (mmproj) GGUF: counted with the weights, not a model of its own.
bool is_projector(const fs::path& p) {
    std::string name = p.filename().string();
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return name.find("mmproj") != std::string::npos;
}

// A GGUF that is not a model but loaded with one: a vision projector (general.architecture
// "clip", general.type "mmproj") or a LoRA adapter (general.type "adapter"). Named alone, it is
// said as such, with the model to name instead when one is beside it.
std::optional<std::string> companion_named_alone(const GgufHeader& h, const std::string& path) {
    const auto type = meta_string(h, "general.type").value_or("");
    const auto arch = meta_string(h, "general.architecture").value_or("");
    const char* what = arch == "clip" || type == "mmproj" ? "a vision projector (mmproj)"
                       : type == "adapter"                ? "a LoRA adapter"
                                                          : nullptr;
    if (what == nullptr) return std::nullopt;
    std::string model;
    std::error_code ec;
    const fs::path dir =
        fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
    std::size_t seen = 0;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (++seen > 4 * kMaxModelFiles) break;
        const std::string p = e.path().string();
        if (p == path || is_projector(e.path()) || !ends_with(p, ".gguf")) continue;
        if (model.empty() || p < model) model = p;
    }
    return printable_path(path) + " is " + what +
           ", loaded with a model, not a model itself: name the model" +
           (model.empty() ? std::string() : " (" + printable_path(model) + ")") +
           (arch == "clip" || type == "mmproj" ? ", and its projector is counted with it"
                                               : " the adapter was made for");
}

// Another GGUF loaded with the model: a projector (kept apart), an adapter (counted with its weights).
struct CompanionFiles {
    std::vector<std::string> paths;
    const char* kind;
};

Expected<ModelInfo> read_gguf(const std::string& path,
                              const std::vector<CompanionFiles>& companions = {}) {
    auto parts = gguf_parts(path);
    if (!parts) return parts.error();
    ModelInfo info;
    info.format = ModelFormat::gguf;
    std::vector<std::string> names;  // every part's, to refuse one named in two parts
    for (std::size_t i = 0; i < parts->size(); ++i) {
        const std::string& part = (*parts)[i];
        auto h =
            with_file(part, info.header_bytes_read, [](ByteReader& in) { return parse_gguf(in); });
        if (!h) return h.error();
        if (parts->size() > 1) {
            // Each part says which it is; a part from another split is refused, not summed.
            const auto no = meta_uint(*h, "split.no");
            const auto count = meta_uint(*h, "split.count");
            if (no != i || count != parts->size())
                return Error{printable_path(part) +
                             ": its split.no/split.count do not say it is part " +
                             std::to_string(i + 1) + " of " + std::to_string(parts->size())};
        }
        if (i == 0) {
            if (auto alone = companion_named_alone(*h, part)) return Error{*alone};
            auto arch = gguf_architecture(*h);
            if (!arch) return Error{printable_path(part) + ": " + arch.error().message};
            info.arch = std::move(*arch);
            info.format_text = "GGUF v" + std::to_string(h->version);
        }
        const auto sum = checked_add(info.weights, h->tensor_bytes);
        if (!sum) return Error{"the tensor sizes overflow"};
        info.weights = *sum;
        info.files.push_back(part);
        std::vector<std::string> merged;
        std::merge(names.begin(), names.end(), h->tensor_names.begin(), h->tensor_names.end(),
                   std::back_inserter(merged));
        names = std::move(merged);
        if (const auto twice = std::adjacent_find(names.begin(), names.end()); twice != names.end())
            return Error{printable_path(part) + ": tensor '" + printable(*twice) +
                         "' is also in another part"};
    }
    info.weights_source =
        "GGUF tensor table" +
        (parts->size() > 1 ? " (" + std::to_string(parts->size()) + " files)" : "");
    for (const auto& c : companions) {
        const bool projector = std::string_view(c.kind) == "projector";
        for (const auto& p : c.paths) {
            auto h =
                with_file(p, info.header_bytes_read, [](ByteReader& in) { return parse_gguf(in); });
            if (!h) return h.error();
            units::Bytes& into = projector ? info.projector : info.weights;
            const auto sum = checked_add(into, h->tensor_bytes);
            if (!sum) return Error{"the tensor sizes overflow"};
            into = *sum;
            (projector ? info.projector_files : info.files).push_back(p);
        }
        if (!c.paths.empty() && !projector) info.weights_source += std::string(" + ") + c.kind;
    }
    return info;
}

// The shards of a sharded safetensors model: those its index names (all of them present), else
// the one file, else a numbered set (name-00001-of-00030.safetensors) that must be complete.
// A file the model does not name is never summed; it is said.
Expected<std::vector<std::string>> model_shards(const fs::path& dir, std::vector<std::string> found,
                                                std::vector<std::string>& notes) {
    std::sort(found.begin(), found.end());
    std::error_code ec;
    std::vector<std::string> named;
    if (fs::exists(dir / kSafetensorsIndex, ec)) {
        const std::string path = (dir / kSafetensorsIndex).string();
        auto file = RegularFile::open(path);
        if (!file) return file.error();
        if (file->size() > kMaxIndexJson)
            return Error{printable_path(path) + " is larger than an index can be"};
        ByteReader in = ByteReader::of_file(file->fd(), file->size());
        auto index = parse_safetensors_index(in);
        if (!index) return Error{printable_path(path) + ": " + index.error().message};
        if (index->shards.size() > kMaxModelFiles)
            return Error{"the index names more shards than a model has"};
        for (const auto& s : index->shards) named.push_back((dir / s).string());
    } else if (found.size() > 1) {
        static const std::regex numbered(R"(^(.*)-([0-9]{5})-of-([0-9]{5})\.safetensors$)");
        std::smatch m;
        if (!std::regex_match(found.front(), m, numbered))
            return Error{printable_path(dir.string()) + " holds " + std::to_string(found.size()) +
                         " .safetensors files and no " + kSafetensorsIndex +
                         ": which are the model is unknown"};
        const unsigned long count = std::stoul(m[3].str());
        if (count == 0 || count > kMaxModelFiles)
            return Error{printable_path(found.front()) + ": a split into " + m[3].str() +
                         " parts is not real"};
        for (unsigned long i = 1; i <= count; ++i)
            named.push_back(fmt::format("{}-{:05}-of-{:05}.safetensors", m[1].str(), i, count));
    } else {
        named = found;
    }
    std::vector<std::string> missing;
    for (const auto& n : named)
        if (!std::binary_search(found.begin(), found.end(), n))
            missing.push_back(fs::path(n).filename().string());
    if (!missing.empty())
        return Error{"an incomplete download: " + std::to_string(missing.size()) + " of " +
                     std::to_string(named.size()) + " shards are missing (" +
                     printable(missing.front()) + (missing.size() > 1 ? ", ..." : "") +
                     "); finish the download, the model cannot be sized without them"};
    std::vector<std::string> extra;
    std::sort(named.begin(), named.end());
    std::set_difference(found.begin(), found.end(), named.begin(), named.end(),
                        std::back_inserter(extra));
    if (!extra.empty())
        notes.push_back(std::to_string(extra.size()) + " .safetensors file" +
                        (extra.size() == 1 ? "" : "s") + " the model does not name (" +
                        printable(fs::path(extra.front()).filename().string()) +
                        (extra.size() > 1 ? ", ..." : "") + ") not counted");
    return named;
}

Expected<ModelInfo> read_safetensors_dir(const fs::path& dir, std::vector<std::string> found) {
    if (found.size() > kMaxModelFiles)
        return Error{printable_path(dir.string()) +
                     " holds more .safetensors files than a model has"};
    std::vector<std::string> notes;
    auto shards = model_shards(dir, std::move(found), notes);
    if (!shards) return shards.error();
    ModelInfo info;
    info.format = ModelFormat::safetensors;
    info.format_text = "safetensors";
    auto config = read_small_file((dir / "config.json").string(), kMaxConfigJson);
    if (!config)
        return Error{"a safetensors model needs its config.json: " + config.error().message};
    auto arch = hf_architecture(*config);
    if (!arch)
        return Error{printable_path((dir / "config.json").string()) + ": " + arch.error().message};
    info.arch = std::move(*arch);
    for (auto& n : notes) info.arch.notes.push_back(std::move(n));
    for (const auto& f : *shards) {
        auto h = with_file(f, info.header_bytes_read,
                           [](ByteReader& in) { return parse_safetensors(in); });
        if (!h) return h.error();
        const auto sum = checked_add(info.weights, h->tensor_bytes);
        if (!sum) return Error{"the tensor sizes overflow"};
        info.weights = *sum;
        info.files.push_back(f);
    }
    info.weights_source = "safetensors data_offsets (" + std::to_string(shards->size()) + " file" +
                          (shards->size() == 1 ? "" : "s") + ")";
    return info;
}

// A Hugging Face cache entry (models--org--name): the snapshot refs/<revision> names (main by
// default), or the snapshot of that commit, else its only one.
Expected<fs::path> cache_snapshot(const fs::path& repo, const std::string& revision = "main") {
    std::error_code ec;
    if (revision != "main") {
        if (fs::is_directory(repo / "snapshots" / revision, ec))
            return repo / "snapshots" / revision;
        if (!fs::is_regular_file(repo / "refs" / revision, ec))
            return Error{printable_path(repo.string()) + " has no revision " + printable(revision) +
                         " (refs/ or snapshots/)"};
    }
    if (auto ref = read_small_file((repo / "refs" / revision).string(), 4096)) {
        std::string hash = *ref;
        while (!hash.empty() && (hash.back() == '\n' || hash.back() == '\r')) hash.pop_back();
        if (hash.find('/') == std::string::npos && !hash.empty()) return repo / "snapshots" / hash;
    }
    std::vector<fs::path> snaps;
    for (const auto& e : fs::directory_iterator(repo / "snapshots", ec)) snaps.push_back(e.path());
    if (snaps.size() != 1)
        return Error{printable_path(repo.string()) + " has " + std::to_string(snaps.size()) +
                     " snapshots and no refs/main; name one"};
    return snaps.front();
}

// "a.gguf, b.gguf" (the first few names, for a message).
std::string file_names(const std::vector<std::string>& paths) {
    constexpr std::size_t kShown = 8;
    std::string out;
    for (std::size_t i = 0; i < paths.size() && i < kShown; ++i)
        out += (out.empty() ? "" : ", ") + printable(fs::path(paths[i]).filename().string());
    if (paths.size() > kShown) out += ", ... (" + std::to_string(paths.size()) + " in all)";
    return out;
}

// Each model once: a split model by its first part only.
std::vector<std::string> first_parts(const std::vector<std::string>& ggufs) {
    static const std::regex later_part(R"(-([0-9]{5})-of-[0-9]{5}\.gguf$)");
    std::vector<std::string> out;
    for (const auto& g : ggufs) {
        std::smatch m;
        if (std::regex_search(g, m, later_part) && m[1].str() != "00001") continue;
        out.push_back(g);
    }
    return out;
}

// A GGUF named alone: the vision projector beside it (mmproj*.gguf in its folder, as LM Studio
// and llama-server's model folders keep it), when there is exactly one; when there are several,
// none, said in the note.
Expected<ModelInfo> read_named_gguf(const std::string& path) {
    std::vector<std::string> projectors;
    std::error_code ec;
    const fs::path dir =
        fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
    std::size_t seen = 0;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (++seen > 4 * kMaxModelFiles) break;
        if (is_projector(e.path()) && ends_with(e.path().string(), ".gguf") &&
            e.path().string() != path && has_gguf_magic(e.path().string()))
            projectors.push_back(e.path().string());
    }
    std::sort(projectors.begin(), projectors.end());
    const bool one = projectors.size() == 1;
    auto info = read_gguf(path, one ? std::vector<CompanionFiles>{{projectors, "projector"}}
                                    : std::vector<CompanionFiles>{});
    if (info && projectors.size() > 1)
        info->projector_note = "not counted: " + std::to_string(projectors.size()) +
                               " projectors beside the model (" + file_names(projectors) +
                               "), which one the runtime loads is not known";
    return info;
}

Expected<ModelInfo> read_dir(fs::path dir) {
    std::error_code ec;
    if (fs::is_directory(dir / "snapshots", ec)) {
        auto snap = cache_snapshot(dir);
        if (!snap) return snap.error();
        dir = *snap;
    }
    std::vector<std::string> shards;
    std::vector<std::string> ggufs;
    std::vector<std::string> projectors;
    std::size_t seen = 0;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (++seen > 4 * kMaxModelFiles)
            return Error{printable_path(dir.string()) + " holds too many files"};
        const std::string p = e.path().string();
        if (ends_with(p, ".safetensors")) shards.push_back(p);
        else if (ends_with(p, ".json") || ends_with(p, ".txt") || ends_with(p, ".md")) continue;
        else if (has_gguf_magic(p)) (is_projector(e.path()) ? projectors : ggufs).push_back(p);
        if (shards.size() + ggufs.size() > kMaxModelFiles)
            return Error{printable_path(dir.string()) + " holds too many model files"};
    }
    if (ec) return Error{"cannot list " + printable_path(dir.string()) + ": " + ec.message()};
    // An index with none of its shards yet is a download that has not begun, said as such.
    if (!shards.empty() || fs::exists(dir / kSafetensorsIndex, ec))
        return read_safetensors_dir(dir, std::move(shards));
    std::sort(ggufs.begin(), ggufs.end());
    std::sort(projectors.begin(), projectors.end());
    // One GGUF model in the directory (one file, or the parts of one split): that one, with its
    // projector (an LM Studio folder of a vision model holds both).
    if (!ggufs.empty()) {
        auto parts = gguf_parts(ggufs.front());
        if (parts && *parts == ggufs && projectors.size() <= 1) {
            auto info = read_gguf(ggufs.front(), {{projectors, "projector"}});
            if (info) info->found_in = FoundIn::folder;
            return info;
        }
        if (parts && *parts == ggufs)
            return Error{printable_path(dir.string()) + " holds " +
                         std::to_string(projectors.size()) + " projectors (" +
                         file_names(projectors) + "); name the model file and fit takes none"};
        return Error{printable_path(dir.string()) + " holds several GGUF models; name the file: " +
                     file_names(first_parts(ggufs))};
    }
    return Error{printable_path(dir.string()) + " holds no GGUF or .safetensors model"};
}

// Where the Hugging Face hub keeps its cache: $HF_HUB_CACHE, else $HF_HOME/hub, else
// ~/.cache/huggingface/hub (huggingface_hub's constants.py order).
std::optional<fs::path> hf_hub_cache() {
    if (const char* c = std::getenv("HF_HUB_CACHE"); c != nullptr && *c != '\0') return fs::path(c);
    if (const char* h = std::getenv("HF_HOME"); h != nullptr && *h != '\0')
        return fs::path(h) / "hub";
    if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
        return fs::path(home) / ".cache" / "huggingface" / "hub";
    return std::nullopt;
}

// A Hugging Face repo id (org/name, or org/name@revision) in the hub's cache: its
// models--org--name entry at refs/main (or the revision named). nullopt when the name is not
// a repo id or the cache has no such entry.
Expected<std::optional<ModelInfo>> read_hf_repo(const std::string& name,
                                                std::vector<std::string>& looked) {
    static const std::regex repo_id(
        R"(^([A-Za-z0-9][A-Za-z0-9._-]{0,95})/([A-Za-z0-9][A-Za-z0-9._-]{0,95})(@([A-Za-z0-9._/-]{1,128}))?$)");
    std::smatch m;
    if (!std::regex_match(name, m, repo_id) || name.find("..") != std::string::npos)
        return std::optional<ModelInfo>();
    const auto cache = hf_hub_cache();
    std::error_code ec;
    if (!cache || !fs::is_directory(*cache, ec)) return std::optional<ModelInfo>();
    looked.push_back("the Hugging Face cache " + printable_path(cache->string()));
    const fs::path repo = *cache / ("models--" + m[1].str() + "--" + m[2].str());
    if (!fs::is_directory(repo / "snapshots", ec)) return std::optional<ModelInfo>();
    auto snap = cache_snapshot(repo, m[3].matched ? m[4].str() : "main");
    if (!snap) return snap.error();
    auto info = read_dir(*snap);
    if (!info) return info.error();
    info->found_in = FoundIn::folder;
    return std::optional<ModelInfo>(std::move(*info));
}

// NAME[:TAG] from Ollama's store, the model's GGUF blob, its projectors and its adapters.
Expected<std::optional<ModelInfo>> read_ollama(const std::string& name,
                                               std::vector<std::string>& looked) {
    const auto store = ollama_models_dir();
    std::error_code ec;
    if (!store || !fs::is_directory(*store, ec)) return std::optional<ModelInfo>();
    looked.push_back("Ollama's " + printable_path(*store));
    auto found = find_ollama_model(name, *store);
    if (!found) return found.error();
    if (!*found) return std::optional<ModelInfo>();
    auto info = read_gguf((*found)->model_blob,
                          {{(*found)->projectors, "projector"}, {(*found)->adapters, "adapter"}});
    if (!info) return info.error();
    info->found_in = FoundIn::ollama;
    info->ollama = (*found)->params;
    info->arch.notes.push_back("Ollama model " + printable(name) + ": " +
                               printable_path((*found)->manifest));
    return std::optional<ModelInfo>(std::move(*info));
}

// A folder of LM Studio's (publisher/model under ~/.lmstudio/models, or the older
// ~/.cache/lm-studio/models).
std::optional<fs::path> lm_studio_folder(const std::string& name,
                                         std::vector<std::string>& looked) {
    const char* home = std::getenv("HOME");
    if (home == nullptr || *home == '\0' || name.empty() || name.front() == '/' ||
        name.find("..") != std::string::npos)
        return std::nullopt;
    for (const auto* root : {".lmstudio/models", ".cache/lm-studio/models"}) {
        const fs::path base = fs::path(home) / root;
        std::error_code ec;
        if (!fs::is_directory(base, ec)) continue;
        looked.push_back("LM Studio's " + printable_path(base.string()));
        if (fs::is_directory(base / name, ec)) return base / name;
    }
    return std::nullopt;
}

// A folder under LM Studio's model roots (~/.lmstudio/models, ~/.cache/lm-studio/models).
bool in_lm_studio(const std::string& path) {
    const char* home = std::getenv("HOME");
    if (home == nullptr || *home == '\0') return false;
    std::error_code ec;
    const auto canon = fs::weakly_canonical(path, ec).string();
    for (const auto* root : {".lmstudio/models/", ".cache/lm-studio/models/"}) {
        const auto base = fs::weakly_canonical(fs::path(home) / root, ec).string() + "/";
        if (!ec && canon.compare(0, base.size(), base) == 0) return true;
    }
    return false;
}

}  // namespace

Expected<ModelInfo> read_model(const std::string& path) {
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec == std::errc::too_many_symbolic_link_levels)
        return Error{printable_path(path) +
                     ": a symbolic link loop (or a chain too long to follow)"};
    if (ec && ec != std::errc::no_such_file_or_directory)
        return Error{printable_path(path) + ": " + ec.message()};
    if (!fs::exists(status)) {
        // Not a path: a model name, as Ollama or LM Studio know it.
        std::vector<std::string> looked;
        auto hf = read_hf_repo(path, looked);
        if (!hf) return hf.error();
        if (*hf) return std::move(**hf);
        auto ollama = read_ollama(path, looked);
        if (!ollama) return ollama.error();
        if (*ollama) return std::move(**ollama);
        if (const auto folder = lm_studio_folder(path, looked)) {
            auto info = read_dir(*folder);
            if (info) info->found_in = FoundIn::lm_studio;
            return info;
        }
        std::string where;
        for (const auto& l : looked) where += (where.empty() ? "" : ", ") + l;
        return Error{
            "no such file or directory: " + printable_path(path) +
            (where.empty() ? std::string() : " (nor a model of that name in " + where + ")")};
    }
    if (fs::is_directory(status)) {
        auto info = read_dir(fs::path(path));
        if (info) info->found_in = in_lm_studio(path) ? FoundIn::lm_studio : FoundIn::folder;
        return info;
    }
    if (ends_with(path, ".safetensors"))
        return read_dir(fs::path(path).parent_path().empty() ? "." : fs::path(path).parent_path());
    if (auto why = unreadable_reason(path)) return Error{*why};
    if (has_gguf_magic(path)) {
        auto info = read_named_gguf(path);
        if (info && in_lm_studio(path)) info->found_in = FoundIn::lm_studio;
        return info;
    }
    return Error{printable_path(path) +
                 " is neither a GGUF file (no GGUF magic) nor a model directory"};
}

}  // namespace wiredcap::fit
