#include "FailureKind.hpp"

#include <algorithm>
#include <cctype>

namespace mxl
{
    namespace
    {
        bool isHex(char c)
        {
            return std::isxdigit(static_cast<unsigned char>(c)) != 0;
        }

        bool isDigit(char c)
        {
            return std::isdigit(static_cast<unsigned char>(c)) != 0;
        }
    }

    std::string failureKind(std::string const& why)
    {
        std::string kind;
        for (auto at = why.begin(); at != why.end();)
        {
            // What the peer sent, quoted (a parse error's "last read: '...'").
            if (auto const closing = std::find(std::next(at), why.end(), '\''); *at == '\'' && closing != why.end())
            {
                kind += "'*'";
                at = std::next(closing);
                continue;
            }
            auto const end = std::find_if_not(at, why.end(), isHex);
            if (end == at)
            {
                kind += *at++;
                continue;
            }
            if (std::any_of(at, end, isDigit))
            {
                kind += '#';
            }
            else
            {
                kind.append(at, end);
            }
            at = end;
        }
        return kind;
    }
}
