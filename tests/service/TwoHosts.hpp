// Two network namespaces joined by a veth pair (198.51.100.1/24 and 198.51.100.2/24): a target "host" and an initiator
// "host" on one machine, with a link the test can cut. The namespaces are deleted in the destructor.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace mxl::test
{
    class TwoHosts
    {
    public:
        static constexpr char const* targetAddress = "198.51.100.1";

        // nullptr when namespaces cannot be made here; `whyNot` then says why.
        static std::unique_ptr<TwoHosts> create(std::string& whyNot);
        ~TwoHosts();

        TwoHosts(TwoHosts const&) = delete;
        TwoHosts& operator=(TwoHosts const&) = delete;

        [[nodiscard]] std::vector<std::string> onTarget() const;
        [[nodiscard]] std::vector<std::string> onInitiator() const;

        // Takes the target's end of the link down or up (up waits for the carrier); false when `ip` failed.
        bool setLink(bool up) const;

    private:
        explicit TwoHosts(std::string tag);

        std::string _tag;
    };
}
