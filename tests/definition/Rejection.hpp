// Checks that a parser rejects its input with MXL_ERR_UNKNOWN and a message naming what was wrong.
#pragma once

#include "common/Status.hpp"

#include <doctest/doctest.h>

#include <initializer_list>
#include <string>
#include <string_view>

namespace mxl::test
{
    // Runs `parse`, expects an mxl::Error with MXL_ERR_UNKNOWN, and checks that its message contains every fragment.
    template <typename Parse>
    void checkRejected(Parse&& parse, std::initializer_list<std::string_view> fragments)
    {
        std::string message = "(accepted)";
        try
        {
            parse();
        }
        catch (mxl::Error const& e)
        {
            CHECK(e.status() == MXL_ERR_UNKNOWN);
            message = e.what();
        }
        INFO("message: ", message);
        CHECK(message != "(accepted)");
        for (auto const fragment : fragments)
        {
            CHECK(message.find(fragment) != std::string::npos);
        }
    }
}
