#include "FlowDefinitionCopy.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <random>
#include <stdexcept>

namespace mxl::bench::capacity
{
    namespace
    {
        std::string randomUuid()
        {
            static std::mt19937_64 generator{std::random_device{}()};
            auto high = generator();
            auto low = generator();
            // RFC 4122: version 4 in the top nibble of the seventh byte, variant 10 in the top bits of the ninth.
            high = (high & ~std::uint64_t{0xF000}) | 0x4000;
            low = (low & ~(std::uint64_t{0xC} << 60)) | (std::uint64_t{0x8} << 60);
            return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", high >> 32, (high >> 16) & 0xFFFF, high & 0xFFFF, low >> 48,
                               low & 0xFFFF'FFFF'FFFF);
        }
    }

    std::string writeFlowCopy(std::filesystem::path const& definition, std::filesystem::path const& copy)
    {
        std::ifstream input{definition};
        if (!input)
        {
            throw std::runtime_error{fmt::format("cannot read the flow definition {}", definition.string())};
        }
        auto flow = nlohmann::json::parse(input, nullptr, false);
        if (flow.is_discarded() || !flow.is_object())
        {
            throw std::runtime_error{fmt::format("the flow definition {} is not a JSON object", definition.string())};
        }
        auto const id = randomUuid();
        flow["id"] = id;
        std::ofstream output{copy};
        output << flow.dump(4) << '\n';
        if (!output)
        {
            throw std::runtime_error{fmt::format("cannot write the flow definition copy {}", copy.string())};
        }
        return id;
    }
}
