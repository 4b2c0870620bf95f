#include "HostilePeer.hpp"

#include "fabrics/ticket/TargetInfo.hpp"

#include <doctest/doctest.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <cstring>
#include <random>
#include <string>
#include <utility>

namespace mxl::test::fabrics
{
    namespace
    {
        void require(int code, char const* call)
        {
            REQUIRE_MESSAGE(code == 0, call, " failed: ", ::fi_strerror(-code));
        }

        // Calls `create`, a libfabric call whose last two parameters are where it stores the new object and a context,
        // with `arguments` before them; REQUIREs success and owns the object.
        template <typename T, typename Create, typename... Arguments>
        mxl::fabrics::Fid<T> open(char const* call, Create create, Arguments&&... arguments)
        {
            T* object = nullptr;
            require(create(std::forward<Arguments>(arguments)..., &object, nullptr), call);
            return mxl::fabrics::Fid<T>{object};
        }
    }

    HostilePeer::HostilePeer(mxlFabricsTargetInfo ticket, std::function<void()> drive)
        : _ticket{ticket->info}
        , _drive{std::move(drive)}
        , _buffer(32 << 20)
    {
        auto* hints = ::fi_allocinfo();
        REQUIRE(hints != nullptr);
        hints->fabric_attr->prov_name = ::strdup(_ticket.provider == MXL_FABRICS_PROVIDER_SHM ? "shm" : "tcp");
        hints->ep_attr->type = connectionless() ? FI_EP_RDM : FI_EP_MSG;
        hints->caps = FI_RMA | FI_WRITE | (connectionless() ? 0 : FI_MSG);
        hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
        hints->addr_format = _ticket.addressFormat;
        if (!connectionless())
        {
            hints->dest_addr = std::malloc(_ticket.fabricAddress.size());
            std::memcpy(hints->dest_addr, _ticket.fabricAddress.data(), _ticket.fabricAddress.size());
            hints->dest_addrlen = _ticket.fabricAddress.size();
        }
        auto const found = ::fi_getinfo(FI_VERSION(1, 17), nullptr, nullptr, 0, hints, &_info);
        ::fi_freeinfo(hints);
        require(found, "fi_getinfo");

        _fabric = open<fid_fabric>("fi_fabric", ::fi_fabric, _info->fabric_attr);
        _domain = open<fid_domain>("fi_domain", ::fi_domain, _fabric.get(), _info);
        fi_cq_attr cqAttributes{};
        cqAttributes.format = FI_CQ_FORMAT_DATA;
        cqAttributes.size = 64;
        _completions = open<fid_cq>("fi_cq_open", ::fi_cq_open, _domain.get(), &cqAttributes);

        // tcp 1.17 has no provider keys: a registration needs a key of its own.
        _region =
            open<fid_mr>("fi_mr_reg", ::fi_mr_reg, _domain.get(), _buffer.data(), _buffer.size(), FI_WRITE, 0, std::random_device{}(), 0);

        _endpoint = open<fid_ep>("fi_endpoint", ::fi_endpoint, _domain.get(), _info);
        require(::fi_ep_bind(_endpoint.get(), &_completions.get()->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind (cq)");
        if (connectionless())
        {
            fi_av_attr avAttributes{};
            avAttributes.type = FI_AV_TABLE;
            _addresses = open<fid_av>("fi_av_open", ::fi_av_open, _domain.get(), &avAttributes);
            require(::fi_ep_bind(_endpoint.get(), &_addresses.get()->fid, 0), "fi_ep_bind (av)");
            require(::fi_enable(_endpoint.get()), "fi_enable");
            REQUIRE(::fi_av_insert(_addresses.get(), _ticket.fabricAddress.data(), 1, &_target, 0, nullptr) == 1);
            return;
        }
        fi_eq_attr eqAttributes{};
        eqAttributes.wait_obj = FI_WAIT_UNSPEC;
        _events = open<fid_eq>("fi_eq_open", ::fi_eq_open, _fabric.get(), &eqAttributes);
        require(::fi_ep_bind(_endpoint.get(), &_events.get()->fid, 0), "fi_ep_bind (eq)");
        require(::fi_enable(_endpoint.get()), "fi_enable");
        require(::fi_connect(_endpoint.get(), _info->dest_addr, nullptr, 0), "fi_connect");
        auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{10};
        while (std::chrono::steady_clock::now() < deadline)
        {
            _drive();
            std::uint32_t event = 0;
            fi_eq_cm_entry entry{};
            if (::fi_eq_read(_events.get(), &event, &entry, sizeof entry, 0) > 0 && event == FI_CONNECTED)
            {
                return;
            }
        }
        FAIL("the hostile peer could not connect to the target");
    }

    HostilePeer::~HostilePeer()
    {
        if (_endpoint.get() != nullptr && !connectionless())
        {
            ::fi_shutdown(_endpoint.get(), 0);
        }
        _endpoint = {};
        _region = {};
        _addresses = {};
        _completions = {};
        _events = {};
        _domain = {};
        _fabric = {};
        ::fi_freeinfo(_info);
    }

    bool HostilePeer::connectionless() const noexcept
    {
        return _ticket.provider == MXL_FABRICS_PROVIDER_SHM;
    }

    std::optional<int> HostilePeer::write(std::uint64_t remoteAddress, std::uint64_t key, std::size_t length, std::uint8_t fill,
                                          std::optional<std::uint32_t> immediate, std::chrono::milliseconds timeout)
    {
        REQUIRE(length <= _buffer.size());
        std::memset(_buffer.data(), fill, length);
        return post(remoteAddress, key, length, immediate, timeout);
    }

    std::optional<int> HostilePeer::writeBytes(std::size_t region, std::uint64_t offset, std::vector<std::uint8_t> const& bytes,
                                               std::optional<std::uint32_t> immediate)
    {
        REQUIRE(bytes.size() <= _buffer.size());
        std::memcpy(_buffer.data(), bytes.data(), bytes.size());
        auto const& target = _ticket.regions.at(region);
        return post(target.addr + offset, target.rkey, bytes.size(), immediate, std::chrono::seconds{5});
    }

    std::optional<int> HostilePeer::post(std::uint64_t remoteAddress, std::uint64_t key, std::size_t length,
                                         std::optional<std::uint32_t> immediate, std::chrono::milliseconds timeout)
    {
        iovec local{_buffer.data(), length};
        void* descriptor = ::fi_mr_desc(_region.get());
        fi_rma_iov remote{remoteAddress, length, key};
        auto const context = _nextContext++;
        fi_msg_rma message{};
        message.msg_iov = &local;
        message.desc = &descriptor;
        message.iov_count = 1;
        message.addr = _target;
        message.rma_iov = &remote;
        message.rma_iov_count = 1;
        message.context = reinterpret_cast<void*>(context);
        message.data = immediate.value_or(0);
        auto const flags = FI_DELIVERY_COMPLETE | (immediate ? FI_REMOTE_CQ_DATA : 0);
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        for (;;)
        {
            auto const posted = ::fi_writemsg(_endpoint.get(), &message, flags);
            if (posted == 0)
            {
                return awaitCompletion(context, deadline);
            }
            if (posted != -FI_EAGAIN)
            {
                return static_cast<int>(posted);
            }
            if (std::chrono::steady_clock::now() >= deadline)
            {
                return std::nullopt;
            }
            _drive();
            fi_cq_data_entry entry{};
            static_cast<void>(::fi_cq_read(_completions.get(), &entry, 1));
        }
    }

    std::optional<int> HostilePeer::writeRegion(std::size_t region, std::uint64_t offset, std::size_t length, std::uint8_t fill,
                                                std::optional<std::uint32_t> immediate)
    {
        auto const& target = _ticket.regions.at(region);
        return write(target.addr + offset, target.rkey, length, fill, immediate);
    }

    std::optional<int> HostilePeer::awaitCompletion(std::uintptr_t context, std::chrono::steady_clock::time_point deadline)
    {
        while (std::chrono::steady_clock::now() < deadline)
        {
            _drive();
            fi_cq_data_entry entry{};
            auto const read = ::fi_cq_read(_completions.get(), &entry, 1);
            if (read == 1 && reinterpret_cast<std::uintptr_t>(entry.op_context) == context)
            {
                return 0;
            }
            if (read == -FI_EAVAIL)
            {
                fi_cq_err_entry error{};
                ::fi_cq_readerr(_completions.get(), &error, 0);
                return -error.err;
            }
        }
        return std::nullopt;
    }
}
