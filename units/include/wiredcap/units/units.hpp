// Everything in the units layer.
#pragma once

#include "wiredcap/units/casts.hpp"      // IWYU pragma: export
#include "wiredcap/expected.hpp"         // IWYU pragma: export
#include "wiredcap/units/format.hpp"     // IWYU pragma: export
#include "wiredcap/units/literals.hpp"   // IWYU pragma: export
#include "wiredcap/units/pages.hpp"      // IWYU pragma: export
#include "wiredcap/units/parse.hpp"      // IWYU pragma: export
#include "wiredcap/units/quantity.hpp"   // IWYU pragma: export
#include "wiredcap/units/size_unit.hpp"  // IWYU pragma: export
