#include "check_reference.hpp"

namespace gmcli::check {

extern const char kCheckReferenceJson[];  // check_reference_data.cpp, generated from check_reference.json

const nlohmann::json &embedded_reference() {
    static const nlohmann::json doc = nlohmann::json::parse(kCheckReferenceJson, nullptr, false);
    static const nlohmann::json none;
    return doc.is_discarded() ? none : doc;
}

}  // namespace gmcli::check
