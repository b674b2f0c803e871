#include "hf_index.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "wiredcap/fit/printable.hpp"

namespace wiredcap::fit {

Expected<SafetensorsIndex> parse_safetensors_index(const std::string& text) {
    using nlohmann::json;
    const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded() || !doc.is_object()) return Error{std::string(kSafetensorsIndex) + " is not a JSON object"};
    const auto map = doc.find("weight_map");
    if (map == doc.end() || !map->is_object() || map->empty())
        return Error{std::string(kSafetensorsIndex) + " has no weight_map"};
    SafetensorsIndex index;
    for (const auto& [tensor, file] : map->items()) {
        if (!file.is_string()) return Error{std::string(kSafetensorsIndex) + ": tensor '" + printable(tensor) + "' names no file"};
        const auto& name = file.get_ref<const std::string&>();
        // A shard is a file beside the index, never a path elsewhere.
        if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
            return Error{std::string(kSafetensorsIndex) + " names a shard outside its folder: " + printable(name)};
        index.shards.push_back(name);
    }
    std::sort(index.shards.begin(), index.shards.end());
    index.shards.erase(std::unique(index.shards.begin(), index.shards.end()), index.shards.end());
    if (const auto meta = doc.find("metadata"); meta != doc.end() && meta->is_object())
        if (const auto t = meta->find("total_size"); t != meta->end() && t->is_number_unsigned())
            index.total_size = t->get<std::uint64_t>();
    return index;
}

}  // namespace wiredcap::fit
