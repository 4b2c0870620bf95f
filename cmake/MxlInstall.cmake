# Install rules, the exported CMake package (find_package(mxl) -> mxl::mxl, mxl::mxl-fabrics) and pkg-config files.
include(CMakePackageConfigHelpers)

set(MXL_INSTALL_TARGETS mxl)
if(TARGET mxl-fabrics)
    list(APPEND MXL_INSTALL_TARGETS mxl-fabrics)
endif()
install(TARGETS ${MXL_INSTALL_TARGETS} EXPORT mxlTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

file(GLOB MXL_PUBLIC_HEADERS ${PROJECT_SOURCE_DIR}/include/mxl/*.h)
if(NOT TARGET mxl-fabrics)
    list(FILTER MXL_PUBLIC_HEADERS EXCLUDE REGEX "fabrics(_[a-z]+)?\\.h$")
endif()
install(FILES ${MXL_PUBLIC_HEADERS} ${MXL_GENERATED_INCLUDE_DIR}/mxl/version.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mxl)

set(MXL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/mxl)
install(EXPORT mxlTargets NAMESPACE mxl:: DESTINATION ${MXL_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/mxlConfig.cmake.in
    ${PROJECT_BINARY_DIR}/mxlConfig.cmake INSTALL_DESTINATION ${MXL_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mxlConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mxlConfig.cmake ${PROJECT_BINARY_DIR}/mxlConfigVersion.cmake
    DESTINATION ${MXL_CMAKE_DIR})

# Relocatable pkg-config files: the prefix is found from the .pc file's own location.
file(RELATIVE_PATH MXL_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
configure_file(${PROJECT_SOURCE_DIR}/cmake/libmxl.pc.in ${PROJECT_BINARY_DIR}/libmxl.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/libmxl.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(TARGET mxl-fabrics)
    configure_file(${PROJECT_SOURCE_DIR}/cmake/libmxl-fabrics.pc.in ${PROJECT_BINARY_DIR}/libmxl-fabrics.pc @ONLY)
    install(FILES ${PROJECT_BINARY_DIR}/libmxl-fabrics.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
