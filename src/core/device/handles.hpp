// What the opaque C handles hold.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "core/device/context.hpp"

struct gm_context {
    std::shared_ptr<gmlab::ContextState> state;
};

struct gm_buffer {
    std::shared_ptr<gmlab::ContextState> state;  // keeps the device context alive
    void *ptr = nullptr;
    std::size_t bytes = 0;
};

struct gm_result {
    nlohmann::json doc;  // a gmlab.result/1 document
};
