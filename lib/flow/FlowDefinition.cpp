// NMOS flow JSON → FlowDefinition, checked in the order the SDK checks (its lib/internal/src/FlowParser.cpp) so that
// a definition rejected there is rejected here with the first complaint about the same field.
#include "flow/FlowDefinition.hpp"

#include "common/Status.hpp"
#include "flow/JsonFields.hpp"

#include <limits>
#include <numeric>

namespace mxl
{
    namespace
    {
        using nlohmann::json;

        constexpr char const* grouphintTag = "urn:x-nmos:tag:grouphint/v1.0";

        template <typename... Args>
        [[noreturn]] void reject(fmt::format_string<Args...> format, Args&&... args)
        {
            throw Error{MXL_ERR_UNKNOWN, "flow definition: " + fmt::format(format, std::forward<Args>(args)...)};
        }

        // `value` is null when the field is absent.
        [[noreturn]] void rejectField(std::string_view field, std::string_view expected, json const* value)
        {
            if (value == nullptr)
            {
                reject("\"{}\" is missing; expected {}", field, expected);
            }
            reject("\"{}\" must be {}, got {}", field, expected, quoteJson(*value));
        }

        json const* member(json const& object, char const* key)
        {
            auto const it = object.find(key);
            return it == object.end() ? nullptr : &*it;
        }

        json parseRoot(std::string_view text)
        {
            auto parsed = parseBoundedJson(text);
            if (!parsed.ok())
            {
                reject("the text is not valid JSON ({})", parsed.problem);
            }
            auto root = std::move(parsed.value);
            if (!root.is_object())
            {
                reject("the root must be a JSON object, got {}", root.type_name());
            }
            return root;
        }

        std::string const& stringField(json const& object, char const* key, std::string_view expected)
        {
            auto const* value = member(object, key);
            if (value == nullptr || !value->is_string())
            {
                rejectField(key, expected, value);
            }
            return value->get_ref<std::string const&>();
        }

        std::int64_t integerField(json const* value, std::string_view field, std::int64_t min, std::int64_t max, std::string_view expected)
        {
            auto const number = value == nullptr ? std::nullopt : jsonIntegerIn(*value, min, max);
            if (!number)
            {
                rejectField(field, expected, value);
            }
            return *number;
        }

        void readId(json const& root, FlowDefinition& definition)
        {
            constexpr auto expected = "a UUID string (32 hex digits, e.g. \"5fbec3b1-1b0f-417d-9059-8b94a47197ed\")";
            auto const bytes = parseUuid(stringField(root, "id", expected));
            if (!bytes)
            {
                rejectField("id", expected, member(root, "id"));
            }
            definition.id = *bytes;
            definition.idString = formatUuid(*bytes);
        }

        void readFormat(json const& root, FlowDefinition& definition)
        {
            auto const* value = member(root, "format");
            if (value != nullptr && value->is_string())
            {
                auto const& format = value->get_ref<std::string const&>();
                if (format == "urn:x-nmos:format:video")
                {
                    definition.format = MXL_DATA_FORMAT_VIDEO;
                    return;
                }
                if (format == "urn:x-nmos:format:audio")
                {
                    definition.format = MXL_DATA_FORMAT_AUDIO;
                    return;
                }
                if (format == "urn:x-nmos:format:data")
                {
                    definition.format = MXL_DATA_FORMAT_DATA;
                    return;
                }
            }
            // mux and any other NMOS format fall here: MXL carries elementary flows only.
            rejectField("format",
                        "a supported flow format: \"urn:x-nmos:format:video\", \"urn:x-nmos:format:audio\" or \"urn:x-nmos:format:data\"",
                        value);
        }

        void readRate(json const& root, FlowDefinition& definition)
        {
            auto const* const key = definition.format == MXL_DATA_FORMAT_AUDIO ? "sample_rate" : "grain_rate";
            auto const* rate = member(root, key);
            if (rate == nullptr || !rate->is_object())
            {
                rejectField(key, "an object {\"numerator\": n, \"denominator\": d}", rate);
            }
            constexpr auto maxInt64 = std::numeric_limits<std::int64_t>::max();
            auto const numerator =
                integerField(member(*rate, "numerator"), fmt::format("{}.numerator", key), 1, maxInt64, "a positive integer");
            auto const* denominatorValue = member(*rate, "denominator");
            auto const denominator = denominatorValue == nullptr ? 1
                                                                 : integerField(denominatorValue, fmt::format("{}.denominator", key), 1,
                                                                                maxInt64, "a positive integer");
            auto const divisor = std::gcd(numerator, denominator);
            definition.rate = mxlRational{numerator / divisor, denominator / divisor};
        }

        void readLabel(json const& root, FlowDefinition& definition)
        {
            constexpr auto expected = "a non-empty string naming the media function instance";
            definition.label = stringField(root, "label", expected);
            if (definition.label.empty())
            {
                rejectField("label", expected, member(root, "label"));
            }
        }

        // "<group>:<role>" or "<group>:<role>:<scope>" with scope "device" or "node".
        bool isValidGroupHint(std::string_view hint)
        {
            auto const first = hint.find(':');
            if (first == std::string_view::npos)
            {
                return false;
            }
            auto const second = hint.find(':', first + 1);
            auto const group = hint.substr(0, first);
            auto const role = hint.substr(first + 1, second == std::string_view::npos ? std::string_view::npos : second - first - 1);
            if (group.empty() || role.empty())
            {
                return false;
            }
            if (second == std::string_view::npos)
            {
                return true;
            }
            auto const scope = hint.substr(second + 1);
            return scope == "device" || scope == "node";
        }

        void readGroupHints(json const& root, FlowDefinition& definition)
        {
            auto const* tags = member(root, "tags");
            if (tags == nullptr || !tags->is_object())
            {
                rejectField("tags", fmt::format("an object holding a \"{}\" array", grouphintTag), tags);
            }
            auto const field = fmt::format("tags.{}", grouphintTag);
            auto const* hints = member(*tags, grouphintTag);
            if (hints == nullptr || !hints->is_array() || hints->empty())
            {
                rejectField(field, "a non-empty array of \"<group>:<role>[:<scope>]\" strings", hints);
            }
            for (std::size_t i = 0; i < hints->size(); ++i)
            {
                auto const& hint = (*hints)[i];
                if (!hint.is_string() || !isValidGroupHint(hint.get_ref<std::string const&>()))
                {
                    rejectField(
                        fmt::format("{}[{}]", field, i),
                        "\"<group>:<role>\" or \"<group>:<role>:<scope>\" with a non-empty group and role and scope \"device\" or \"node\"",
                        &hint);
                }
                definition.groupHints.push_back(hint.get<std::string>());
            }
        }

        void readVideoFrame(json const& root, FlowDefinition& definition)
        {
            definition.frameWidth =
                static_cast<std::uint32_t>(integerField(member(root, "frame_width"), "frame_width", 2, 7680, "an integer from 2 to 7680"));
            definition.frameHeight = static_cast<std::uint32_t>(
                integerField(member(root, "frame_height"), "frame_height", 1, 4320, "an integer from 1 to 4320"));

            auto const* mode = member(root, "interlace_mode");
            if (mode == nullptr)
            {
                return;
            }
            auto const text = mode->is_string() ? mode->get<std::string>() : std::string{};
            if (text == "interlaced_tff" || text == "interlaced_bff")
            {
                definition.interlaced = true;
            }
            else if (text != "progressive")
            {
                rejectField("interlace_mode", "\"progressive\", \"interlaced_tff\" or \"interlaced_bff\"", mode);
            }
            if (!definition.interlaced)
            {
                return;
            }
            // Only the two broadcast frame rates are defined for interlace; the ring then runs at the field rate.
            auto const& rate = definition.rate;
            auto const isNtsc = rate.numerator == 30000 && rate.denominator == 1001;
            auto const isPal = rate.numerator == 25 && rate.denominator == 1;
            if (!isNtsc && !isPal)
            {
                reject("\"grain_rate\" must be 30000/1001 or 25/1 (a frame rate) for \"interlace_mode\" {}, got {}/{}", quoteJson(*mode),
                       rate.numerator, rate.denominator);
            }
            definition.rate.numerator *= 2;
        }

        void setDiscreteGeometry(FlowDefinition& definition, std::uint64_t totalSlices, std::array<std::uint64_t, 2> planeSliceBytes)
        {
            if (totalSlices > std::numeric_limits<std::uint16_t>::max())
            {
                reject("a grain of {} slices does not fit the 16-bit slice count of the grain header", totalSlices);
            }
            auto const grainSize = (planeSliceBytes[0] + planeSliceBytes[1]) * totalSlices;
            if (grainSize > std::numeric_limits<std::uint32_t>::max())
            {
                reject("a grain of {} bytes does not fit the 32-bit grain size of the grain header", grainSize);
            }
            definition.totalSlices = static_cast<std::uint16_t>(totalSlices);
            definition.sliceSizes = {static_cast<std::uint32_t>(planeSliceBytes[0]), static_cast<std::uint32_t>(planeSliceBytes[1]), 0, 0};
            definition.grainSize = static_cast<std::uint32_t>(grainSize);
        }

        // v210 packs 6 pixels in 16 bytes, lines padded to 48 pixels (128 bytes); the v210a key plane packs 3 luma-range
        // alpha samples per 32-bit word. Interlaced grains are fields, half the frame's lines.
        void readVideoMediaType(json const& root, FlowDefinition& definition)
        {
            constexpr auto expected = "\"video/v210\" or \"video/v210a\" for a video flow";
            definition.mediaType = stringField(root, "media_type", expected);
            auto const hasKey = definition.mediaType == "video/v210a";
            if (!hasKey && definition.mediaType != "video/v210")
            {
                rejectField("media_type", expected, member(root, "media_type"));
            }
            if (definition.interlaced && definition.frameHeight % 2 != 0)
            {
                reject("\"frame_height\" must be even for interlaced video (two fields of equal height), got {}", definition.frameHeight);
            }
            auto const width = std::uint64_t{definition.frameWidth};
            auto const fillBytes = (width + 47) / 48 * 128;
            auto const keyBytes = hasKey ? (width + 2) / 3 * 4 : 0;
            auto const lines = definition.interlaced ? definition.frameHeight / 2 : definition.frameHeight;
            setDiscreteGeometry(definition, lines, {fillBytes, keyBytes});
        }

        // SMPTE ST 291 ancillary data: one fixed-size grain holding an RFC 8331 payload, committed byte by byte.
        void readDataMediaType(json const& root, FlowDefinition& definition)
        {
            constexpr auto expected = "\"video/smpte291\" for a data flow";
            definition.mediaType = stringField(root, "media_type", expected);
            if (definition.mediaType != "video/smpte291")
            {
                rejectField("media_type", expected, member(root, "media_type"));
            }
            setDiscreteGeometry(definition, MXL_DATA_FORMAT_GRAIN_SIZE, {1, 0});
        }

        // media_type is not checked for audio, as in the SDK: the samples are float32 or float64 by bit_depth alone.
        void readAudioSamples(json const& root, FlowDefinition& definition)
        {
            constexpr auto bitDepthExpected = "32 or 64 (bits of a float sample)";
            auto const bitDepth = integerField(member(root, "bit_depth"), "bit_depth", 32, 64, bitDepthExpected);
            if (bitDepth != 32 && bitDepth != 64)
            {
                rejectField("bit_depth", bitDepthExpected, member(root, "bit_depth"));
            }
            definition.sampleWordBytes = static_cast<std::uint32_t>(bitDepth / 8);

            // channel_count is an MXL extension to NMOS; the SDK defaults it to one channel.
            auto const* channels = member(root, "channel_count");
            definition.channelCount =
                channels == nullptr ? 1
                                    : static_cast<std::uint32_t>(integerField(
                                          channels, "channel_count", 1, std::numeric_limits<std::uint32_t>::max(), "a positive integer"));
        }
    }

    FlowDefinition parseFlowDefinition(std::string_view text)
    {
        auto const root = parseRoot(text);
        FlowDefinition definition;
        readId(root, definition);
        readFormat(root, definition);
        readRate(root, definition);
        readLabel(root, definition);
        readGroupHints(root, definition);
        switch (definition.format)
        {
        case MXL_DATA_FORMAT_VIDEO:
            readVideoFrame(root, definition);
            readVideoMediaType(root, definition);
            break;
        case MXL_DATA_FORMAT_DATA:
            readDataMediaType(root, definition);
            break;
        default:
            readAudioSamples(root, definition);
            break;
        }
        return definition;
    }
}
