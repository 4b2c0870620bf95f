#include "DomainDefinition.hpp"

#include "NameUuid.hpp"

#include <common/BoundedFile.hpp>
#include <common/BoundedJson.hpp>
#include <common/UniqueFd.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <regex>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mxl::nmos
{
    namespace
    {
        using json = nlohmann::json;

        constexpr char const* fileName = "domain_def.json";

        std::string optionalString(json const& document, char const* key, std::filesystem::path const& file)
        {
            auto const it = document.find(key);
            if (it == document.end())
            {
                return {};
            }
            if (!it->is_string())
            {
                throw DomainDefinitionError{fmt::format("'{}': \"{}\" is {}; expected a string", file.string(), key, mxl::quoteJson(*it))};
            }
            return it->get<std::string>();
        }

        DomainDefinition parse(std::string const& text, std::filesystem::path const& file)
        {
            auto const parsed = mxl::parseBoundedJson(text);
            if (!parsed.ok())
            {
                throw DomainDefinitionError{fmt::format("'{}' is not JSON ({})", file.string(), parsed.problem)};
            }
            auto const& document = parsed.value;
            if (!document.is_object())
            {
                throw DomainDefinitionError{fmt::format("'{}' is {}; expected a JSON object", file.string(), document.type_name())};
            }
            auto const id = document.find("id");
            if (id == document.end())
            {
                throw DomainDefinitionError{fmt::format("'{}' has no \"id\"", file.string())};
            }
            if (!id->is_string() || !isMxlUuid(id->get<std::string>()))
            {
                throw DomainDefinitionError{fmt::format("'{}': \"id\" is {}; expected a lowercase UUID (8-4-4-4-12 hex digits)",
                                                        file.string(), mxl::quoteJson(*id))};
            }
            DomainDefinition definition{id->get<std::string>(), optionalString(document, "label", file),
                                        optionalString(document, "description", file)};
            if (auto const tags = document.find("tags"); tags != document.end())
            {
                if (!tags->is_object())
                {
                    throw DomainDefinitionError{
                        fmt::format("'{}': \"tags\" is {}; expected a JSON object", file.string(), mxl::quoteJson(*tags))};
                }
                definition.tags = *tags;
            }
            return definition;
        }

        std::string systemError(int error)
        {
            return std::strerror(error);
        }

        // Writes `text` to a new file beside `file` and links it into place; false when `file` appeared meanwhile.
        bool createWhole(std::filesystem::path const& file, std::string const& text)
        {
            auto aside = (file.parent_path() / ".domain_def.json.XXXXXX").string();
            UniqueFd const fd{::mkstemp(aside.data())};
            if (fd.get() < 0)
            {
                throw DomainDefinitionError{fmt::format("cannot create '{}': {}", file.string(), systemError(errno))};
            }
            auto const removeAside = [&] { ::unlink(aside.c_str()); };
            std::size_t written = 0;
            while (written < text.size())
            {
                auto const count = ::write(fd.get(), text.data() + written, text.size() - written);
                if (count < 0 && errno == EINTR)
                {
                    continue;
                }
                if (count <= 0)
                {
                    auto const error = errno;
                    removeAside();
                    throw DomainDefinitionError{fmt::format("cannot write '{}': {}", file.string(), systemError(error))};
                }
                written += static_cast<std::size_t>(count);
            }
            ::fchmod(fd.get(), 0644);
            auto const linked = ::link(aside.c_str(), file.c_str());
            auto const error = errno;
            removeAside();
            if (linked == 0)
            {
                return true;
            }
            if (error == EEXIST)
            {
                return false;
            }
            throw DomainDefinitionError{fmt::format("cannot create '{}': {}", file.string(), systemError(error))};
        }
    }

    bool isMxlUuid(std::string const& text)
    {
        static std::regex const form{"^[0-9a-f]{8}-[0-9a-f]{4}-[1-9a-f][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"};
        return std::regex_match(text, form);
    }

    DomainDefinition readOrCreateDomainDefinition(std::filesystem::path const& domain, std::string const& hostname)
    {
        auto const file = domain / fileName;
        std::error_code error;
        auto const canonical = std::filesystem::canonical(domain, error);
        if (error)
        {
            throw DomainDefinitionError{fmt::format("domain '{}': {}", domain.string(), error.message())};
        }
        if (!std::filesystem::exists(std::filesystem::symlink_status(file)))
        {
            auto label = canonical.filename().string();
            json const document{{"id", nameUuid(fmt::format("mxl-domain/{}/{}", hostname, canonical.string()))},
                                {"label", label.empty() ? canonical.string() : label},
                                {"description", fmt::format("MXL domain {} on {}", canonical.string(), hostname)},
                                {"tags", json::object()}};
            if (createWhole(file, document.dump(4) + "\n"))
            {
                auto created = parse(document.dump(), file);
                created.created = true;
                return created;
            }
        }
        try
        {
            return parse(readBoundedFile(file), file);
        }
        catch (FileReadError const& problem)
        {
            throw DomainDefinitionError{problem.what()};
        }
    }
}
