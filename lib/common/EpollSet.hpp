// An epoll set that polls readable (level-triggered) while any of its descriptors does: several waits behind the one
// descriptor an application polls.
#pragma once

#include "common/Status.hpp"
#include "common/UniqueFd.hpp"

#include <sys/epoll.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <string_view>

namespace mxl
{
    // The set of `descriptors`, owned by the caller; fails naming `owner` ("fabrics target 7").
    inline int openEpollSet(std::initializer_list<int> descriptors, std::string_view owner)
    {
        UniqueFd set{::epoll_create1(EPOLL_CLOEXEC)};
        if (set.get() < 0)
        {
            fail(MXL_ERR_UNKNOWN, "{}: epoll_create1 failed: {}", owner, std::strerror(errno));
        }
        for (auto const descriptor : descriptors)
        {
            epoll_event interest{};
            interest.events = EPOLLIN;
            interest.data.fd = descriptor;
            if (::epoll_ctl(set.get(), EPOLL_CTL_ADD, descriptor, &interest) != 0)
            {
                fail(MXL_ERR_UNKNOWN, "{}: adding descriptor {} to an epoll set failed: {}", owner, descriptor, std::strerror(errno));
            }
        }
        return set.take();
    }
}
