#include "inject/sites/nvtx_ranges.hpp"

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <cstdlib>

namespace gmexplain {

namespace {

thread_local std::vector<std::string> t_ranges;

int push_message(const char *message) {
    t_ranges.emplace_back(message ? message : "");
    return int(t_ranges.size()) - 1;
}

int NVTX_API push_a(const char *message) { return push_message(message); }

int NVTX_API push_ex(const nvtxEventAttributes_t *attributes) {
    const bool ascii = attributes && attributes->messageType == NVTX_MESSAGE_TYPE_ASCII;
    return push_message(ascii ? attributes->message.ascii : "");
}

int NVTX_API pop() {
    if (t_ranges.empty()) return -1;
    t_ranges.pop_back();
    return int(t_ranges.size());
}

int NVTX_API domain_push_ex(nvtxDomainHandle_t, const nvtxEventAttributes_t *attributes) { return push_ex(attributes); }
int NVTX_API domain_pop(nvtxDomainHandle_t) { return pop(); }

// "seq = 12" in a range's text, -1 if absent.
long long sequence_number(const std::string &range) {
    const auto at = range.find("seq = ");
    if (at == std::string::npos) return -1;
    char *end = nullptr;
    const long long n = std::strtoll(range.c_str() + at + 6, &end, 10);
    return end != range.c_str() + at + 6 ? n : -1;
}

// The range's name: the text before its first ", ".
std::string range_name(const std::string &range) { return range.substr(0, range.find(", ")); }

bool install(NvtxGetExportTableFunc_t get_table, NvtxCallbackModule module,
             std::initializer_list<std::pair<unsigned, NvtxFunctionPointer>> entries) {
    const auto *callbacks = static_cast<const NvtxExportTableCallbacks *>(get_table(NVTX_ETID_CALLBACKS));
    if (!callbacks || !callbacks->GetModuleFunctionTable) return false;
    NvtxFunctionTable table = nullptr;
    unsigned size = 0;
    if (!callbacks->GetModuleFunctionTable(module, &table, &size) || !table) return false;
    for (const auto &[id, fn] : entries)
        if (id < size && table[id]) *table[id] = fn;
    return true;
}

}  // namespace

const std::vector<std::string> &nvtx_open_ranges() { return t_ranges; }

// An autograd node's range: "MmBackward0" (the node's own, with its
// sequence number) or "autograd::engine::evaluate_function: MmBackward0".
bool backward_node(const std::string &name, std::string *node) {
    const auto evaluate = name.find("evaluate_function: ");
    const std::string n = evaluate == std::string::npos ? name : name.substr(evaluate + 19);
    auto end = n.find_last_not_of("0123456789");
    if (end == std::string::npos || end < 7 || n.compare(end - 7, 8, "Backward") != 0) return false;
    *node = n;
    return true;
}

OperatorContext operator_context(const std::vector<std::string> &ranges) {
    OperatorContext c;
    for (const auto &r : ranges) {
        const std::string name = range_name(r);
        const long long seq = sequence_number(r);
        std::string node;
        if (backward_node(name, &node)) {
            c.backward_node = node;
            if (seq >= 0) c.backward_seq = seq;
        } else if (c.forward_seq < 0 && seq >= 0 && c.backward_node.empty()) {
            c.forward_seq = seq;
        }
        if (name.rfind("aten::", 0) == 0) {
            if (c.op.empty()) c.op = name;
            c.inner_op = name;
        }
    }
    return c;
}

}  // namespace gmexplain

// NVTX calls this once, on the program's first NVTX call, when
// NVTX_INJECTION64_PATH names this library; 1 tells it the tool initialised.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
    using gmexplain::install;
    const bool core = install(get_table, NVTX_CB_MODULE_CORE,
                              {{NVTX_CBID_CORE_RangePushA, reinterpret_cast<NvtxFunctionPointer>(&gmexplain::push_a)},
                               {NVTX_CBID_CORE_RangePushEx, reinterpret_cast<NvtxFunctionPointer>(&gmexplain::push_ex)},
                               {NVTX_CBID_CORE_RangePop, reinterpret_cast<NvtxFunctionPointer>(&gmexplain::pop)}});
    install(get_table, NVTX_CB_MODULE_CORE2,
            {{NVTX_CBID_CORE2_DomainRangePushEx, reinterpret_cast<NvtxFunctionPointer>(&gmexplain::domain_push_ex)},
             {NVTX_CBID_CORE2_DomainRangePop, reinterpret_cast<NvtxFunctionPointer>(&gmexplain::domain_pop)}});
    return core ? 1 : 0;
}
