# Writes rules_data.cpp: every file of tools/explain/rules/ as a string, so that
# the library carries its rules (gmlab explain --rules DIR reads others).
file(GLOB rule_files "${RULES_DIR}/*.json")
list(SORT rule_files)
set(body "")
foreach(f ${rule_files})
  get_filename_component(name ${f} NAME)
  file(READ ${f} text)
  set(body "${body}        {\"${name}\", R\"gmlab_rule(${text})gmlab_rule\"},\n")
endforeach()
file(WRITE ${OUTPUT}.tmp "// Generated from tools/explain/rules/ by rules_data.cmake: do not edit.
#include <string>
#include <utility>
#include <vector>

namespace gmexplain {
const std::vector<std::pair<std::string, std::string>> &builtin_rule_files() {
    static const std::vector<std::pair<std::string, std::string>> files = {
${body}    };
    return files;
}
}  // namespace gmexplain
")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUTPUT}.tmp ${OUTPUT})
