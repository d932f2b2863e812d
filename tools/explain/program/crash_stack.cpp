#include "explain/program/crash_stack.hpp"

#include <fstream>

#include "inject/kernel_choice.hpp"

namespace gmexplain {

namespace {

// "/usr/lib/libfoo.so.1(sym+0x10) [0x7f..]" -> {"libfoo.so.1", "sym"};
// "python3(+0x1234)[..]" -> {"python3", ""}; "[0x7f..]" -> {"", ""}.
std::pair<std::string, std::string> frame_parts(const std::string &line) {
    const std::size_t open = line.find('(');
    const std::size_t bracket = line.find('[');
    std::string object = line.substr(0, std::min(open, bracket));
    while (!object.empty() && object.back() == ' ') object.pop_back();
    if (const std::size_t slash = object.rfind('/'); slash != std::string::npos) object = object.substr(slash + 1);
    std::string symbol;
    if (open != std::string::npos) {
        const std::size_t close = line.find(')', open);
        symbol = line.substr(open + 1, close == std::string::npos ? std::string::npos : close - open - 1);
        if (const std::size_t plus = symbol.rfind('+'); plus != std::string::npos) symbol = symbol.substr(0, plus);
    }
    if (!symbol.empty()) symbol = demangled(symbol);
    if (symbol.size() > 60) symbol = symbol.substr(0, 57) + "...";
    return {object, symbol};
}

}  // namespace

std::vector<std::string> read_crash_stack(const std::string &folder, const std::string &pass, int pid) {
    std::vector<std::string> lines;
    std::ifstream in(folder + "/" + pass + "-" + std::to_string(pid) + ".stack");
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) lines.push_back(line);
    return lines;
}

std::string crash_stack_summary(const std::vector<std::string> &lines, std::size_t max_frames) {
    struct Run {
        std::string object, symbol;
        int frames = 0;
    };
    std::vector<Run> runs;
    for (const auto &line : lines) {
        auto [object, symbol] = frame_parts(line);
        if (object.rfind("libgmlab_explain_inject", 0) == 0) continue;  // the handler that wrote the stack
        if (object.empty()) object = "?";
        if (!runs.empty() && runs.back().object == object) {
            ++runs.back().frames;
            if (runs.back().symbol.empty()) runs.back().symbol = symbol;
            continue;
        }
        if (runs.size() == max_frames) break;
        runs.push_back({object, symbol, 1});
    }
    std::string out;
    for (const auto &r : runs) {
        if (!out.empty()) out += " < ";
        out += r.object;
        if (r.frames > 1) out += " (x" + std::to_string(r.frames) + ")";
        if (!r.symbol.empty()) out += " (" + r.symbol + ")";
    }
    return out;
}

}  // namespace gmexplain
