# mxl_add_folders([EXCEPT <name>...]): every folder beside the calling CMakeLists.txt that has a CMakeLists.txt of its
# own, but those named: tools/, bench/ and tests/ hold one program or suite a folder.
function(mxl_add_folders)
    cmake_parse_arguments(ARG "" "" "EXCEPT" ${ARGN})
    file(GLOB folders LIST_DIRECTORIES true CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*)
    foreach(folder IN LISTS folders)
        get_filename_component(name ${folder} NAME)
        if(EXISTS ${folder}/CMakeLists.txt AND NOT name IN_LIST ARG_EXCEPT)
            add_subdirectory(${folder})
        endif()
    endforeach()
endfunction()
