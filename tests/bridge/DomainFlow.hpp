// A flow in a domain of its own, with a writer and a reader on it: what the bridge's tests write as a source or a
// fabrics target would, and read back. Released in reverse order of creation.
#pragma once

#include "TempDomain.hpp"

#include <client/MxlHandles.hpp>

#include <string>

namespace mxl::test
{
    struct DomainFlow
    {
        // `definition`: the flow's NMOS JSON text, `flowId` the id it gives the flow; `tag` names the domain, and the
        // flow in errors. Throws what client::FlowWriter and client::FlowReader throw.
        DomainFlow(std::string const& tag, std::string const& definition, std::string const& flowId);

        TempDomain domain;
        client::Instance instance;
        client::FlowWriter writer;
        client::FlowReader reader;
    };
}
