#include "http/client_address.hpp"

#include <sstream>

#include <boost/asio/ip/address.hpp>
#include <vector>

namespace gmserver {

namespace {

std::string trim(const std::string &s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    const auto e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

}  // namespace

std::string client_address(const std::string &peer, const std::string &forwarded_for,
                           const std::set<std::string> &trusted_proxies) {
    if (forwarded_for.empty() || !trusted_proxies.count(peer)) return peer;
    // Each proxy appends the address it received from; walk from the right and
    // stop at the first hop that is not one of ours.
    std::vector<std::string> hops;
    std::stringstream in(forwarded_for);
    std::string part;
    while (std::getline(in, part, ',')) {
        part = trim(part);
        if (!part.empty()) hops.push_back(part);
    }
    for (auto it = hops.rbegin(); it != hops.rend(); ++it)
        if (!trusted_proxies.count(*it)) return *it;
    return hops.empty() ? peer : hops.front();
}

}  // namespace gmserver

namespace gmserver {

std::string client_network(const std::string &address) {
    boost::system::error_code ec;
    boost::asio::ip::address a = boost::asio::ip::make_address(address, ec);
    if (ec) return address;
    if (a.is_v6() && a.to_v6().is_v4_mapped()) a = boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, a.to_v6());
    if (a.is_v4()) {
        auto b = a.to_v4().to_bytes();
        b[3] = 0;
        return boost::asio::ip::address_v4(b).to_string() + "/24";
    }
    auto b = a.to_v6().to_bytes();
    for (std::size_t i = 8; i < b.size(); ++i) b[i] = 0;
    return boost::asio::ip::address_v6(b).to_string() + "/64";
}

}  // namespace gmserver
