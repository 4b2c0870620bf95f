// Name resolution that keeps the caller's deadline. getaddrinfo has none of its own: a name server that never answers
// holds the caller for the resolver's timeout, times its attempts, times the name servers listed (resolv.conf(5): 10 s
// with one server at glibc's defaults), whatever deadline the caller was given. A host that is an address is taken as
// it is, without a lookup; a name is looked up on a thread of its own, which the caller waits for until its deadline
// and then leaves to end when the resolver gives up. Callers asking for a host and port whose lookup is still under way
// wait for that one rather than starting another, so a source polled every half second through a silent name server
// keeps one lookup going, not twenty.
#pragma once

#include <netdb.h>

#include <chrono>
#include <memory>
#include <string>
#include <variant>

namespace mxl
{
    // Shared by the callers of one lookup.
    using AddressList = std::shared_ptr<addrinfo const>;

    // The stream-socket addresses of `host` and `port` in the resolver's order, or why there are none, in words that
    // name the host.
    [[nodiscard]] std::variant<AddressList, std::string> resolveHost(std::string const& host, std::string const& port,
                                                                     std::chrono::steady_clock::time_point deadline);
}
