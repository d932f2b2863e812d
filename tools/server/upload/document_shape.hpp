// The types of the fields the pages show (docs/schema/gmlab.result-1.schema.json):
// a document whose device block says memory_clock_mhz: "fast" would pass
// every other check and then break its own result page, so it is refused at
// upload, naming the field, rather than at read.
#pragma once

#include <string>

namespace simdjson::dom {
class element;
}

namespace gmserver {

// "" when every field the pages read has its schema's type, else the first
// that does not, e.g. "document.device.memory_clock_mhz: must be a number".
std::string shape_problem(const simdjson::dom::element &root);

}  // namespace gmserver
