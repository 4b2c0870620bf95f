# Runs mxl-device-bench with few grains and checks what a short run can promise: where this machine has no CUDA device,
# exit status 0 and the one skip line (the test then reports MXL-SKIP, skipped); where it has one, exit status 0 and
# every row of the three tables with finite numbers, device→device fabric rows included (libmxl-fabrics stages device
# payloads, so a refusal fails). No timing is judged.
# Usage: cmake -DBENCH=<path of mxl-device-bench> -P DeviceBenchCheck.cmake
execute_process(COMMAND ${BENCH} --grains 32 --providers tcp,shm RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
message("${output}")
if(NOT status EQUAL 0)
    message(FATAL_ERROR "mxl-device-bench exited with status ${status}, expected 0; its stderr:\n${errors}")
endif()

if(output MATCHES "^mxl-device-bench: skipped: no CUDA device \\(([^\n]+)\\)\n$")
    message("MXL-SKIP: no CUDA device (${CMAKE_MATCH_1})")
    return()
endif()
if(output MATCHES "skipped")
    message(FATAL_ERROR "the output mentions a skip but is not the one skip line 'mxl-device-bench: skipped: no CUDA device (...)'")
endif()

# Digits only: "inf" and "nan" (a zero baseline, a clock that did not move) fail.
set(number "[0-9]+\\.?[0-9]*")
set(ratio "[0-9]+\\.[0-9][0-9]x")
# require_row(<description> <regex>): the output has a line matching <regex>; its groups 1 and 2 are left in
# rowGroup1 and rowGroup2. (A function: a macro would expand the regex's backslashes a second time.)
function(require_row description regex)
    if(NOT output MATCHES "${regex}")
        message(FATAL_ERROR "no ${description} row with finite numbers (expected a line matching '${regex}')")
    endif()
    set(rowGroup1 "${CMAKE_MATCH_1}" PARENT_SCOPE)
    set(rowGroup2 "${CMAKE_MATCH_2}" PARENT_SCOPE)
endfunction()
# require_all_verified(<description>): the last row's groups are "<verified> of <checked>".
function(require_all_verified description)
    if(rowGroup1 EQUAL 0 OR NOT rowGroup1 EQUAL rowGroup2)
        message(FATAL_ERROR "${description}: ${rowGroup1} grains verified of ${rowGroup2} checked, expected all and at least one")
    endif()
endfunction()

require_row("cudaMemcpy baseline" "\\| cudaMemcpy device→device [^|]+\\(baseline\\) \\| ${number} \\| ${number} \\| ${number} \\| 1\\.00x \\|")
require_row("flow write+commit" "\\| flow write\\+commit: [^|]+ \\| ${number} \\| ${number} \\| ${number} \\| ${ratio} \\|")
require_row("host flow reader" "\\| host flow \\(baseline\\) \\| ${number} / ${number} \\| 1\\.00x \\|")
require_row("device flow reader" "\\| flow reader GetGrain: device flow \\| ${number} / ${number} \\| ${ratio} \\|")
foreach(provider tcp shm)
    # 32 grains sent: every one read by the target, and every one still in its ring verified.
    require_row("${provider} fabric host→host"
                "\\| ${provider} \\| fabric host→host \\(baseline\\) \\| ${number} \\| ${number} \\| 32 of 32 \\| ([0-9]+) of ([0-9]+) \\| 1\\.00x \\|")
    require_all_verified("${provider} fabric host→host")
    require_row("${provider} fabric device→device"
                "\\| ${provider} \\| fabric device→device \\| ${number} \\| ${number} \\| 32 of 32 \\| ([0-9]+) of ([0-9]+) \\| ${ratio} \\|")
    require_all_verified("${provider} fabric device→device")
endforeach()
