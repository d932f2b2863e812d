// The routes of the view across GPU models (crowd/crowd.hpp): its JSON,
// exports and moderation (crowd_api.cpp) and its web pages (crowd_pages.cpp,
// where the pages are built). The crowd must outlive the router's handlers.
#pragma once

#include "crowd/crowd.hpp"
#include "http/router.hpp"

namespace gmserver {

void install_crowd_api(Router &router, Crowd &crowd);
void install_crowd_pages(Router &router, Crowd &crowd);

}  // namespace gmserver
