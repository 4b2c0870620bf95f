# Runs mxl-fabrics-capacity-bench in its tiniest configuration and checks what a short run can promise on any machine:
# exit status 0 (the row was measured) and a table row whose fifteen figures (five per path) are numbers. Late and lost
# counts are not judged: on a shared machine they depend on its load.
# Usage: cmake -DBENCH=<path of mxl-fabrics-capacity-bench> -P CapacityRowCheck.cmake
execute_process(COMMAND ${BENCH} --providers shm --formats 1080p59.94 --max-flows 1 --seconds 2 --no-fan-out
                        --paths mxl,mxl-redundant,raw
                RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
message("${output}")
if(NOT status EQUAL 0)
    message(FATAL_ERROR "mxl-fabrics-capacity-bench exited with status ${status}, expected 0; its stderr:\n${errors}")
endif()
# "| shm | 1080p59.94 | 1 |" then late | lost | units | p50 / p99 | init / tgt for mxl, and the same for mxl-redundant and
# raw.
string(REGEX MATCH "\\| shm \\| 1080p59\\.94 \\| 1 \\|( [0-9.]+( / [0-9.]+)? \\|)+" row "${output}")
string(REGEX MATCHALL "\\|" bars "${row}")
list(LENGTH bars barCount)
if(NOT barCount EQUAL 19)
    message(FATAL_ERROR "no row of numbers for shm 1080p59.94 with 1 flow (expected 15 numeric cells, matched '${row}')")
endif()
