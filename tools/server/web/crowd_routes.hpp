// The routes of the view across GPU models (crowd/crowd.hpp): its JSON,
// exports and moderation (crowd_api.cpp) and its web pages (crowd_pages.cpp,
// where the pages are built). The crowd must outlive the router's handlers.
#pragma once

#include <cstddef>

#include "crowd/crowd.hpp"
#include "http/router.hpp"

namespace gmserver {

void install_crowd_api(Router &router, Crowd &crowd);
// max_models: the models a page lists (the most uploaded first).
void install_crowd_pages(Router &router, Crowd &crowd, std::size_t max_models = 50);

}  // namespace gmserver
