#include "wiredcap/system/journal/pages_record.hpp"

namespace wiredcap::journal {

std::string to_json_line(const Record& r, const PagesFields& p, const Stamp& s,
                         std::int64_t unix_time) {
    JsonObject o = to_json(r, s, unix_time);
    if (!p.param.empty()) o.str("param", p.param);
    if (p.to_pages) o.num("to_pages", *p.to_pages);
    if (p.readback_pages) o.num("readback_pages", *p.readback_pages);
    if (p.page_size) o.num("page_size", *p.page_size);
    if (!p.place.empty()) o.str("place", p.place);
    return o.text() + "\n";
}

}  // namespace wiredcap::journal
