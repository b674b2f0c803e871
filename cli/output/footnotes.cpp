#include "wiredcap/cli/output/footnotes.hpp"

#include <algorithm>
#include <ostream>

namespace wiredcap::cli {

std::string Footnotes::mark(const std::string& source) {
    if (source.empty()) return "";
    auto it = std::find(sources_.begin(), sources_.end(), source);
    if (it == sources_.end()) it = sources_.insert(sources_.end(), source);
    return "[" + std::to_string(it - sources_.begin() + 1) + "]";
}

void Footnotes::print(std::ostream& out, const std::string& heading) const {
    if (sources_.empty()) return;
    out << heading << "\n";
    // Marks right-aligned, so that the sources start in one column up to [99].
    for (std::size_t i = 0; i < sources_.size(); ++i) {
        const std::string mark = "[" + std::to_string(i + 1) + "]";
        out << std::string(mark.size() < 5 ? 6 - mark.size() : 1, ' ') << mark << " " << sources_[i]
            << "\n";
    }
}

}  // namespace wiredcap::cli
