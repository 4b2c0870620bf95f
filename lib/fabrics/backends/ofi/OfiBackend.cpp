// The libfabric backend behind the core's one entry point.
#include "fabrics/backends/ofi/OfiDomain.hpp"
#include "fabrics/backends/ofi/OfiInitialise.hpp"
#include "fabrics/backends/ofi/OfiInitiator.hpp"
#include "fabrics/backends/ofi/OfiInterfaces.hpp"
#include "fabrics/backends/ofi/OfiTarget.hpp"
#include "fabrics/core/Backend.hpp"

namespace mxl::fabrics
{
    namespace
    {
        // Domains handed back to this backend are the ones it opened.
        OfiDomain const& ofiDomainOf(TransportDomain const& domain) noexcept
        {
            return static_cast<OfiDomain const&>(domain);
        }

        class OfiBackend final : public Backend
        {
        public:
            void initialise() override
            {
                initialiseOfi();
            }

            void forEachInterface(mxlFabricsInterfaceConfig const* query,
                                  std::function<void(mxlFabricsInterfaceConfig const&)> const& emit) override
            {
                forEachOfiInterface(query, emit);
            }

            std::unique_ptr<TransportDomain> openDomain(mxlFabricsInterfaceConfig const& config, Role role) override
            {
                return openOfiDomain(config, role);
            }

            std::unique_ptr<TargetTransport> openTarget(TransportDomain const& domain, RegionSpans const& regions, std::size_t cqDepth,
                                                        std::uint64_t targetId) override
            {
                return openOfiTarget(ofiDomainOf(domain), regions, cqDepth, targetId);
            }

            std::unique_ptr<InitiatorTransport> openInitiator(TransportDomain const& domain, std::size_t cqDepth) override
            {
                return openOfiInitiator(ofiDomainOf(domain), cqDepth);
            }
        };
    }

    Backend& backend()
    {
        static OfiBackend ofi;
        return ofi;
    }
}
