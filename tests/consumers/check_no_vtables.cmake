# Fails when BINARY defines a vtable for a gpuarch type other than an exception.
# Exceptions (gpuarch::Error and types derived from it) derive from std::runtime_error and so carry a vtable;
# they are thrown only off the simulation path (bad input, a kernel fault) and never dispatched per cycle.
# tests/core/no_virtual_dispatch.cpp proves at compile time that every other gpuarch type in an SM is
# non-polymorphic; this check catches what the type list could miss.
execute_process(COMMAND nm -C "${BINARY}" OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(rc)
    message(FATAL_ERROR "nm failed on ${BINARY}")
endif()
string(REGEX MATCHALL "vtable for gpuarch::[^\n]*" vtables "${symbols}")
set(offending "")
foreach(v IN LISTS vtables)
    if(NOT v MATCHES "Error$")
        list(APPEND offending "${v}")
    endif()
endforeach()
if(offending)
    message(FATAL_ERROR "virtual dispatch found in ${BINARY}:\n${offending}")
endif()
list(LENGTH vtables n)
message("no gpuarch vtables besides ${n} exception type(s) in ${BINARY}")
