// Sources as numbered footnotes: a table's values stay short ("196608 MiB ... [1]") and each
// source, however long its path, is printed once under the table. Every value keeps its source.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace wiredcap::cli {

class Footnotes {
public:
    // "[n]" for this source, the same n each time the same source is named; "" for none.
    [[nodiscard]] std::string mark(const std::string& source);
    // "HEADING" and then one "  [n] source" line per source, in the order they were marked.
    void print(std::ostream& out, const std::string& heading) const;

private:
    std::vector<std::string> sources_;
};

}  // namespace wiredcap::cli
