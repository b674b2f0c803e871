// SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex digits: the identity of the policy
// file that vouched for a value, as `shasum -a 256 /etc/wiredcap.conf` prints it, so an
// administrator can tell from the journal which version of a fleet's policy was in force.
#pragma once

#include <string>
#include <string_view>

namespace wiredcap::policy {

[[nodiscard]] std::string sha256_hex(std::string_view data);

}  // namespace wiredcap::policy
