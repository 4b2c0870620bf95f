#include "TargetListen.hpp"

#include <FabricsInterfaces.hpp>
#include <common/StatusName.hpp>

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

namespace mxl::service
{
    Ticket listenForTicket(tools::FabricsTarget const& target, tools::FabricsInterface const& interface, mxlFlowWriter writer,
                           ServiceConfig const& config, std::string_view keys)
    {
        mxlFabricsTargetConfig setup{};
        setup.version = MXL_FABRICS_API_VERSION;
        setup.interface = tools::interfaceConfig(interface);
        setup.writer = writer;
        mxlFabricsTargetInfo info = nullptr;
        if (auto const status = ::mxlFabricsTargetSetup(target.get(), &setup, config.setupOptions.c_str(), &info); status != MXL_STATUS_OK)
        {
            throw ConfigError{fmt::format("{}: the {} target cannot listen on node '{}' service '{}' ({}): {}", config.origin,
                                          tools::providerName(interface.provider), interface.node, interface.service, keys,
                                          mxl::statusName(status))};
        }
        tools::OwnedTargetInfo const owned{info};
        std::size_t size = 0;
        ::mxlFabricsTargetInfoToString(info, nullptr, &size);
        std::vector<char> text(size);
        if (auto const status = ::mxlFabricsTargetInfoToString(info, text.data(), &size); status != MXL_STATUS_OK || size == 0)
        {
            throw std::runtime_error{fmt::format("cannot serialize the ticket: {}", mxl::statusName(status))};
        }
        std::string why;
        // The size counts the NUL, which belongs in neither the file nor the HTTP body.
        auto ticket = directory::parseTicket(std::string{text.data()}, why);
        if (!ticket || ticket->epoch == 0)
        {
            throw std::runtime_error{fmt::format("the fabrics library's ticket {}", ticket ? "has no epoch" : why)};
        }
        return std::move(*ticket);
    }
}
