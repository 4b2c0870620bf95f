/* Portability macros shared by every public mxl header. */
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#    define MXL_EXPORT __attribute__((visibility("default")))
#else
#    define MXL_EXPORT
#endif

#ifdef __cplusplus
#    define MXL_NODISCARD [[nodiscard]]
#    define MXL_CONSTEXPR constexpr
#else
#    define MXL_NODISCARD
#    define MXL_CONSTEXPR inline
#endif
