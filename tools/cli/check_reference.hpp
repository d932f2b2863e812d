// gmlab check's embedded reference: tools/cli/check_reference.json (made by
// scripts/check-reference.py from the runs committed in results/) compiled
// into the binary, so that a lone GPU is judged without a server, installed
// or in the build tree alike (docs/check.md, "The embedded reference").
#pragma once

#include <nlohmann/json.hpp>

namespace gmcli::check {

// The reference document (gmlab.check.reference/1), parsed once.
const nlohmann::json &embedded_reference();

}  // namespace gmcli::check
