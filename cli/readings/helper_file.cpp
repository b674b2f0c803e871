#include "wiredcap/cli/readings/helper_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace wiredcap::cli {

HelperFile read_helper_file(const std::string& path) {
    HelperFile h{path, std::nullopt, std::nullopt, std::nullopt, {}};
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        h.why_unknown = std::string("stat: ") + std::strerror(errno);
        return h;
    }
    h.mode = static_cast<unsigned>(st.st_mode) & 07777U;
    h.uid = static_cast<unsigned>(st.st_uid);
    h.gid = static_cast<unsigned>(st.st_gid);
    return h;
}

std::string mode_text(unsigned mode) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04o", mode & 07777U);
    return buf;
}

JsonObject helper_file_json(const HelperFile& h) {
    JsonObject o;
    o.str("path", h.path);
    if (h.mode) o.str("mode", mode_text(*h.mode)).boolean("setuid", (*h.mode & 04000U) != 0);
    else o.null("mode").null("setuid");
    if (h.uid) o.num("uid", *h.uid);
    else o.null("uid");
    if (h.gid) o.num("gid", *h.gid);
    else o.null("gid");
    o.str("source", "stat of the helper wiredcap runs");
    if (!h.mode) o.str("why_unknown", h.why_unknown);
    return o;
}

}  // namespace wiredcap::cli
