// The raw baseline: what libfabric alone does for the same grains. Both ends poll their completion queue, as
// fi_rma_bw does, and every write is one fi_writemsg of header + payload with FI_DELIVERY_COMPLETE and remote CQ data
// `slot | slices << 16`, the SDK's wire contract (docs/fabrics.md, "Wire behaviour") that libmxl-fabrics also follows.
#include "RawFabric.hpp"
#include "SharedArena.hpp"
#include "Transport.hpp"

#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <fmt/format.h>

#include <arpa/inet.h>
#include <array>
#include <chrono>
#include <cstring>
#include <netinet/in.h>
#include <stdexcept>

namespace mxl::bench
{
    namespace
    {
        using raw::check;
        using raw::Fid;

        constexpr std::uint32_t maxRingSlots = 64;
        // Where the grain index sits in the 8192-byte header, as in mxlGrainInfo.
        constexpr std::size_t headerIndexOffset = 8;
        constexpr auto readWait = std::chrono::milliseconds{100};

        // What the raw target hands its initiator (both are this program, so the layout is simply this struct's).
        struct RawTicket
        {
            std::uint32_t addressBytes;
            std::uint32_t slots;
            std::array<std::uint64_t, maxRingSlots> slotAddress;
            std::array<std::uint64_t, maxRingSlots> slotKey;
            std::array<char, 256> address;
        };

        std::size_t slotStride(TransportConfig const& config)
        {
            constexpr std::size_t page = 4096;
            return (config.format.regionBytes() + page - 1) / page * page;
        }

        bool isRdm(TransportConfig const& config)
        {
            return config.provider == "shm";
        }

        // A ring of grain slots in shared memory (as an mxl flow's grains are), touched once and registered per slot.
        class RegisteredRing
        {
        public:
            RegisteredRing(TransportConfig const& config, fid_domain* domain, std::uint64_t access)
                : _stride{slotStride(config)}
                , _memory{_stride * config.ringSlots}
            {
                if (config.ringSlots > maxRingSlots)
                {
                    throw std::runtime_error{fmt::format("raw ring of {} slots; at most {} are supported", config.ringSlots, maxRingSlots)};
                }
                std::memset(base(), 0x5a, _stride * config.ringSlots);
                _regions.resize(config.ringSlots);
                for (std::uint32_t slot = 0; slot < config.ringSlots; ++slot)
                {
                    check(::fi_mr_reg(domain, slotBase(slot), config.format.regionBytes(), access, 0, slot + 1, 0, _regions[slot].out(),
                                      nullptr),
                          "fi_mr_reg", fmt::format("raw grain slot {}", slot));
                }
            }

            char* slotBase(std::uint32_t slot) noexcept
            {
                return base() + std::size_t{slot} * _stride;
            }

            void* descriptor(std::uint32_t slot) const noexcept
            {
                return ::fi_mr_desc(_regions[slot].get());
            }

            std::uint64_t key(std::uint32_t slot) const noexcept
            {
                return ::fi_mr_key(_regions[slot].get());
            }

            std::uint32_t slots() const noexcept
            {
                return static_cast<std::uint32_t>(_regions.size());
            }

        private:
            char* base() noexcept
            {
                return _memory.as<char>();
            }

            std::size_t _stride;
            SharedArena _memory;
            std::vector<Fid<fid_mr>> _regions;
        };

        fi_cq_attr completionQueueAttributes(TransportConfig const& config)
        {
            fi_cq_attr attributes{};
            attributes.size = config.depth;
            attributes.format = FI_CQ_FORMAT_DATA;
            attributes.wait_obj = FI_WAIT_NONE;
            return attributes;
        }

        // Binds the CQ for both directions (tcp on libfabric 1.17 crashes otherwise) and the AV if any.
        void bindAndEnable(fid_ep* endpoint, fid_cq* cq, fid_av* av, fid_eq* eq)
        {
            if (eq != nullptr)
            {
                check(::fi_ep_bind(endpoint, &eq->fid, 0), "fi_ep_bind", "raw endpoint event queue");
            }
            if (av != nullptr)
            {
                check(::fi_ep_bind(endpoint, &av->fid, 0), "fi_ep_bind", "raw endpoint address vector");
            }
            check(::fi_ep_bind(endpoint, &cq->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind", "raw endpoint completion queue");
            check(::fi_enable(endpoint), "fi_enable", "raw endpoint");
        }

        void openAddressVector(fid_domain* domain, Fid<fid_av>& av)
        {
            fi_av_attr attributes{};
            attributes.type = FI_AV_TABLE;
            attributes.count = 4;
            check(::fi_av_open(domain, &attributes, av.out(), nullptr), "fi_av_open", "raw address vector");
        }

        class RawRmaTarget final : public TargetTransport
        {
        public:
            explicit RawRmaTarget(TransportConfig const& config)
                : _info{isRdm(config) ? raw::getInfo(config.provider, nullptr, nullptr, 0)
                                      : raw::getInfo(config.provider, "127.0.0.1", "0", FI_SOURCE)}
            {
                check(::fi_fabric(_info->fabric_attr, _fabric.out(), nullptr), "fi_fabric", "raw target");
                check(::fi_domain(_fabric.get(), _info.get(), _domain.out(), nullptr), "fi_domain", "raw target");
                auto cqAttributes = completionQueueAttributes(config);
                check(::fi_cq_open(_domain.get(), &cqAttributes, _cq.out(), nullptr), "fi_cq_open", "raw target");
                _ring.emplace(config, _domain.get(), FI_REMOTE_WRITE);

                if (isRdm(config))
                {
                    openAddressVector(_domain.get(), _av);
                    check(::fi_endpoint(_domain.get(), _info.get(), _endpoint.out(), nullptr), "fi_endpoint", "raw target");
                    bindAndEnable(_endpoint.get(), _cq.get(), _av.get(), nullptr);
                    check(::fi_getname(_endpoint.fid(), _ticket.address.data(), &_addressBytes), "fi_getname", "raw target endpoint");
                    _connected = true;
                }
                else
                {
                    fi_eq_attr eqAttributes{};
                    eqAttributes.wait_obj = FI_WAIT_UNSPEC;
                    check(::fi_eq_open(_fabric.get(), &eqAttributes, _eq.out(), nullptr), "fi_eq_open", "raw target");
                    check(::fi_passive_ep(_fabric.get(), _info.get(), _listener.out(), nullptr), "fi_passive_ep", "raw target");
                    check(::fi_pep_bind(_listener.get(), &_eq.get()->fid, 0), "fi_pep_bind", "raw target listener");
                    check(::fi_listen(_listener.get()), "fi_listen", "raw target listener");
                    check(::fi_getname(_listener.fid(), _ticket.address.data(), &_addressBytes), "fi_getname", "raw target listener");
                }
                _ticket.addressBytes = static_cast<std::uint32_t>(_addressBytes);
                _ticket.slots = _ring->slots();
                bool const virtualAddresses = (_info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0;
                for (std::uint32_t slot = 0; slot < _ticket.slots; ++slot)
                {
                    _ticket.slotAddress[slot] = virtualAddresses ? reinterpret_cast<std::uintptr_t>(_ring->slotBase(slot)) : 0;
                    _ticket.slotKey[slot] = _ring->key(slot);
                }
            }

            std::vector<char> ticket() const override
            {
                auto const* bytes = reinterpret_cast<char const*>(&_ticket);
                return {bytes, bytes + sizeof _ticket};
            }

            std::optional<std::uint64_t> readGrain() override
            {
                if (!_connected)
                {
                    accept();
                }
                auto const deadline = std::chrono::steady_clock::now() + readWait;
                do
                {
                    fi_cq_data_entry entry{};
                    auto const code = ::fi_cq_read(_cq.get(), &entry, 1);
                    if (code == 1 && (entry.flags & FI_REMOTE_CQ_DATA) != 0)
                    {
                        return arrived(static_cast<std::uint32_t>(entry.data));
                    }
                    if (code == -FI_EAVAIL)
                    {
                        fi_cq_err_entry error{};
                        ::fi_cq_readerr(_cq.get(), &error, 0);
                        throw std::runtime_error{fmt::format("raw target completion error: {} ({})", ::fi_strerror(error.err), error.err)};
                    }
                    if (code != -FI_EAGAIN && code < 0)
                    {
                        check(code, "fi_cq_read", "raw target");
                    }
                } while (std::chrono::steady_clock::now() < deadline);
                return std::nullopt;
            }

        private:
            // The initiator connects only after it read the ticket, so the target accepts on its first read.
            void accept()
            {
                fi_eq_cm_entry request{};
                raw::awaitEvent(_eq.get(), FI_CONNREQ, request, "raw target waiting for a connection request");
                raw::Info const requestInfo{request.info};
                check(::fi_endpoint(_domain.get(), requestInfo.get(), _endpoint.out(), nullptr), "fi_endpoint", "raw target connection");
                bindAndEnable(_endpoint.get(), _cq.get(), nullptr, _eq.get());
                check(::fi_accept(_endpoint.get(), nullptr, 0), "fi_accept", "raw target connection");
                fi_eq_cm_entry established{};
                raw::awaitEvent(_eq.get(), FI_CONNECTED, established, "raw target accepting");
                _connected = true;
            }

            std::uint64_t arrived(std::uint32_t immediate)
            {
                auto const slot = immediate & 0xFFFFu;
                if (slot >= _ring->slots())
                {
                    throw std::runtime_error{fmt::format("raw target got slot {} of {} in remote CQ data", slot, _ring->slots())};
                }
                std::uint64_t index = 0;
                std::memcpy(&index, _ring->slotBase(slot) + headerIndexOffset, sizeof index);
                return index;
            }

            raw::Info _info;
            Fid<fid_fabric> _fabric;
            Fid<fid_eq> _eq;
            Fid<fid_pep> _listener;
            Fid<fid_domain> _domain;
            Fid<fid_av> _av;
            Fid<fid_cq> _cq;
            std::optional<RegisteredRing> _ring;
            Fid<fid_ep> _endpoint;
            RawTicket _ticket{};
            std::size_t _addressBytes = sizeof(RawTicket::address);
            bool _connected = false;
        };

        class RawRmaInitiator final : public InitiatorTransport
        {
        public:
            RawRmaInitiator(TransportConfig const& config, RawTicket const& ticket)
                : _config{config}
                , _ticket{ticket}
            {
                if (_ticket.slots == 0 || _ticket.slots > maxRingSlots)
                {
                    throw std::runtime_error{fmt::format("raw ticket names {} slots", _ticket.slots)};
                }
                if (isRdm(config))
                {
                    _info = raw::getInfo(config.provider, nullptr, nullptr, 0);
                }
                else
                {
                    sockaddr_in target{};
                    std::memcpy(&target, _ticket.address.data(), sizeof target);
                    auto const port = std::to_string(ntohs(target.sin_port));
                    _info = raw::getInfo(config.provider, "127.0.0.1", port.c_str(), 0);
                }
                check(::fi_fabric(_info->fabric_attr, _fabric.out(), nullptr), "fi_fabric", "raw initiator");
                check(::fi_domain(_fabric.get(), _info.get(), _domain.out(), nullptr), "fi_domain", "raw initiator");
                auto cqAttributes = completionQueueAttributes(config);
                check(::fi_cq_open(_domain.get(), &cqAttributes, _cq.out(), nullptr), "fi_cq_open", "raw initiator");
                _ring.emplace(config, _domain.get(), FI_WRITE);
                check(::fi_endpoint(_domain.get(), _info.get(), _endpoint.out(), nullptr), "fi_endpoint", "raw initiator");
                if (isRdm(config))
                {
                    openAddressVector(_domain.get(), _av);
                    bindAndEnable(_endpoint.get(), _cq.get(), _av.get(), nullptr);
                    if (::fi_av_insert(_av.get(), _ticket.address.data(), 1, &_targetAddress, 0, nullptr) != 1)
                    {
                        throw std::runtime_error{"fi_av_insert of the raw target's address inserted nothing"};
                    }
                }
                else
                {
                    fi_eq_attr eqAttributes{};
                    eqAttributes.wait_obj = FI_WAIT_UNSPEC;
                    check(::fi_eq_open(_fabric.get(), &eqAttributes, _eq.out(), nullptr), "fi_eq_open", "raw initiator");
                    bindAndEnable(_endpoint.get(), _cq.get(), nullptr, _eq.get());
                    check(::fi_connect(_endpoint.get(), _info->dest_addr, nullptr, 0), "fi_connect", "raw initiator");
                    fi_eq_cm_entry established{};
                    raw::awaitEvent(_eq.get(), FI_CONNECTED, established, "raw initiator connecting");
                }
            }

            void stage(std::uint64_t index) override
            {
                std::memcpy(_ring->slotBase(localSlot(index)) + headerIndexOffset, &index, sizeof index);
            }

            bool transfer(std::uint64_t index) override
            {
                if (_outstanding >= _config.depth)
                {
                    return false;
                }
                auto const local = localSlot(index);
                auto const remote = static_cast<std::uint32_t>(index % _ticket.slots);
                iovec source{_ring->slotBase(local), _config.format.regionBytes()};
                void* descriptor = _ring->descriptor(local);
                fi_rma_iov destination{_ticket.slotAddress[remote], _config.format.regionBytes(), _ticket.slotKey[remote]};
                fi_msg_rma message{};
                message.msg_iov = &source;
                message.desc = &descriptor;
                message.iov_count = 1;
                message.addr = _targetAddress;
                message.rma_iov = &destination;
                message.rma_iov_count = 1;
                message.data = remote | (static_cast<std::uint64_t>(_config.format.height) << 16);
                auto const code = ::fi_writemsg(_endpoint.get(), &message, FI_DELIVERY_COMPLETE | FI_REMOTE_CQ_DATA);
                if (code == -FI_EAGAIN)
                {
                    return false;
                }
                check(code, "fi_writemsg", fmt::format("raw grain {}", index));
                ++_outstanding;
                return true;
            }

            bool progress() override
            {
                std::array<fi_cq_data_entry, 8> entries{};
                auto const code = ::fi_cq_read(_cq.get(), entries.data(), entries.size());
                if (code > 0)
                {
                    _outstanding -= static_cast<std::uint32_t>(code);
                }
                else if (code == -FI_EAVAIL)
                {
                    fi_cq_err_entry error{};
                    ::fi_cq_readerr(_cq.get(), &error, 0);
                    throw std::runtime_error{fmt::format("raw initiator completion error: {} ({})", ::fi_strerror(error.err), error.err)};
                }
                else if (code != -FI_EAGAIN)
                {
                    check(code, "fi_cq_read", "raw initiator");
                }
                return _outstanding == 0;
            }

        private:
            std::uint32_t localSlot(std::uint64_t index) const noexcept
            {
                return static_cast<std::uint32_t>(index % _ring->slots());
            }

            TransportConfig _config;
            RawTicket _ticket;
            raw::Info _info;
            Fid<fid_fabric> _fabric;
            Fid<fid_eq> _eq;
            Fid<fid_domain> _domain;
            Fid<fid_av> _av;
            Fid<fid_cq> _cq;
            std::optional<RegisteredRing> _ring;
            Fid<fid_ep> _endpoint;
            fi_addr_t _targetAddress = FI_ADDR_UNSPEC;
            std::uint32_t _outstanding = 0;
        };
    }

    std::unique_ptr<TargetTransport> makeRawTarget(TransportConfig const& config)
    {
        return std::make_unique<RawRmaTarget>(config);
    }

    std::unique_ptr<InitiatorTransport> makeRawInitiator(TransportConfig const& config, std::vector<char> const& ticket)
    {
        if (ticket.size() != sizeof(RawTicket))
        {
            throw std::runtime_error{fmt::format("raw ticket of {} bytes; expected {}", ticket.size(), sizeof(RawTicket))};
        }
        RawTicket parsed;
        std::memcpy(&parsed, ticket.data(), sizeof parsed);
        return std::make_unique<RawRmaInitiator>(config, parsed);
    }
}
